//! System messages in the middle of a conversation (SPEC MSG-08), per
//! family: Anthropic keeps each where it stood as a `system` turn (the
//! recorded exchanges with claude-opus-4-8), Chat Completions as a
//! `system` message in place (recorded), Gemini and Bedrock Converse —
//! which have no system turns — add it to the system instructions.

use crate::anthropic::{codec_for_recorded, expected_body, request_from_messages};
use crate::support::{case_dir, drop_nulls, read_json, recorded_request, request_from_recorded};
use golem_core::message::Message;
use golem_core::model::Request;
use golem_providers::codec::HttpCodec;
use golem_providers::openai::{Codec as OpenAiCodec, Config, Preset};
use serde_json::{json, Value};

fn sent<C: HttpCodec>(codec: &C, request: &Request) -> Value {
    serde_json::from_slice(&codec.encode(request, false).unwrap().body).unwrap()
}

#[test]
fn anthropic_keeps_mid_conversation_system_turns_as_recorded() {
    for case in ["messages_mid_conversation_system", "messages_mid_conversation_system_kept_mid_history"] {
        let body = recorded_request("anthropic", case, 1);
        let request = request_from_messages(&body);
        let mut ours = sent(&codec_for_recorded(&body), &request);
        // One recorder leaves `stream` out when false.
        if body.get("stream").is_none() {
            ours.as_object_mut().unwrap().remove("stream");
        }
        assert_eq!(ours, expected_body(&body), "{case}");
    }
}

#[test]
fn anthropic_sends_two_system_turns_apart() {
    let history = vec![
        Message::system("Be a reviewer."),
        Message::user("Review it."),
        Message::assistant("Fine."),
        Message::system("Use type hints."),
        Message::system("State the complexity."),
        Message::user("Next."),
    ];
    let ours = sent(&crate::anthropic::codec(), &Request::new(history));
    assert_eq!(ours["system"], "Be a reviewer.");
    let roles: Vec<&str> = ours["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "system", "system", "user"]);
    assert_eq!(ours["messages"][2]["content"], json!([{"type": "text", "text": "Use type hints."}]));
}

#[test]
fn chat_completions_sends_the_system_message_in_place_as_recorded() {
    let case = "openai/chat_mid_conversation_system";
    let mut body = read_json(&case_dir(case).join("01.request.json"));
    let request = request_from_recorded(&body);
    let codec = OpenAiCodec::new(
        Config::builder(Preset::openai(), body["model"].as_str().unwrap()).api_key("sk-test").build().unwrap(),
    );
    let mut ours = sent(&codec, &request);
    drop_nulls(&mut body);
    drop_nulls(&mut ours);
    assert_eq!(ours["messages"], body["messages"]);
}

#[test]
fn gemini_and_bedrock_add_a_late_system_text_to_the_instructions() {
    let history = vec![Message::system("A."), Message::user("hi"), Message::assistant("yo"), Message::system("B.")];
    let request = Request::new(history.clone());
    let gemini = sent(&crate::gemini::codec(), &request);
    assert_eq!(gemini["systemInstruction"]["parts"], json!([{"text": "A."}, {"text": "B."}]));
    let roles: Vec<&str> = gemini["contents"].as_array().unwrap().iter().map(|c| c["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "model"]);
    let bedrock = sent(&crate::bedrock::codec(), &request);
    assert_eq!(bedrock["system"], json!([{"text": "A."}, {"text": "B."}]));
    assert_eq!(bedrock["messages"].as_array().unwrap().len(), 2);
}

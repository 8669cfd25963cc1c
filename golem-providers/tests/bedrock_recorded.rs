//! Recorded Bedrock traffic (tests/fixtures/recorded/bedrock): our
//! encoder reproduces each recorded Converse body from the equivalent golem
//! request, and our decoders turn each recorded response — Converse JSON
//! or ConverseStream event stream — into the expected golem response
//! (golden files in tests/golden/), identically at every chunking.
//! SPEC PROV-BR-01..06, STREAM-05/06/07, THINK-01/03.

use crate::bedrock::{codec_for_recorded, recorded, request_from_converse};
use crate::support::{
    self, assert_split_invariant, case_dir, cassette_head, golden, interactions, response_json, run_stream,
};
use golem_core::model::{Request, Response};
use golem_core::stream::response_deltas;
use golem_providers::bedrock::Codec;
use golem_providers::codec::HttpCodec;
use golem_providers::http::{HttpResponseHead, Method};
use serde_json::Value;

const CASES: [&str; 4] = [
    "converse_tool_use_reasoning",
    "converse_stream_tool_use",
    "converse_stream_reasoning_signature",
    "converse_stream_text",
];

/// The recorded body less what golem omits on purpose: empty `system`
/// and `inferenceConfig` (pydantic-ai sends `[]` and `{}`; absent is the
/// same request, PROV-BR-03 "set fields only").
fn expected_body(recorded: &Value) -> Value {
    let mut body = recorded.clone();
    let map = body.as_object_mut().unwrap();
    for field in ["system", "inferenceConfig"] {
        let empty = match map.get(field) {
            Some(Value::Array(items)) => items.is_empty(),
            Some(Value::Object(fields)) => fields.is_empty(),
            _ => false,
        };
        if empty {
            map.remove(field);
        }
    }
    body
}

fn decode_recorded(codec: &Codec, request: &Request, case: &str, n: usize, file: &str) -> Response {
    support::decode_recorded(codec, request, ("bedrock", case, n), file, file.ends_with(".bin"))
}

#[test]
fn requests_match_the_recordings_and_continue_the_conversation() {
    for case in CASES {
        let mut history: Option<Vec<golem_core::Message>> = None;
        let manifest: Value = serde_json::from_slice(&recorded(case, "manifest.json")).unwrap();
        for (n, _, file) in interactions(&format!("bedrock/{case}")) {
            let recorded_body: Value =
                serde_json::from_slice(&recorded(case, &format!("{n:02}.request.json"))).unwrap();
            let request = request_from_converse(&recorded_body);
            if let Some(history) = &history {
                assert_eq!(&request.messages[..history.len()], &history[..], "{case} {n}: conversation continuity");
            }
            let codec = codec_for_recorded(case, &recorded_body);
            let stream = file.ends_with(".bin");
            let http = codec.encode(&request, stream).unwrap();
            assert_eq!(http.method, Method::Post);
            assert_eq!(http.url, manifest["interactions"][n - 1]["uri"].as_str().unwrap(), "{case} {n}: URL");
            assert_eq!(http.header("content-type").unwrap().expose(), "application/json");
            let ours: Value = serde_json::from_slice(&http.body).unwrap();
            assert_eq!(ours, expected_body(&recorded_body), "{case} {n}: request body");

            let response = decode_recorded(&codec, &request, case, n, &file);
            let mut next = request.messages.to_vec();
            next.push(response.message);
            history = Some(next);
        }
    }
}

#[test]
fn responses_decode_to_the_goldens() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("bedrock/{case}")) {
            let body: Value = serde_json::from_slice(&recorded(case, &format!("{n:02}.request.json"))).unwrap();
            let codec = codec_for_recorded(case, &body);
            let response = decode_recorded(&codec, &request_from_converse(&body), case, n, &file);
            golden(&format!("bedrock__{case}__{n:02}"), &response_json(&response));
        }
    }
}

/// STREAM-05: a whole response and the stream of its deltas build one
/// message; for the JSON fixture that is the assembler over its deltas,
/// for the streams their decoded response re-streamed.
#[test]
fn parse_equals_assemble_of_its_deltas() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("bedrock/{case}")) {
            let body: Value = serde_json::from_slice(&recorded(case, &format!("{n:02}.request.json"))).unwrap();
            let codec = codec_for_recorded(case, &body);
            let response = decode_recorded(&codec, &request_from_converse(&body), case, n, &file);
            let deltas = response_deltas(&response, 3);
            support::assert_assembles("bedrock", &deltas, &response, &format!("{case} {n}"));
        }
    }
}

#[test]
fn every_recorded_stream_is_chunking_invariant() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("bedrock/{case}")).into_iter().filter(|(_, _, f)| f.ends_with(".bin"))
        {
            let body_json: Value = serde_json::from_slice(&recorded(case, &format!("{n:02}.request.json"))).unwrap();
            let request = request_from_converse(&body_json);
            let codec = codec_for_recorded(case, &body_json);
            let head = HttpResponseHead::new(200, vec![]);
            let body = recorded(case, &file);
            assert_split_invariant(&codec, &request, &head, &body, &format!("{case} {file}"));
            // Cut short anywhere, it is a retryable truncation, never a success.
            for cut in (0..body.len()).step_by(97) {
                let (_, result) = run_stream(&codec, &request, &head, [&body[..cut]]);
                let error = result.expect_err("a cut stream");
                assert_eq!(error.kind, golem_core::ModelErrorKind::Truncated, "{case} {file}: cut at {cut}");
                assert!(error.retryable);
            }
        }
    }
}

#[test]
fn recorded_error_bodies_are_classified() {
    for case in ["bedrock_400_model_not_found", "bedrock_converse_stream_400_invalid_model"] {
        let dir = case_dir(&format!("errors/{case}"));
        let body = std::fs::read(dir.join("01.response.json")).unwrap();
        let mut head = cassette_head(&format!("errors/{case}"), 1);
        head.headers.push((
            "x-amzn-errortype".into(),
            "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/".into(),
        ));
        head.headers.push(("x-amzn-RequestId".into(), "5d3b1c9e-req".into()));
        let request = Request::new(vec![golem_core::Message::user("hello")]);
        let codec = crate::bedrock::codec();
        let error = codec.decode(&request, &head, &body).unwrap_err();
        assert_eq!(error.status, Some(400), "{case}");
        assert!(!error.retryable);
        assert_eq!(error.code, "ValidationException");
        assert_eq!(error.message, "The provided model identifier is invalid.");
        assert_eq!(error.request_id, "5d3b1c9e-req");
    }
}

/// Issue 32 item 7: DeepSeek R1 answers with reasoning that carries no
/// signature, and refuses reasoning content in its input ("User messages
/// cannot contain reasoning content"). The recorded follow-up request
/// carries no `reasoningContent`: the reasoning stays in golem's history
/// (it was decoded, unsigned) and off the wire, and the answer goes back
/// as the recording sent it.
#[test]
fn unsigned_reasoning_stays_in_the_history_and_off_the_wire() {
    let case = "converse_deepseek_r1_unsigned_reasoning";
    let first: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
    let codec = codec_for_recorded(case, &first);
    let request = request_from_converse(&first);
    let response = decode_recorded(&codec, &request, case, 1, "01.response.json");
    let thinking = &response.message.thinking;
    assert!(thinking.len() == 1 && !thinking[0].text.is_empty() && thinking[0].signature.is_empty());

    let follow_up: Value = serde_json::from_slice(&recorded(case, "02.request.json")).unwrap();
    let mut messages = request.messages.to_vec();
    messages.push(response.message);
    messages.push(golem_core::Message::user(follow_up["messages"][2]["content"][0]["text"].as_str().unwrap()));
    let http = codec.encode(&Request::new(messages), false).unwrap();
    let ours: Value = serde_json::from_slice(&http.body).unwrap();
    assert!(!ours.to_string().contains("reasoningContent"), "no reasoning goes back: {ours}");
    let answer = &follow_up["messages"][1]["content"][0];
    assert_eq!(ours["messages"][1], serde_json::json!({"role": "assistant", "content": [answer]}));
    assert_eq!(ours["messages"][2], follow_up["messages"][2]);
}

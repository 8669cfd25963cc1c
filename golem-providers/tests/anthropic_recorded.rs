//! Recorded Anthropic traffic (tests/fixtures/recorded/anthropic): our
//! encoder reproduces each recorded request body from the equivalent
//! golem request (semantically equal JSON, the spellings golem does not
//! use normalised, see `expected_body`), and our decoders turn each
//! recorded response — a Messages body or an SSE stream — into the
//! expected golem response (golden files in tests/golden/), identically at
//! every chunking; cut anywhere before `message_stop`, a stream is a
//! retryable truncation. The thinking round trip: what we decoded, fed
//! back as history, is the next recorded request, signatures unchanged.
//! SPEC PROV-ANT-01..07, STREAM-05/06/07, THINK-01/03/05, USAGE-02.

use crate::anthropic::{codec_for_recorded, expected_body, recorded, request_from_messages, KEY};
use crate::support::{self, case_dir, cassette_head, golden, interactions, response_json};
use golem_core::message::{Message, Role};
use golem_core::model::{ModelErrorKind, Request, Response};
use golem_core::stream::response_deltas;
use golem_core::FinishReason;
use golem_providers::anthropic::Codec;
use golem_providers::codec::HttpCodec;
use golem_providers::http::Method;
use serde_json::Value;

const CASES: [&str; 5] = [
    "messages_tool_use_with_thinking",
    "messages_stream_thinking_signature",
    "messages_stream_redacted_thinking",
    "messages_stream_parallel_tool_use",
    "messages_stream_tool_use_input_json_delta",
];

fn decode_recorded(codec: &Codec, request: &Request, case: &str, n: usize, file: &str) -> Response {
    support::decode_recorded(codec, request, ("anthropic", case, n), file, file.ends_with(".sse"))
}

fn request_body(case: &str, n: usize) -> Value {
    support::recorded_request("anthropic", case, n)
}

/// What the next recorded request says the model answered, against what
/// we decoded: same text, same thinking blocks with the same signatures
/// and redacted data, byte for byte, same calls with the same ids and
/// arguments.
fn assert_continues(case: &str, n: usize, ours: &Message, theirs: &Message) {
    assert_eq!(theirs.role, Role::Assistant);
    // llm-anthropic sends " " for an assistant turn without text.
    assert_eq!(ours.content, theirs.content.trim(), "{case} {n}: text");
    assert_eq!(ours.thinking.len(), theirs.thinking.len(), "{case} {n}: thinking blocks");
    for (a, b) in ours.thinking.iter().zip(&theirs.thinking) {
        assert_eq!((&a.text, &a.signature, &a.redacted), (&b.text, &b.signature, &b.redacted), "{case} {n}");
        assert_eq!(a.provider, "anthropic");
    }
    assert_eq!(ours.tool_calls.len(), theirs.tool_calls.len(), "{case} {n}: calls");
    for (a, b) in ours.tool_calls.iter().zip(&theirs.tool_calls) {
        assert_eq!((&a.id, &a.name), (&b.id, &b.name), "{case} {n}");
        assert_eq!(a.args.parse().unwrap(), b.args.parse().unwrap(), "{case} {n}: arguments");
    }
}

#[test]
fn requests_match_the_recordings_and_continue_the_conversation() {
    for case in CASES {
        let manifest: Value = serde_json::from_slice(&recorded(case, "manifest.json")).unwrap();
        let mut answered: Option<Message> = None;
        for (n, _, file) in interactions(&format!("anthropic/{case}")) {
            let recorded_body = request_body(case, n);
            let mut request = request_from_messages(&recorded_body);
            if let Some(ours) = answered.take() {
                // Replay what we decoded, not what the recorder sent: the
                // signatures must survive our own decode and encode.
                let at = request.messages.iter().rposition(|m| m.role == Role::Assistant).unwrap();
                assert_continues(case, n, &ours, &request.messages[at]);
                request.messages_mut()[at] = ours;
            }
            let codec = codec_for_recorded(&recorded_body);
            let stream = recorded_body["stream"].as_bool().unwrap_or(false);
            let http = codec.encode(&request, stream).unwrap();
            assert_eq!(http.method, Method::Post);
            let uri = manifest["interactions"][n - 1]["uri"].as_str().unwrap();
            assert_eq!(http.url, uri.split('?').next().unwrap(), "{case} {n}: URL (pydantic-ai adds ?beta=true)");
            assert_eq!(http.header("x-api-key").unwrap().expose(), KEY);
            assert_eq!(http.header("anthropic-version").unwrap().expose(), "2023-06-01");
            let ours: Value = serde_json::from_slice(&http.body).unwrap();
            assert_eq!(ours, expected_body(&recorded_body), "{case} {n}: request body");
            answered = Some(decode_recorded(&codec, &request, case, n, &file).message);
        }
    }
}

#[test]
fn responses_decode_to_the_goldens() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("anthropic/{case}")) {
            let body = request_body(case, n);
            let codec = codec_for_recorded(&body);
            let response = decode_recorded(&codec, &request_from_messages(&body), case, n, &file);
            golden(&format!("anthropic__{case}__{n:02}"), &response_json(&response));
        }
    }
}

/// STREAM-05: a whole response and the stream of its deltas build one
/// message.
#[test]
fn parse_equals_assemble_of_its_deltas() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("anthropic/{case}")) {
            let body = request_body(case, n);
            let codec = codec_for_recorded(&body);
            let response = decode_recorded(&codec, &request_from_messages(&body), case, n, &file);
            let deltas = response_deltas(&response, 3);
            support::assert_assembles("anthropic", &deltas, &response, &format!("{case} {n}"));
        }
    }
}

#[test]
fn every_recorded_stream_is_chunking_invariant_and_truncated_when_cut() {
    for case in CASES {
        for (n, _, file) in
            interactions(&format!("anthropic/{case}")).into_iter().filter(|(_, _, f)| f.ends_with(".sse"))
        {
            let request = request_from_messages(&request_body(case, n));
            let codec = codec_for_recorded(&request_body(case, n));
            support::assert_recorded_stream(&codec, &request, &recorded(case, &file), &format!("{case} {file}"));
        }
    }
}

/// THINK-01/03: the thinking stream's block carries its text and its
/// signature; the redacted stream's two opaque blocks keep their data and
/// their order ahead of the text, in one ordinal space (THINK-05).
#[test]
fn recorded_thinking_and_redacted_blocks_keep_their_signatures() {
    let body = request_body("messages_stream_thinking_signature", 1);
    let response = decode_recorded(
        &codec_for_recorded(&body),
        &request_from_messages(&body),
        "messages_stream_thinking_signature",
        1,
        "01.response.sse",
    );
    let block = &response.message.thinking[0];
    assert!(!block.text.is_empty() && !block.signature.is_empty() && block.redacted.is_empty());
    assert_eq!(response.finish_reason, FinishReason::Stop);

    let case = "messages_stream_redacted_thinking";
    let body = request_body(case, 1);
    let codec = codec_for_recorded(&body);
    let request = request_from_messages(&body);
    let response = decode_recorded(&codec, &request, case, 1, "01.response.sse");
    assert_eq!(response.message.thinking.len(), 2);
    assert!(response.message.thinking.iter().all(|b| b.text.is_empty() && b.redacted.starts_with("E")));
    assert!(!response.message.content.is_empty());
    // Fed back, both redacted blocks go first, in order, unchanged.
    let history = Request::new(vec![request.messages[0].clone(), response.message.clone(), Message::user("and?")]);
    let sent: Value = serde_json::from_slice(&codec.encode(&history, true).unwrap().body).unwrap();
    let replayed = &sent["messages"][1]["content"];
    for (i, block) in response.message.thinking.iter().enumerate() {
        assert_eq!(replayed[i]["type"], "redacted_thinking");
        assert_eq!(replayed[i]["data"], block.redacted.as_str());
    }
    assert_eq!(replayed[2]["type"], "text");
    // And the history survives durable JSON unchanged (THINK-01).
    let json = serde_json::to_string(&history.messages).unwrap();
    let back: Vec<Message> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, *history.messages);
    let again = Request::new(back);
    assert_eq!(codec.encode(&again, true).unwrap().body, codec.encode(&history, true).unwrap().body);
}

#[test]
fn recorded_usage_counts_cached_input_and_the_final_output() {
    let case = "messages_stream_parallel_tool_use";
    let body = request_body(case, 1);
    let response =
        decode_recorded(&codec_for_recorded(&body), &request_from_messages(&body), case, 1, "01.response.sse");
    assert_eq!(response.finish_reason, FinishReason::ToolCall);
    assert_eq!(response.message.tool_calls.len(), 2);
    assert!(response.message.tool_calls.iter().all(|c| c.args.as_str() == "{}"), "no-argument calls");
    let sse = String::from_utf8(recorded(case, "01.response.sse")).unwrap();
    let last_output = sse
        .lines()
        .rev()
        .filter(|l| l.contains("message_delta"))
        .filter_map(|l| serde_json::from_str::<Value>(l.trim_start_matches("data:").trim()).ok())
        .find_map(|v| v["usage"]["output_tokens"].as_u64())
        .unwrap();
    assert_eq!(response.usage.output_tokens, last_output, "message_delta's usage overwrites");
}

#[test]
fn the_recorded_404_is_a_classified_fatal_error() {
    let case = "anthropic_404_model_not_found";
    let dir = case_dir(&format!("errors/{case}"));
    let body = std::fs::read(dir.join("01.response.json")).unwrap();
    let head = cassette_head(&format!("errors/{case}"), 1);
    let request = Request::new(vec![Message::user("hello")]);
    let codec = crate::anthropic::codec();
    for error in [codec.decode(&request, &head, &body).unwrap_err(), codec.error(&head, &body)] {
        assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(404), false));
        assert_eq!(error.code, "not_found_error");
        assert!(error.message.contains("model"), "{}", error.message);
    }
}

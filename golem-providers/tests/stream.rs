//! The Chat Completions stream decoder (SPEC PROV-OAI-07, STREAM-04..08):
//! terminal markers, malformed input, in-stream errors, bounds, and the
//! merge rules for tool-call fragments.

use crate::support;

use golem_core::message::{FinishReason, ThinkingBlock, ToolCall};
use golem_core::model::{Delta, ModelErrorKind, Request};
use golem_core::stream::StreamAssembler;
use golem_core::Message;
use golem_providers::codec::{HttpCodec, StreamDecoder};
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Codec, Config, Preset};
use serde_json::{json, Value};
use support::{run_stream, split_at};

fn codec() -> Codec {
    Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-stream-test-key").build().unwrap())
}

fn head() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![("x-request-id".into(), "req_s".into())])
}

fn chunk(delta: Value, finish: Value) -> String {
    format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
}

fn body(parts: &[String]) -> Vec<u8> {
    parts.concat().into_bytes()
}

fn stream(request: &Request, body: &[u8]) -> (Vec<Delta>, Result<golem_core::Response, golem_core::ModelError>) {
    let (deltas, result) = run_stream(&codec(), request, &head(), [body]);
    if let Ok(response) = &result {
        let mut assembler = StreamAssembler::new().with_provider("openai");
        deltas.iter().for_each(|d| assembler.push(d).unwrap());
        assert_eq!(&assembler.finish(), &response.message, "MODEL-04: deltas assemble to the response");
    }
    (deltas, result)
}

fn text_stream() -> Vec<String> {
    vec![
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(json!({"content": "Hel"}), Value::Null),
        chunk(json!({"content": "lo"}), Value::Null),
        chunk(json!({}), json!("stop")),
        "data: [DONE]\n\n".to_string(),
    ]
}

#[test]
fn a_complete_stream_succeeds() {
    let (deltas, result) = stream(&Request::new(vec![]), &body(&text_stream()));
    assert_eq!(deltas, vec![Delta::text("Hel"), Delta::text("lo")]);
    let response = result.unwrap();
    assert_eq!(response.message.content, "Hello");
    assert_eq!(response.finish_reason, FinishReason::Stop);
}

#[test]
fn a_stream_without_done_is_truncated_and_retryable() {
    let mut parts = text_stream();
    parts.pop();
    let (deltas, result) = stream(&Request::new(vec![]), &body(&parts));
    assert_eq!(deltas.len(), 2, "fragments before the cut were delivered");
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Truncated);
    assert!(error.retryable);
    assert_eq!(error.request_id, "req_s");
}

#[test]
fn a_stream_without_a_finish_reason_is_truncated() {
    let parts = vec![chunk(json!({"content": "Hi"}), Value::Null), "data: [DONE]\n\n".to_string()];
    let error = stream(&Request::new(vec![]), &body(&parts)).1.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true));
}

#[test]
fn an_empty_body_is_truncated() {
    let error = stream(&Request::new(vec![]), b"").1.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Truncated);
}

#[test]
fn done_without_its_blank_line_still_ends_the_stream() {
    let mut bytes = body(&text_stream());
    bytes.truncate(bytes.len() - 2); // "data: [DONE]" then EOF
    assert!(stream(&Request::new(vec![]), &bytes).1.is_ok());
}

/// Found by libFuzzer (issue 37 session, on a number beyond f64 that only
/// the `Value` reader parses): a last event left open by the end of the
/// body whose JSON is whole but bad is a corrupt chunk, not a cut. Its JSON
/// cut short is still a cut.
#[test]
fn a_last_open_event_with_whole_but_bad_json_is_corrupt_not_cut() {
    let bad = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}}\n";
    let error = stream(&Request::new(vec![]), bad.as_bytes()).1.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Decode, "{error}");
    assert!(error.message.contains("invalid JSON"), "{error}");
    let cut = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi";
    let error = stream(&Request::new(vec![]), cut.as_bytes()).1.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "{error}");
}

#[test]
fn a_body_cut_anywhere_before_done_is_truncated_and_retryable() {
    // Inside an event or between events, a cut is a cut (SPEC STREAM-07,
    // issue 17): `Truncated`, never a decode error.
    let full = body(&text_stream());
    let done = full.len() - "data: [DONE]\n\n".len();
    for cut in 0..done {
        let error = stream(&Request::new(vec![]), &full[..cut]).1.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "cut at {cut}: {error}");
    }
}

#[test]
fn a_cut_inside_an_event_keeps_the_fragments_before_it() {
    let full = body(&text_stream());
    let second = full.windows(3).position(|w| w == b"lo\"").unwrap();
    let (deltas, result) = stream(&Request::new(vec![]), &full[..second]);
    assert_eq!(deltas, vec![Delta::text("Hel")]);
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Truncated);
    assert_eq!(error.request_id, "req_s");
}

#[test]
fn a_malformed_json_line_is_a_retryable_decode_error_reported_once() {
    let parts = vec![
        chunk(json!({"content": "ok"}), Value::Null),
        "data: {not json\n\n".into(),
        chunk(json!({"content": "never"}), Value::Null),
    ];
    let mut decoder = codec().stream_decoder(&Request::new(vec![]), &head());
    decoder.feed(&body(&parts));
    assert_eq!(decoder.next_delta().unwrap().unwrap(), Delta::text("ok"));
    let error = decoder.next_delta().unwrap().unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true));
    assert_eq!(error.request_id, "req_s");
    assert!(decoder.next_delta().is_none());
    decoder.feed(b"data: [DONE]\n\n");
    assert!(decoder.next_delta().is_none());
    assert_eq!(decoder.partial().content, "ok");
    assert_eq!(decoder.finish().unwrap_err(), error);
}

#[test]
fn invalid_utf8_is_a_retryable_decode_error() {
    let mut bytes = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(b"\"}}]}\n\n");
    let error = stream(&Request::new(vec![]), &bytes).1.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true));
}

#[test]
fn error_chunks_are_classified_api_errors() {
    let cases = [
        (
            json!({"error": {"message": "The server is overloaded", "type": "server_error", "code": null}}),
            true,
            "server_error",
        ),
        (
            json!({"error": {"message": "Slow down", "type": "requests", "code": "rate_limit_exceeded"}}),
            true,
            "rate_limit_exceeded",
        ),
        (json!({"error": {"message": "Bad input", "type": "invalid_request_error", "code": "bad"}}), false, "bad"),
    ];
    for (error_chunk, retryable, code) in cases {
        let parts = vec![chunk(json!({"content": "partial"}), Value::Null), format!("data: {error_chunk}\n\n")];
        let (deltas, result) = stream(&Request::new(vec![]), &body(&parts));
        assert_eq!(deltas, vec![Delta::text("partial")]);
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable, error.code.as_str()), (ModelErrorKind::Api, retryable, code));
        assert_eq!(error.request_id, "req_s");
    }
}

#[test]
fn parallel_calls_merge_by_index_even_interleaved() {
    let call = |index: u32, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut call = json!({"index": index, "function": {"arguments": args}});
        if let Some(id) = id {
            call["id"] = json!(id);
            call["type"] = json!("function");
        }
        if let Some(name) = name {
            call["function"]["name"] = json!(name);
        }
        chunk(json!({"tool_calls": [call]}), Value::Null)
    };
    let parts = vec![
        call(0, Some("call_a"), Some("alpha"), ""),
        call(1, Some("call_b"), Some("beta"), "{\"x\""),
        call(0, None, None, "{\"y\":"),
        call(1, None, None, ":1}"),
        call(0, None, None, "2}"),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".into(),
    ];
    let response = stream(&Request::new(vec![]), &body(&parts)).1.unwrap();
    assert_eq!(
        response.message.tool_calls,
        vec![ToolCall::new("call_a", "alpha", r#"{"y":2}"#), ToolCall::new("call_b", "beta", r#"{"x":1}"#)]
    );
    assert_eq!(response.finish_reason, FinishReason::ToolCall);
}

#[test]
fn calls_without_ids_args_or_index_are_completed_deterministically() {
    // One assistant message in the request: this is turn 2.
    let request = Request::new(vec![Message::user("a"), Message::assistant("b"), Message::user("c")]);
    let parts = vec![
        chunk(json!({"tool_calls": [{"function": {"name": "first"}}]}), Value::Null),
        chunk(
            json!({"tool_calls": [{"id": "call_x", "function": {"name": "second", "arguments": "{\"k\""}}]}),
            Value::Null,
        ),
        chunk(json!({"tool_calls": [{"function": {"arguments": ":true}"}}]}), Value::Null),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".into(),
    ];
    let (deltas, result) = stream(&request, &body(&parts));
    let response = result.unwrap();
    assert_eq!(
        response.message.tool_calls,
        vec![ToolCall::new("call_2_1", "first", "{}"), ToolCall::new("call_x", "second", r#"{"k":true}"#)]
    );
    // The `{}` for the argument-less call reached the sink too.
    assert!(deltas.iter().any(|d| matches!(d, Delta::ToolCall { index: 0, args, .. } if args == "{}")));
}

#[test]
fn reasoning_streams_as_thinking_block_zero_and_refusal_as_content() {
    let parts = vec![
        chunk(json!({"reasoning_content": "Think"}), Value::Null),
        chunk(json!({"reasoning": "ing."}), Value::Null),
        chunk(json!({"refusal": "I can't"}), Value::Null),
        chunk(json!({"refusal": " do that."}), json!("stop")),
        "data: [DONE]\n\n".into(),
    ];
    let response = stream(&Request::new(vec![]), &body(&parts)).1.unwrap();
    let block = ThinkingBlock::text("Thinking.").with_provider("openai");
    assert_eq!(response.message.thinking, vec![block]);
    assert_eq!(response.message.content, "I can't do that.");
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
}

#[test]
fn usage_is_taken_from_any_chunk_and_the_latest_wins() {
    let with_usage = |delta: Value, finish: Value, usage: Value| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": usage})
        )
    };
    let parts = vec![
        with_usage(json!({"content": "a"}), Value::Null, Value::Null),
        with_usage(
            json!({}),
            json!("stop"),
            json!({"prompt_tokens": 9, "completion_tokens": 3,
            "prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 2}}),
        ),
        "data: [DONE]\n\n".into(),
    ];
    let response = stream(&Request::new(vec![]), &body(&parts)).1.unwrap();
    assert_eq!(
        response.usage,
        golem_core::Usage::new(9, 3).with_cache_read_tokens(4).with_cache_write_tokens(0).with_reasoning_tokens(2)
    );
}

#[test]
fn only_the_first_choice_is_read() {
    let parts = vec![
        format!("data: {}\n\n", json!({"choices": [{"index": 1, "delta": {"content": "other"}}]})),
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": "mine"}, "finish_reason": "stop"}]})
        ),
        "data: [DONE]\n\n".into(),
    ];
    assert_eq!(stream(&Request::new(vec![]), &body(&parts)).1.unwrap().message.content, "mine");
}

#[test]
fn comments_keepalives_event_names_crlf_and_trailing_bytes_are_tolerated() {
    let text = ": keep-alive\r\n\r\nevent: message\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\r\n\r\ndata:\r\n\r\ndata: [DONE]\r\n\r\ndata: garbage after done\r\n\r\n";
    let response = stream(&Request::new(vec![]), text.as_bytes()).1.unwrap();
    assert_eq!(response.message.content, "x");
}

#[test]
fn tool_call_bounds_are_decode_errors() {
    let far = chunk(
        json!({"tool_calls": [{"index": 1024, "id": "c", "function": {"name": "t", "arguments": "{}"}}]}),
        Value::Null,
    );
    let error = stream(&Request::new(vec![]), far.as_bytes()).1.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false));

    let negative = chunk(json!({"tool_calls": [{"index": -1, "id": "c", "function": {"name": "t"}}]}), Value::Null);
    assert_eq!(stream(&Request::new(vec![]), negative.as_bytes()).1.unwrap_err().kind, ModelErrorKind::Decode);

    let many: Vec<String> = (0..129)
        .map(|i| chunk(json!({"tool_calls": [{"index": i, "id": format!("c{i}"), "function": {"name": "t", "arguments": "{}"}}]}), Value::Null))
        .collect();
    let (deltas, result) = stream(&Request::new(vec![]), &body(&many));
    assert_eq!(deltas.len(), 128);
    assert_eq!(result.unwrap_err().kind, ModelErrorKind::Decode);
}

#[test]
fn multibyte_text_survives_every_split() {
    let parts = vec![chunk(json!({"content": "Grüße, 東京 🌍!"}), json!("stop")), "data: [DONE]\n\n".into()];
    let bytes = body(&parts);
    let (expected, _) = stream(&Request::new(vec![]), &bytes);
    for cut in 0..=bytes.len() {
        let (deltas, result) = run_stream(&codec(), &Request::new(vec![]), &head(), split_at(&bytes, &[cut]));
        assert_eq!(deltas, expected, "cut at {cut}");
        assert_eq!(result.unwrap().message.content, "Grüße, 東京 🌍!");
    }
}

#[test]
fn finish_parses_what_was_not_drained() {
    let mut decoder = codec().stream_decoder(&Request::new(vec![]), &head());
    decoder.feed(&body(&text_stream()));
    assert_eq!(decoder.finish().unwrap().message.content, "Hello");
}

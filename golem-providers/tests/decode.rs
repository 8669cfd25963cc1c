//! Response mapping (SPEC PROV-OAI-05/06, PROV-COMMON-03/06, THINK-03,
//! STREAM-05) on hand-made bodies for what the recordings do not show.

use golem_core::message::{FinishReason, ThinkingBlock, ToolCall, Usage};
use golem_core::model::Request;
use golem_core::Message;
use golem_providers::chat_completions::response::message_deltas;
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Codec, Config, Preset};
use serde_json::{json, Value};

fn codec() -> Codec {
    Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-decode-test").build().unwrap())
}

fn decode(request: &Request, body: Value) -> golem_core::Response {
    codec().decode(request, &HttpResponseHead::new(200, vec![]), body.to_string().as_bytes()).unwrap()
}

fn one_choice(message: Value, finish: Value) -> Value {
    json!({"choices": [{"index": 0, "message": message, "finish_reason": finish}]})
}

#[test]
fn content_as_an_array_of_text_parts_is_concatenated() {
    let body = one_choice(
        json!({"role": "assistant", "content": [{"type": "text", "text": "Hel"}, {"type": "image_url"}, {"type": "text", "text": "lo"}]}),
        json!("stop"),
    );
    assert_eq!(decode(&Request::new(vec![]), body).message.content, "Hello");
}

#[test]
fn reasoning_becomes_one_thinking_block_of_the_openai_family() {
    for field in ["reasoning_content", "reasoning"] {
        let body = one_choice(json!({"role": "assistant", "content": "42", field: "Let me think."}), json!("stop"));
        let response = decode(&Request::new(vec![]), body);
        let block = ThinkingBlock::text("Let me think.").with_provider("openai");
        assert_eq!(response.message.thinking, vec![block], "{field}");
    }
}

#[test]
fn a_refusal_is_content_with_finish_content_filter() {
    let body =
        one_choice(json!({"role": "assistant", "content": null, "refusal": "I can't help with that."}), json!("stop"));
    let response = decode(&Request::new(vec![]), body);
    assert_eq!(response.message.content, "I can't help with that.");
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
}

#[test]
fn finish_reasons_map_per_the_table() {
    let table = [
        (json!("stop"), FinishReason::Stop),
        (json!("length"), FinishReason::Length),
        (json!("tool_calls"), FinishReason::ToolCall),
        (json!("function_call"), FinishReason::ToolCall),
        (json!("content_filter"), FinishReason::ContentFilter),
        (json!("eos"), FinishReason::Other),
        (Value::Null, FinishReason::Unknown),
    ];
    for (wire, expected) in table {
        let response = decode(&Request::new(vec![]), one_choice(json!({"content": "x"}), wire.clone()));
        assert_eq!(response.finish_reason, expected, "{wire}");
    }
}

#[test]
fn usage_maps_cached_and_reasoning_tokens_and_missing_usage_is_zero() {
    let mut body = one_choice(json!({"content": "x"}), json!("stop"));
    body["usage"] = json!({
        "prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 60}, "completion_tokens_details": {"reasoning_tokens": 20}
    });
    let usage = decode(&Request::new(vec![]), body).usage;
    assert_eq!(
        usage,
        golem_core::Usage::new(100, 50).with_cache_read_tokens(60).with_cache_write_tokens(0).with_reasoning_tokens(20)
    );
    assert_eq!(
        decode(&Request::new(vec![]), one_choice(json!({"content": "x"}), json!("stop"))).usage,
        Usage::default()
    );
    let mut deepseek = one_choice(json!({"content": "x"}), json!("stop"));
    deepseek["usage"] = json!({"prompt_tokens": 10, "completion_tokens": 1, "prompt_cache_hit_tokens": 7});
    assert_eq!(decode(&Request::new(vec![]), deepseek).usage.cache_read_tokens, 7);
}

#[test]
fn missing_call_ids_are_synthesized_and_empty_args_become_an_object() {
    // Two assistant messages in the request: this response is turn 3.
    let request = Request::new(vec![
        Message::user("a"),
        Message::assistant("b"),
        Message::user("c"),
        Message::assistant("d"),
        Message::user("e"),
    ]);
    let body = one_choice(
        json!({"role": "assistant", "tool_calls": [
            {"type": "function", "function": {"name": "first", "arguments": ""}},
            {"id": "", "type": "function", "function": {"name": "second", "arguments": "{\"a\":1}"}},
            {"id": "call_kept", "type": "function", "function": {"name": "third", "arguments": {"b": 2}}},
            {"id": "custom_1", "type": "custom", "custom": {"name": "grammar", "input": "x"}}
        ]}),
        json!("tool_calls"),
    );
    let response = decode(&request, body);
    assert_eq!(
        response.message.tool_calls,
        vec![
            ToolCall::new("call_3_1", "first", "{}"),
            ToolCall::new("call_3_2", "second", r#"{"a":1}"#),
            ToolCall::new("call_kept", "third", r#"{"b":2}"#),
        ]
    );
}

#[test]
fn the_legacy_function_call_is_a_tool_call() {
    let body = one_choice(
        json!({"role": "assistant", "function_call": {"name": "lookup", "arguments": "{\"q\":\"x\"}"}}),
        json!("function_call"),
    );
    let response = decode(&Request::new(vec![Message::user("q")]), body);
    assert_eq!(response.message.tool_calls, vec![ToolCall::new("call_1_1", "lookup", r#"{"q":"x"}"#)]);
    assert_eq!(response.finish_reason, FinishReason::ToolCall);
}

#[test]
fn the_first_choice_wins_and_unknown_fields_are_ignored() {
    let body = json!({"choices": [
        {"index": 0, "message": {"content": "first", "audio": {"id": "a"}, "annotations": [{"x": 1}]}, "finish_reason": "stop"},
        {"index": 1, "message": {"content": "second"}, "finish_reason": "stop"}
    ], "unknown": {"deep": [1, 2]}});
    assert_eq!(decode(&Request::new(vec![]), body).message.content, "first");
}

/// STREAM-05: a whole response decodes to what its delta sequence
/// assembles to.
#[test]
fn decoding_equals_assembling_the_message_deltas() {
    let message = json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "reasoning_content": "why", "refusal": "no",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}]});
    let assembled = golem_core::stream::StreamAssembler::new().with_provider("openai");
    let mut assembled = assembled;
    for delta in message_deltas(&message, 1) {
        assembled.push(&delta).unwrap();
    }
    let decoded = decode(&Request::new(vec![]), one_choice(message, json!("stop")));
    assert_eq!(decoded.message, assembled.finish());
    assert_eq!(decoded.message.content, "abno");
}

#[test]
fn more_than_128_calls_is_a_decode_error_not_a_panic() {
    let calls: Vec<Value> = (0..129)
        .map(|i| json!({"id": format!("c{i}"), "type": "function", "function": {"name": "t", "arguments": "{}"}}))
        .collect();
    let body = one_choice(json!({"tool_calls": calls}), json!("tool_calls"));
    let error = codec()
        .decode(&Request::new(vec![]), &HttpResponseHead::new(200, vec![]), body.to_string().as_bytes())
        .unwrap_err();
    assert_eq!(error.kind, golem_core::ModelErrorKind::Decode);
    assert!(!error.retryable);
}

//! The `anthropic` and `thinking` examples against a loopback stand-in
//! reached through `ANTHROPIC_BASE_URL`, so the programs keep working
//! without Anthropic: they send streamed Messages requests with the key in
//! `x-api-key` only, run their tool, and print the answer — `thinking`
//! replaying its signed thinking block on the second turn; without a key
//! each says what to set and exits 0.

mod support;

use serde_json::{json, Value};
use std::process::Command;
use support::stand_in_sequence;

const KEY: &str = "sk-ant-example-test-key";

fn event(data: Value) -> String {
    format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap())
}

fn start(input: u64) -> String {
    event(json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
        "content": [], "model": "claude-sonnet-4-5", "usage": {"input_tokens": input, "output_tokens": 1}}}))
}

fn end(reason: &str, output: u64) -> String {
    event(json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": output}}))
        + &event(json!({"type": "message_stop"}))
}

fn text_block(index: u64, text: &str) -> String {
    event(json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}))
        + &event(json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}))
        + &event(json!({"type": "content_block_stop", "index": index}))
}

fn tool_block(index: u64, id: &str, name: &str, input: &str) -> String {
    event(json!({"type": "content_block_start", "index": index,
        "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}))
        + &event(json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": input}}))
        + &event(json!({"type": "content_block_stop", "index": index}))
}

fn run(bin: &str, url: &str) -> String {
    let output =
        Command::new(bin).env_clear().env("ANTHROPIC_API_KEY", KEY).env("ANTHROPIC_BASE_URL", url).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(!stdout.contains(KEY));
    stdout
}

fn assert_key_in_header_only(head: &str) {
    assert!(head.starts_with("POST /v1/messages HTTP/1.1"), "{head}");
    assert!(head.to_ascii_lowercase().contains(&format!("x-api-key: {}", KEY.to_ascii_lowercase())), "{head}");
    assert!(head.to_ascii_lowercase().contains("anthropic-version: 2023-06-01"), "{head}");
    assert_eq!(head.matches(KEY).count(), 1, "the key goes in its header only: {head}");
}

#[test]
fn the_anthropic_example_runs_its_tool_against_a_stand_in() {
    let first =
        start(20) + &tool_block(0, "toolu_1", "count_letters", r#"{"word": "strawberry"}"#) + &end("tool_use", 9);
    let second = start(40) + &text_block(0, "'strawberry' has 10 letters.") + &end("end_turn", 8);
    let (url, server) = stand_in_sequence("text/event-stream", vec![first.into_bytes(), second.into_bytes()]);
    let stdout = run(env!("CARGO_BIN_EXE_anthropic"), &url);
    assert!(stdout.contains("output: 'strawberry' has 10 letters."), "{stdout}");
    assert!(stdout.contains("usage: 60 input tokens (0 read from the prompt cache), 17 output tokens"), "{stdout}");
    let seen = server.join().unwrap();
    for (head, _) in &seen {
        assert_key_in_header_only(head);
    }
    let body: Value = serde_json::from_slice(&seen[1].1).unwrap();
    // Prompt caching is on by default: marks on the tools, the system
    // text, the turn the first request ended with and the last turn.
    let mark = json!({"type": "ephemeral"});
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "Be concise. Use the tool to count.", "cache_control": mark}])
    );
    assert_eq!(body["tools"][0]["cache_control"], mark);
    assert_eq!(body["messages"][0]["content"][0]["cache_control"], mark);
    assert_eq!(
        body["messages"][2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "10", "cache_control": mark})
    );
}

#[test]
fn the_thinking_example_replays_its_signed_block() {
    let thinking = event(json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""}}))
        + &event(json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "I should multiply with the tool."}}))
        + &event(json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "signature_delta", "signature": "EqQBCkgIBhABGAIiQL4gSignatureBytes=="}}))
        + &event(json!({"type": "content_block_stop", "index": 0}));
    let first = start(30)
        + &thinking
        + &tool_block(1, "toolu_7", "multiply", r#"{"a": 1234, "b": 5678}"#)
        + &end("tool_use", 40);
    let second = start(80) + &text_block(0, "1234 × 5678 = 7006652.") + &end("end_turn", 12);
    let (url, server) = stand_in_sequence("text/event-stream", vec![first.into_bytes(), second.into_bytes()]);
    let stdout = run(env!("CARGO_BIN_EXE_thinking"), &url);
    assert!(stdout.contains("[thinking] I should multiply with the tool."), "{stdout}");
    assert!(stdout.contains("output: 1234 × 5678 = 7006652."), "{stdout}");
    assert!(stdout.contains("message 1: thinking block from anthropic, signature EqQBCkgIBhABGAIi…"), "{stdout}");
    assert!(stdout.contains("keeps every thinking block and signature: true"), "{stdout}");
    let seen = server.join().unwrap();
    let first_body: Value = serde_json::from_slice(&seen[0].1).unwrap();
    assert_eq!(first_body["thinking"], json!({"type": "enabled", "budget_tokens": 2048}));
    assert_eq!(first_body["max_tokens"], 4096);
    let second_body: Value = serde_json::from_slice(&seen[1].1).unwrap();
    assert_eq!(
        second_body["messages"][1]["content"][0],
        json!({"type": "thinking", "thinking": "I should multiply with the tool.", "signature": "EqQBCkgIBhABGAIiQL4gSignatureBytes=="})
    );
    assert_eq!(second_body["messages"][2]["content"][0]["content"], "7006652");
}

#[test]
fn without_a_key_each_example_says_what_to_set_and_exits_0() {
    for bin in [env!("CARGO_BIN_EXE_anthropic"), env!("CARGO_BIN_EXE_thinking")] {
        let output = Command::new(bin).env_clear().output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success());
        assert!(stdout.contains("ANTHROPIC_API_KEY (missing)"), "{stdout}");
    }
}

//! The `openai-responses` example against a loopback stand-in reached
//! through `OPENAI_BASE_URL`: it runs its tool twice on a reasoning model,
//! prints the reasoning summaries, and each request after the first
//! carries the earlier reasoning items back, encrypted content byte for
//! byte; without a key it says what to set and exits 0.

mod support;

use serde_json::{json, Value};
use std::process::Command;
use support::stand_in_sequence;

const KEY: &str = "sk-responses-example-key";

fn reasoning(id: &str, summary: &str) -> Value {
    json!({"type": "reasoning", "id": id, "encrypted_content": format!("gAAAA-{id}-opaque=="),
        "summary": [{"type": "summary_text", "text": summary}]})
}

fn call(id: &str, n: i64) -> Value {
    json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": format!("call_{id}"), "name": "square",
        "arguments": json!({"n": n}).to_string(), "status": "completed"})
}

fn response(output: Value, input: u64) -> Vec<u8> {
    json!({"id": "resp_x", "object": "response", "status": "completed", "output": output,
        "usage": {"input_tokens": input, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 12}}})
    .to_string()
    .into_bytes()
}

#[test]
fn the_openai_responses_example_carries_its_reasoning_between_turns() {
    let message = json!({"type": "message", "role": "assistant", "id": "msg_1",
        "content": [{"type": "output_text", "text": "The square of the square of 7 is 2401.", "annotations": []}]});
    let bodies = vec![
        response(json!([reasoning("rs_1", "**Square 7 first**"), call("1", 7)]), 40),
        response(json!([reasoning("rs_2", "**Then square 49**"), call("2", 49)]), 60),
        response(json!([message]), 80),
    ];
    let (url, server) = stand_in_sequence("application/json", bodies);
    let output = Command::new(env!("CARGO_BIN_EXE_openai-responses"))
        .env_clear()
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", format!("{url}/v1"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(!stdout.contains(KEY));
    assert!(stdout.contains("thinking: **Square 7 first**"), "{stdout}");
    assert!(stdout.contains("reasoning items carried between turns: 2"), "{stdout}");
    assert!(stdout.contains("output: The square of the square of 7 is 2401."), "{stdout}");
    assert!(stdout.contains("usage: 180 input tokens (0 cached), 60 output tokens (36 reasoning)"), "{stdout}");
    let seen = server.join().unwrap();
    for (head, _) in &seen {
        assert!(head.starts_with("POST /v1/responses HTTP/1.1"), "{head}");
        assert_eq!(head.matches(KEY).count(), 1, "the key goes in its header only: {head}");
    }
    let first: Value = serde_json::from_slice(&seen[0].1).unwrap();
    assert_eq!(first["reasoning"], json!({"effort": "low", "summary": "auto"}));
    assert_eq!((&first["store"], &first["include"]), (&json!(false), &json!(["reasoning.encrypted_content"])));
    let third = String::from_utf8_lossy(&seen[2].1).to_string();
    for id in ["rs_1", "rs_2"] {
        assert!(third.contains(&format!("\"encrypted_content\":\"gAAAA-{id}-opaque==\"")), "{third}");
    }
    let third: Value = serde_json::from_str(&third).unwrap();
    let kinds: Vec<&str> =
        third["input"].as_array().unwrap().iter().map(|i| i["type"].as_str().unwrap_or("message")).collect();
    assert_eq!(
        kinds,
        [
            "message",
            "message",
            "reasoning",
            "function_call",
            "function_call_output",
            "reasoning",
            "function_call",
            "function_call_output"
        ]
    );
}

#[test]
fn without_a_key_the_example_says_what_to_set_and_exits_0() {
    let output = Command::new(env!("CARGO_BIN_EXE_openai-responses")).env_clear().output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(stdout.contains("OPENAI_API_KEY (missing)"), "{stdout}");
}

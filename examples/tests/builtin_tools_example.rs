//! The `builtin-tools` example against a loopback stand-in of Anthropic
//! reached through `ANTHROPIC_BASE_URL`: the request declares Claude's web
//! search with the example's domains and limit, the answer's search call
//! and results print as provider parts, and the cited text reads as one
//! answer; without a key it says what to set and exits 0.

mod support;

use serde_json::{json, Value};
use std::process::Command;
use support::stand_in;

const KEY: &str = "sk-ant-builtin-example-key";

/// A Messages answer that searched once: the server tool's call, its
/// results (encrypted, as Anthropic sends them) and text cut at a citation.
fn answer() -> Vec<u8> {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "Let me look that up."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "serde latest version"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "url": "https://crates.io/crates/serde", "title": "serde - crates.io",
                 "encrypted_content": "EqwBCioIBhgCIiQ0opaque", "page_age": null}]},
            {"type": "text", "text": "The latest serde release is ",
             "citations": null},
            {"type": "text", "text": "1.0.228",
             "citations": [{"type": "web_search_result_location", "url": "https://crates.io/crates/serde",
                            "title": "serde - crates.io", "encrypted_index": "Eo8BCioI", "cited_text": "1.0.228"}]},
            {"type": "text", "text": ", according to crates.io."}
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 2100, "output_tokens": 90, "server_tool_use": {"web_search_requests": 1}}
    })
    .to_string()
    .into_bytes()
}

#[test]
fn the_builtin_tools_example_keeps_the_search_it_ran() {
    let (url, server) = stand_in("application/json", answer());
    let output = Command::new(env!("CARGO_BIN_EXE_builtin-tools"))
        .env_clear()
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(!stdout.contains(KEY));
    assert!(stdout.contains("anthropic call: web_search srvtoolu_1"), "{stdout}");
    assert!(stdout.contains("anthropic result: web_search_tool_result srvtoolu_1"), "{stdout}");
    assert!(stdout.contains("The latest serde release is 1.0.228, according to crates.io."), "{stdout}");
    assert!(stdout.contains("requests: 1, usage: 2100 input tokens, 90 output tokens"), "{stdout}");
    let (head, body) = server.join().unwrap();
    assert!(head.starts_with("POST /v1/messages HTTP/1.1"), "{head}");
    assert_eq!(head.matches(KEY).count(), 1, "the key goes in its header only: {head}");
    let body: Value = serde_json::from_slice(&body).unwrap();
    let tools = body["tools"].as_array().unwrap();
    let search = tools.iter().find(|t| t["name"] == "web_search").unwrap();
    assert_eq!(search["type"], "web_search_20250305");
    assert_eq!(search["allowed_domains"], json!(["docs.rs", "crates.io"]));
    assert_eq!(search["max_uses"], 3);
}

#[test]
fn without_a_key_the_example_says_what_to_set_and_exits_0() {
    let output = Command::new(env!("CARGO_BIN_EXE_builtin-tools")).env_clear().output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(
        stdout.contains("needs one of ANTHROPIC_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY) or OPENAI_API_KEY"),
        "{stdout}"
    );
}

/// The same example on OpenAI's Responses API (the key it falls back to):
/// the search is the API's `web_search` with the domain filter, and the
/// service's `web_search_call` item prints as a provider part.
#[test]
fn on_the_responses_api_the_example_declares_web_search_and_keeps_its_call() {
    let answer = json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini",
        "output": [
            {"type": "web_search_call", "id": "ws_1", "status": "completed",
             "action": {"type": "search", "query": "serde latest version"}},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
                {"type": "output_text", "text": "serde 1.0.228 is the latest release.", "annotations": [
                    {"type": "url_citation", "start_index": 0, "end_index": 13,
                     "url": "https://crates.io/crates/serde", "title": "serde"}]}]}
        ],
        "usage": {"input_tokens": 900, "output_tokens": 40}
    });
    let (url, server) = stand_in("application/json", answer.to_string().into_bytes());
    let output = Command::new(env!("CARGO_BIN_EXE_builtin-tools"))
        .env_clear()
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", format!("{url}/v1"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("openai-responses call: web_search_call ws_1"), "{stdout}");
    assert!(stdout.contains("output: serde 1.0.228 is the latest release."), "{stdout}");
    let (head, body) = server.join().unwrap();
    assert!(head.starts_with("POST /v1/responses HTTP/1.1"), "{head}");
    let body: Value = serde_json::from_slice(&body).unwrap();
    let search = body["tools"].as_array().unwrap().iter().find(|t| t["type"] == "web_search").unwrap();
    assert_eq!(search["filters"]["allowed_domains"], json!(["docs.rs", "crates.io"]));
}

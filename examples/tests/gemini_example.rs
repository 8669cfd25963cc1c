//! The `gemini` example against a loopback stand-in reached through
//! `GEMINI_BASE_URL`, so the program keeps working without Google: it
//! sends a streamed `generateContent` request with the key in its header
//! and prints the streamed answer and the thought summary; without a key
//! it says what to set and exits 0.

mod support;

use std::process::Command;
use support::stand_in;

const KEY: &str = "AIza-example-test-key";

/// The answer the stand-in streams: a thought summary, then the text.
fn sse_stream() -> Vec<u8> {
    [
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Models read numbers, not letters.","thought":true}]},"index":0}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"They turn text into the numbers "}]},"index":0}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"a model can compute with."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":17,"candidatesTokenCount":12,"thoughtsTokenCount":9,"totalTokenCount":38}}"#,
    ]
    .iter()
    .map(|chunk| format!("data: {chunk}\r\n\r\n"))
    .collect::<String>()
    .into_bytes()
}

#[test]
fn the_example_streams_an_answer_from_a_stand_in() {
    let (url, server) = stand_in("text/event-stream", sse_stream());
    let output = Command::new(env!("CARGO_BIN_EXE_gemini"))
        .env_clear()
        .env("GOOGLE_API_KEY", KEY)
        .env("GEMINI_BASE_URL", &url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("They turn text into the numbers a model can compute with."), "{stdout}");
    assert!(stdout.contains("thought: Models read numbers, not letters."), "{stdout}");
    assert!(stdout.contains("usage: 17 input tokens, 21 output tokens (9 of them thinking)"), "{stdout}");
    let (head, body) = server.join().unwrap();
    assert!(head.starts_with("POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse HTTP/1.1"), "{head}");
    assert!(head.to_ascii_lowercase().contains(&format!("x-goog-api-key: {}", KEY.to_ascii_lowercase())), "{head}");
    assert_eq!(head.matches(KEY).count(), 1, "the key goes in its header only: {head}");
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["generationConfig"]["thinkingConfig"], serde_json::json!({"includeThoughts": true}));
    assert_eq!(body["systemInstruction"]["parts"][0]["text"], "Be concise.");
    assert!(!stdout.contains(KEY));
}

#[test]
fn without_a_key_the_example_says_what_to_set_and_exits_0() {
    let output = Command::new(env!("CARGO_BIN_EXE_gemini")).env_clear().output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(stdout.contains("GEMINI_API_KEY (missing)"), "{stdout}");
}

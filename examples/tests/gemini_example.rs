//! The `gemini` example against a loopback stand-in reached through
//! `GEMINI_BASE_URL`, so the program keeps working without Google: it
//! sends a streamed `generateContent` request with the key in its header
//! and prints the streamed answer and the thought summary; without a key
//! it says what to set and exits 0.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;

const KEY: &str = "AIza-example-test-key";

/// Answers one request with an SSE stream; hands back the request head
/// and body.
fn stand_in() -> (String, std::thread::JoinHandle<(String, String)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        let head_end = loop {
            let n = socket.read(&mut buf).unwrap();
            assert!(n > 0, "the client closed before sending a request");
            seen.extend_from_slice(&buf[..n]);
            if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
        };
        let head = String::from_utf8_lossy(&seen[..head_end]).to_string();
        let length: usize = head
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap()))
            .unwrap_or(0);
        while seen.len() < head_end + length {
            let n = socket.read(&mut buf).unwrap();
            seen.extend_from_slice(&buf[..n]);
        }
        let body = [
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Models read numbers, not letters.","thought":true}]},"index":0}]}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"They turn text into the numbers "}]},"index":0}]}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"a model can compute with."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":17,"candidatesTokenCount":12,"thoughtsTokenCount":9,"totalTokenCount":38}}"#,
        ]
        .iter()
        .map(|chunk| format!("data: {chunk}\r\n\r\n"))
        .collect::<String>();
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        socket.write_all(reply.as_bytes()).unwrap();
        socket.write_all(body.as_bytes()).unwrap();
        (head, String::from_utf8_lossy(&seen[head_end..]).to_string())
    });
    (url, server)
}

#[test]
fn the_example_streams_an_answer_from_a_stand_in() {
    let (url, server) = stand_in();
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
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
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

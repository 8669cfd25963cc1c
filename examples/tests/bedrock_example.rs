//! The `bedrock` example (SPEC EX-22) against a loopback stand-in reached
//! through `BEDROCK_BASE_URL`, so the program keeps working without AWS:
//! it sends a SigV4-signed ConverseStream request and prints the streamed
//! answer; without credentials it says what to set and exits 0.

mod support;

use golem_providers::eventstream::{encode_frame, Header, HeaderValue};
use std::process::Command;
use support::stand_in;

fn frame(kind: &str, payload: &str) -> Vec<u8> {
    let header = |name: &str, value: &str| Header { name: name.into(), value: HeaderValue::String(value.into()) };
    encode_frame(&[header(":event-type", kind), header(":message-type", "event")], payload.as_bytes())
}

/// The answer the stand-in streams.
fn converse_stream() -> Vec<u8> {
    [
        frame("messageStart", r#"{"role":"assistant"}"#),
        frame("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"It proves who sent it "}}"#),
        frame("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"and that it was not changed."}}"#),
        frame("contentBlockStop", r#"{"contentBlockIndex":0}"#),
        frame("messageStop", r#"{"stopReason":"end_turn"}"#),
        frame(
            "metadata",
            r#"{"usage":{"inputTokens":21,"outputTokens":12,"totalTokens":33},"metrics":{"latencyMs":5}}"#,
        ),
    ]
    .concat()
}

#[test]
fn the_example_streams_a_signed_converse_call_from_a_stand_in() {
    let (url, server) = stand_in("application/vnd.amazon.eventstream", converse_stream());
    let output = Command::new(env!("CARGO_BIN_EXE_bedrock"))
        .env_clear()
        .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLETEST")
        .env("AWS_SECRET_ACCESS_KEY", "example-secret")
        .env("AWS_SESSION_TOKEN", "example-token")
        .env("AWS_DEFAULT_REGION", "eu-central-1")
        .env("BEDROCK_MODEL", "eu.amazon.nova-micro-v1:0")
        .env("BEDROCK_BASE_URL", &url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("It proves who sent it and that it was not changed."), "{stdout}");
    assert!(stdout.contains("usage: 21 input tokens, 12 output tokens"), "{stdout}");
    let (head, _) = server.join().unwrap();
    assert!(head.starts_with("POST /model/eu.amazon.nova-micro-v1%3A0/converse-stream HTTP/1.1"), "{head}");
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("authorization: aws4-hmac-sha256 credential=akidexampletest/"), "{head}");
    assert!(lower.contains("/eu-central-1/bedrock/aws4_request"), "{head}");
    assert!(lower.contains("x-amz-security-token: example-token"), "{head}");
    assert!(!stdout.contains("example-secret") && !stdout.contains("example-token"));
}

#[test]
fn without_credentials_the_example_says_what_to_set_and_exits_0() {
    let output = Command::new(env!("CARGO_BIN_EXE_bedrock")).env_clear().output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    for var in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "BEDROCK_MODEL"] {
        assert!(stdout.contains(&format!("{var} (missing)")), "{stdout}");
    }
}

//! The `mcp_message` fuzz target's body (SPEC ARCH-02): arbitrary bytes as
//! stdio lines and as an SSE body, through the parser and a live session,
//! and each line's JSON through the result readers (listing pages,
//! resources, prompts).
//!
//! # Panics
//!
//! Only when an invariant breaks: a panic inside the parser or the session,
//! a message that changes kind when re-serialised, or SSE events (or the
//! last event id, or `retry`) that depend on how the body was chunked.

use super::jsonrpc::Message;
use super::listing::{Cursor, Pager};
use super::prompts::{McpPrompt, McpPromptResult};
use super::resources::{read_result, McpResource};
use super::session::{Session, SessionConfig};
use super::sse;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Parse `data` every way the client does; the first byte picks an SSE
/// chunk boundary.
pub fn message(data: &[u8]) {
    let now = Instant::now();
    let mut session = Session::new(SessionConfig::default());
    let _ = session.start(now);
    for line in data.split(|b| *b == b'\n') {
        if let Ok(message) = Message::parse(line) {
            // Floats need not round-trip bit for bit, so only the shape is checked.
            let again = Message::parse(&message.to_bytes()).map(|m| std::mem::discriminant(&m));
            assert_eq!(again, Ok(std::mem::discriminant(&message)), "a parsed message changes kind on a round trip");
            session.handle_message(now, message);
        }
        let _ = Message::parse_batch(line);
        if let Ok(value) = serde_json::from_slice::<Value>(line) {
            results(&value);
            if let Some(result) = value.get("result") {
                results(result);
            }
        }
        if session.is_ready() {
            let _ = session.request(now, "tools/list", serde_json::json!({}));
        }
    }
    session.handle_timeout(now + Duration::from_secs(3600));
    while session.poll_transmit().is_some() || session.poll_event().is_some() {}

    let cut = data.first().map_or(0, |b| usize::from(*b) % data.len().max(1));
    let whole = sse_events(&[data]);
    let split = sse_events(&[&data[..cut], &data[cut..]]);
    assert_eq!(whole, split, "SSE events depend on chunking");
    for event in whole.0.into_iter().flatten() {
        let _ = Message::parse_batch(event.as_bytes());
    }
}

/// Every reader of a result, on any JSON: errors are fine, panics are not.
fn results(value: &Value) {
    let mut pager = Pager::new();
    let _ = pager.handle_page(value);
    let _ = pager.next_params();
    for (method, key) in [("resources/list", "resources"), ("prompts/list", "prompts")] {
        let mut cursor = Cursor::new(method);
        let _ = cursor.page(value, key);
        let _ = cursor.next_params();
    }
    let _ = McpResource::from_value(value);
    if let Ok(contents) = read_result(value) {
        for item in &contents {
            let _ = item.render();
        }
    }
    let _ = McpPrompt::from_value(value);
    if let Ok(prompt) = McpPromptResult::from_value(value) {
        for message in &prompt.messages {
            let _ = message.text();
        }
    }
}

type SseOutcome = (Vec<Result<String, sse::SseError>>, String, Option<Duration>, u64);

fn sse_events(chunks: &[&[u8]]) -> SseOutcome {
    let mut decoder = sse::decoder_with_cap(1 << 16);
    let mut events = Vec::new();
    let mut drain = |decoder: &mut sse::SseDecoder| {
        while let Some(event) = decoder.next() {
            match event {
                Ok(event) => events.extend(sse::message(&event).map(|data| Ok(data.to_owned()))),
                Err(error) => events.push(Err(error)),
            }
        }
    };
    for chunk in chunks {
        decoder.feed(chunk);
        drain(&mut decoder);
    }
    decoder.finish();
    drain(&mut decoder);
    (events, decoder.last_event_id().to_string(), decoder.retry(), decoder.dispatched())
}

//! The `mcp_message` fuzz target's body (SPEC ARCH-02): arbitrary bytes as
//! stdio lines and as an SSE body, through the parser and a live session.
//!
//! # Panics
//!
//! Only when an invariant breaks: a panic inside the parser or the session,
//! a message that changes kind when re-serialised, or SSE events that
//! depend on how the body was chunked.

use super::jsonrpc::Message;
use super::session::{Session, SessionConfig};
use super::sse::SseDecoder;
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
    for event in whole.into_iter().flatten() {
        let _ = Message::parse_batch(event.as_bytes());
    }
}

fn sse_events(chunks: &[&[u8]]) -> Vec<Result<String, super::sse::SseError>> {
    let mut decoder = SseDecoder::with_cap(1 << 16);
    let mut events = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk);
        events.extend(std::iter::from_fn(|| decoder.next()));
    }
    decoder.finish();
    events.extend(std::iter::from_fn(|| decoder.next()));
    events
}

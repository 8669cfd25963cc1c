//! How MCP's streamable HTTP reads Server-Sent Events (SPEC MCP-06,
//! STREAM-08): golem's one SSE decoder ([`golem_providers::sse`], which the
//! model providers' streams use too) in the standard's strict shape — an
//! event the end of the body cuts is dropped, bytes that are not UTF-8
//! become U+FFFD — with MCP's 32 MiB message cap. The decoder keeps the
//! last event id and the server's `retry:` for resuming the stream.
//!
//! ```
//! use golem_io::mcp::sse::{decoder, message};
//!
//! let mut decoder = decoder();
//! decoder.feed(b"id: 1\ndata: \n\nevent: message\r\ndata: {\"a\":");
//! assert!(decoder.next().and_then(|e| message(&e.unwrap()).map(str::to_owned)).is_none()); // priming
//! decoder.feed(b"1}\r\n\r\n");
//! let event = decoder.next().unwrap().unwrap();
//! assert_eq!(message(&event), Some("{\"a\":1}"));
//! assert_eq!(decoder.last_event_id(), "1");
//! ```

pub use golem_providers::sse::{SseDecoder, SseError, SseEvent};

/// The largest event (and line) accepted: MCP's 32 MiB message cap.
pub const MAX_EVENT: usize = 32 << 20;

/// A decoder for one MCP stream, capped at [`MAX_EVENT`].
pub fn decoder() -> SseDecoder {
    decoder_with_cap(MAX_EVENT)
}

/// A decoder for one MCP stream with a smaller cap on lines and events
/// (tests, fuzzing).
pub fn decoder_with_cap(cap: usize) -> SseDecoder {
    SseDecoder::new().with_limits(cap, cap).utf8_lossy().drop_unterminated()
}

/// The JSON-RPC payload an event carries: the data of a `message` event,
/// `None` for other types and for priming events, whose data is empty.
pub fn message(event: &SseEvent) -> Option<&str> {
    (event.event_type() == "message" && !event.data.trim().is_empty()).then_some(event.data.as_str())
}

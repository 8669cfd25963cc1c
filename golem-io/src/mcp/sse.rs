//! A small incremental Server-Sent Events decoder for MCP's streamable
//! HTTP (SPEC MCP-06, STREAM-08): bytes in through [`SseDecoder::feed`],
//! the data of each `message` event out of [`SseDecoder::next`]. A line or
//! an event past [`MAX_EVENT`] is an error, after which nothing more comes.
//! The `id` and `retry` fields are kept for reconnecting
//! ([`last_event_id`](SseDecoder::last_event_id),
//! [`retry`](SseDecoder::retry)), as an `EventSource` keeps them.
//!
//! ```
//! use golem_io::mcp::sse::SseDecoder;
//!
//! let mut decoder = SseDecoder::new();
//! decoder.feed(b"id: 1\ndata: \n\nevent: message\r\ndata: {\"a\":");
//! assert_eq!(decoder.next(), None); // the priming event has no data
//! decoder.feed(b"1}\r\n\r\n");
//! assert_eq!(decoder.next(), Some(Ok("{\"a\":1}".to_string())));
//! assert_eq!(decoder.last_event_id(), "1");
//! ```

use std::time::Duration;

/// The largest event (and line) accepted: MCP's 32 MiB message cap.
pub const MAX_EVENT: usize = 32 << 20;

/// Why an SSE body was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// A line or an event larger than the cap.
    #[error("an SSE event is larger than {0} bytes")]
    TooLarge(usize),
}

/// One `message` event: its data, and its id when it carried one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseEvent {
    /// The `data` lines, joined with `\n`.
    pub data: String,
    /// The event's own `id:` field, if it had one (not one carried over
    /// from an earlier event): what tells a replayed event from a new one.
    pub id: Option<String>,
}

/// Incremental SSE decoding that yields the data of `message` events.
#[derive(Debug, Default)]
pub struct SseDecoder {
    pending: Vec<u8>,
    /// A `\r` ended the last chunk: a `\n` opening the next is its pair.
    after_cr: bool,
    event: String,
    data: String,
    has_data: bool,
    /// Any field (data, id, retry) was set in the event being read.
    has_fields: bool,
    ready: std::collections::VecDeque<SseEvent>,
    /// The event being read carried an `id:` field of its own.
    own_id: bool,
    failed: Option<SseError>,
    /// Set on the first error; the decoder takes nothing more after it.
    broken: bool,
    /// A byte-order mark may open the stream; it is not part of a field.
    past_first_line: bool,
    cap: usize,
    /// The `id` of the event being read (the standard's "last event ID
    /// buffer"); it becomes `last_event_id` when the event is dispatched.
    id_buffer: String,
    last_event_id: String,
    retry: Option<Duration>,
    /// Events dispatched with any field set, messages or not.
    dispatched: u64,
}

impl SseDecoder {
    /// A decoder with the [`MAX_EVENT`] cap.
    pub fn new() -> Self {
        SseDecoder::with_cap(MAX_EVENT)
    }

    /// A decoder with a smaller cap (tests).
    pub fn with_cap(cap: usize) -> Self {
        SseDecoder { cap, ..SseDecoder::default() }
    }

    /// Take in the next bytes of the body.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        if self.broken {
            return;
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while let Some(at) = bytes.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let (line, rest) = bytes.split_at(at);
            if self.pending.len() + line.len() > self.cap {
                return self.fail();
            }
            self.pending.extend_from_slice(line);
            let line = std::mem::take(&mut self.pending);
            self.line(&line);
            if self.broken {
                return;
            }
            bytes = match rest {
                [b'\r', b'\n', tail @ ..] => tail,
                [b'\r'] => {
                    self.after_cr = true;
                    &[]
                }
                [_, tail @ ..] => tail,
                [] => &[],
            };
        }
        if self.pending.len() + bytes.len() > self.cap {
            return self.fail();
        }
        self.pending.extend_from_slice(bytes);
    }

    /// The body ended: an unterminated event is dropped, as the standard says.
    pub fn finish(&mut self) {
        self.pending.clear();
        self.data.clear();
        self.event.clear();
        self.has_data = false;
        self.has_fields = false;
        self.own_id = false;
        // The unfinished event's id is dropped with it.
        self.id_buffer.clone_from(&self.last_event_id);
    }

    /// The id of the last complete event that had one (empty when none
    /// had): what a reconnecting client sends as `Last-Event-ID`. It
    /// carries over events without an `id`, as the standard says.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// Carry the id a previous stream ended with into this one (a
    /// reconnection), as an `EventSource` keeps it.
    pub fn set_last_event_id(&mut self, id: &str) {
        self.last_event_id = id.to_string();
        self.id_buffer = id.to_string();
    }

    /// The reconnection delay the server asked for with `retry:`, if any.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// How many complete events (with any field: data, id, retry) the body
    /// has held so far — priming events count, comments do not.
    pub fn dispatched(&self) -> u64 {
        self.dispatched
    }

    /// The data of the next complete `message` event, or the error.
    #[allow(clippy::should_implement_trait)] // `Iterator` would hide the one-error-then-nothing contract
    pub fn next(&mut self) -> Option<Result<String, SseError>> {
        self.next_event().map(|event| event.map(|e| e.data))
    }

    /// The next complete `message` event with its id, or the error.
    pub fn next_event(&mut self) -> Option<Result<SseEvent, SseError>> {
        match self.ready.pop_front() {
            Some(event) => Some(Ok(event)),
            None => self.failed.take().map(Err),
        }
    }

    fn fail(&mut self) {
        self.broken = true;
        self.failed = Some(SseError::TooLarge(self.cap));
        self.pending = Vec::new();
        self.data = String::new();
    }

    fn line(&mut self, mut line: &[u8]) {
        if !std::mem::replace(&mut self.past_first_line, true) {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.find(':') {
            Some(0) => return, // a comment
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "event" => {
                self.event = value.to_string();
                self.has_fields = true;
            }
            "data" => {
                if self.data.len() + value.len() + 1 > self.cap {
                    return self.fail();
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                self.has_fields = true;
            }
            // An id with NUL is ignored, as the standard says: it could
            // not be sent back in a header.
            "id" if !value.contains('\0') => {
                self.id_buffer = value.to_string();
                self.has_fields = true;
                self.own_id = true;
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Digits past u64 are no delay anyone meant; ignored.
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                    self.has_fields = true;
                }
            }
            // Unknown fields are ignored by the standard.
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        // The id sticks across events; a later event without one keeps it.
        self.last_event_id.clone_from(&self.id_buffer);
        if std::mem::take(&mut self.has_fields) {
            self.dispatched += 1;
        }
        let event = std::mem::take(&mut self.event);
        let data = std::mem::take(&mut self.data);
        let has_data = std::mem::take(&mut self.has_data);
        let own_id = std::mem::take(&mut self.own_id);
        // Priming events carry an empty data line and no message.
        if has_data && !data.trim().is_empty() && (event.is_empty() || event == "message") {
            let id = own_id.then(|| self.last_event_id.clone());
            self.ready.push_back(SseEvent { data, id });
        }
    }
}

//! An incremental Server-Sent Events decoder (WHATWG "event stream
//! interpretation"; SPEC STREAM-06, STREAM-08).
//!
//! Bytes go in with [`SseDecoder::feed`] in chunks of any size; events come
//! out of [`SseDecoder::next`]; [`SseDecoder::finish`] marks the end of the
//! body. A partial line or event is a normal state, never an error, and the
//! events are the same for any chunking of the same bytes — a line end split
//! across chunks (`\r` then `\n`) is one line end.
//!
//! Memory is bounded: a line longer than [`MAX_LINE`] or an event larger
//! than [`MAX_EVENT`] (or the limits given to [`SseDecoder::with_limits`])
//! is an error, after which the decoder yields nothing more. Lines are found with `memchr` over whole slices, so decoding runs at
//! memory speed rather than byte by byte.
//!
//! This one decoder serves the model providers' streams and MCP's streamable
//! HTTP alike: MCP reads it in the standard's strict shape — an event cut by
//! the end of the body is dropped ([`SseDecoder::drop_unterminated`]),
//! undecodable bytes become U+FFFD ([`SseDecoder::utf8_lossy`]) — and
//! resumes a stream from [`SseDecoder::last_event_id`] after
//! [`SseDecoder::retry`].
//!
//! ```
//! use golem_providers::sse::SseDecoder;
//!
//! let mut decoder = SseDecoder::new();
//! decoder.feed(b"event: greeting\ndata: hel");
//! assert!(decoder.next().is_none()); // the event is not complete yet
//! decoder.feed(b"lo\ndata: world\r\n\r\n: a comment\n");
//! let event = decoder.next().unwrap().unwrap();
//! assert_eq!((event.event.as_str(), event.data.as_str()), ("greeting", "hello\nworld"));
//! decoder.finish();
//! assert!(decoder.next().is_none());
//! ```

/// The longest line accepted, terminator excluded (SPEC STREAM-08).
pub const MAX_LINE: usize = 1 << 20;

/// The largest event accepted: its data plus its type (SPEC STREAM-08).
pub const MAX_EVENT: usize = 8 << 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` type; empty means the default type, `message`.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen on the stream so far (it persists across
    /// events, as the standard says).
    pub id: Option<String>,
    /// A `retry:` reconnection time in milliseconds given within this event.
    pub retry: Option<u64>,
    /// The event carried an `id:` field of its own (rather than inheriting
    /// an earlier event's): what tells a replayed event from a new one when
    /// a stream resumes.
    pub own_id: bool,
}

impl SseEvent {
    /// The event type, with the default applied.
    pub fn event_type(&self) -> &str {
        if self.event.is_empty() {
            "message"
        } else {
            &self.event
        }
    }
}

/// Why a stream could not be decoded. Errors are terminal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// A line is longer than [`MAX_LINE`].
    #[error("event-stream line {line} is longer than {limit} bytes")]
    LineTooLong {
        /// The 1-based line number.
        line: u64,
        /// The limit.
        limit: usize,
    },
    /// An event is larger than [`MAX_EVENT`].
    #[error("event-stream event ending at line {line} is larger than {limit} bytes")]
    EventTooLarge {
        /// The 1-based line number where the limit was crossed.
        line: u64,
        /// The limit.
        limit: usize,
    },
    /// A field value is not UTF-8. The standard would substitute U+FFFD;
    /// for model output that silently corrupts text, so it is an error.
    #[error("event-stream line {line} is not valid UTF-8")]
    InvalidUtf8 {
        /// The 1-based line number.
        line: u64,
    },
}

/// The unconsumed input and where line scanning stands.
#[derive(Debug, Default)]
struct Input {
    buf: Vec<u8>,
    /// Start of the unconsumed bytes.
    pos: usize,
    /// How far past `pos` the current partial line has been searched
    /// already, so feeding a long line piecemeal stays linear.
    scanned: usize,
    /// The previous line ended with `\r`; a `\n` right after it belongs to
    /// the same line end.
    skip_lf: bool,
    bom_checked: bool,
    eof: bool,
}

/// The event being assembled.
#[derive(Debug)]
struct Pending {
    data: String,
    event: String,
    retry: Option<u64>,
    /// The standard's "last event ID buffer": set by each `id:` line.
    last_id: Option<String>,
    /// The event being read has an `id:` line of its own.
    own_id: bool,
    /// The event being read has any field (data, event, id, retry).
    has_fields: bool,
    line: u64,
    max_line: usize,
    max_event: usize,
    lossy: bool,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            data: String::new(),
            event: String::new(),
            retry: None,
            last_id: None,
            own_id: false,
            has_fields: false,
            line: 0,
            max_line: MAX_LINE,
            max_event: MAX_EVENT,
            lossy: false,
        }
    }
}

/// The decoder. See the [module docs](self).
#[derive(Debug)]
pub struct SseDecoder {
    input: Input,
    pending: Pending,
    failed: bool,
    eof_dispatched: bool,
    /// The end of the body dispatched an event its blank line never closed.
    cut: bool,
    /// Dispatch the event the end of the body cut (see [`Self::finish`]).
    keep_tail: bool,
    /// The standard's "last event ID string": the id in force when the last
    /// complete event was dispatched.
    last_event_id: String,
    /// The last `retry:` the stream gave.
    retry: Option<std::time::Duration>,
    /// Complete events with any field, messages or not.
    dispatched: u64,
}

impl Default for SseDecoder {
    fn default() -> Self {
        SseDecoder {
            input: Input::default(),
            pending: Pending::default(),
            failed: false,
            eof_dispatched: false,
            cut: false,
            keep_tail: true,
            last_event_id: String::new(),
            retry: None,
            dispatched: 0,
        }
    }
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        SseDecoder::default()
    }

    /// Other bounds than [`MAX_LINE`] and [`MAX_EVENT`] (MCP allows 32 MiB
    /// messages; tests use small ones).
    ///
    /// ```
    /// use golem_providers::sse::{SseDecoder, SseError};
    ///
    /// let mut decoder = SseDecoder::new().with_limits(16, 16);
    /// decoder.feed(b"data: far more than sixteen bytes\n\n");
    /// assert_eq!(decoder.next(), Some(Err(SseError::LineTooLong { line: 1, limit: 16 })));
    /// ```
    pub fn with_limits(mut self, max_line: usize, max_event: usize) -> Self {
        self.pending.max_line = max_line;
        self.pending.max_event = max_event;
        self
    }

    /// Decode bytes that are not UTF-8 as U+FFFD, as the standard does,
    /// instead of failing the stream. Model output keeps the default (an
    /// error), where a substitution would silently corrupt text.
    pub fn utf8_lossy(mut self) -> Self {
        self.pending.lossy = true;
        self
    }

    /// Drop an event the end of the body cuts before its blank line, as the
    /// standard says, instead of dispatching it (see [`Self::finish`]).
    ///
    /// ```
    /// use golem_providers::sse::SseDecoder;
    ///
    /// let mut decoder = SseDecoder::new().drop_unterminated();
    /// decoder.feed(b"id: 1\ndata: a\n\nid: 2\ndata: b");
    /// decoder.finish();
    /// assert_eq!(decoder.next().unwrap().unwrap().data, "a");
    /// assert!(decoder.next().is_none());
    /// assert_eq!(decoder.last_event_id(), "1");
    /// ```
    pub fn drop_unterminated(mut self) -> Self {
        self.keep_tail = false;
        self
    }

    /// Carry the id a previous stream ended with into this one (a
    /// reconnection), as an `EventSource` keeps it.
    pub fn set_last_event_id(&mut self, id: &str) {
        self.last_event_id = id.to_string();
        self.pending.last_id = (!id.is_empty()).then(|| id.to_string());
    }

    /// The id in force at the last complete event (empty when none had
    /// one): what a reconnecting client sends as `Last-Event-ID`. It carries
    /// over events without an `id:`, and priming events with no data set it
    /// too, as the standard says.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection delay the stream last asked for with `retry:`.
    pub fn retry(&self) -> Option<std::time::Duration> {
        self.retry
    }

    /// How many complete events with any field (data, event, id, retry) the
    /// body has held so far, dispatched or not: priming events count,
    /// comments do not.
    pub fn dispatched(&self) -> u64 {
        self.dispatched
    }

    /// Append a chunk of the body. Cheap: parsing happens in [`Self::next`].
    pub fn feed(&mut self, chunk: &[u8]) {
        if self.failed || self.input.eof {
            return;
        }
        let input = &mut self.input;
        if input.pos > 0 && input.pos >= input.buf.len() - input.pos {
            // Compact only once the consumed prefix outweighs what is left,
            // so the bytes moved never exceed the bytes consumed: linear
            // however the caller interleaves feeding and draining.
            input.buf.drain(..input.pos);
            input.pos = 0;
        }
        input.buf.extend_from_slice(chunk);
    }

    /// Mark the end of the body. Afterwards [`Self::next`] also yields an
    /// event whose final blank line is missing: a body that ends right after
    /// `data: [DONE]` is complete as far as HTTP is concerned, and dropping
    /// that event would turn a finished stream into a truncated one.
    pub fn finish(&mut self) {
        self.input.eof = true;
    }

    /// True after [`Self::next`] returned an error.
    pub fn is_failed(&self) -> bool {
        self.failed
    }

    /// True once the end of the body ([`Self::finish`]) dispatched an event
    /// whose closing blank line never came: the body may have been cut in
    /// the middle of that event. Stream parsers read a last event that
    /// fails to parse as a truncated stream, not a corrupt one (SPEC
    /// STREAM-07).
    ///
    /// ```
    /// use golem_providers::sse::SseDecoder;
    ///
    /// let mut decoder = SseDecoder::new();
    /// decoder.feed(b"data: {\"cho");
    /// decoder.finish();
    /// assert_eq!(decoder.next().unwrap().unwrap().data, "{\"cho");
    /// assert!(decoder.ended_mid_event());
    /// ```
    pub fn ended_mid_event(&self) -> bool {
        self.cut
    }

    /// The next complete event, `None` when more input is needed (or after
    /// the end, or after an error).
    #[allow(clippy::should_implement_trait)] // a fallible pull parser, like httparse; not an Iterator on purpose
    pub fn next(&mut self) -> Option<Result<SseEvent, SseError>> {
        if self.failed {
            return None;
        }
        let result = self.next_inner();
        if matches!(result, Some(Err(_))) {
            self.failed = true;
            self.input.buf = Vec::new();
            self.input.pos = 0;
        }
        result
    }

    fn next_inner(&mut self) -> Option<Result<SseEvent, SseError>> {
        let input = &mut self.input;
        if !input.bom_checked {
            let rest = &input.buf[input.pos..];
            if rest.len() < BOM.len() && BOM.starts_with(rest) && !input.eof {
                return None;
            }
            if rest.starts_with(BOM) {
                input.pos += BOM.len();
            }
            input.bom_checked = true;
        }
        loop {
            let input = &mut self.input;
            if input.skip_lf {
                match input.buf.get(input.pos) {
                    Some(b'\n') => {
                        input.pos += 1;
                        input.skip_lf = false;
                    }
                    Some(_) => input.skip_lf = false,
                    None if input.eof => input.skip_lf = false,
                    None => return None,
                }
            }
            let rest = &input.buf[input.pos..];
            let line_end = memchr::memchr2(b'\n', b'\r', &rest[input.scanned..]).map(|i| input.scanned + i);
            let line = match line_end {
                Some(end) => {
                    input.skip_lf = rest[end] == b'\r';
                    input.pos += end + 1;
                    input.scanned = 0;
                    &input.buf[input.pos - end - 1..input.pos - 1]
                }
                None if rest.len() > self.pending.max_line => {
                    let limit = self.pending.max_line;
                    return Some(Err(SseError::LineTooLong { line: self.pending.line + 1, limit }));
                }
                None if input.eof && !rest.is_empty() => {
                    input.pos = input.buf.len();
                    input.scanned = 0;
                    &input.buf[input.pos - rest.len()..]
                }
                None if input.eof => {
                    if self.eof_dispatched {
                        return None;
                    }
                    self.eof_dispatched = true;
                    if !self.keep_tail {
                        return None;
                    }
                    let event = self.dispatch();
                    self.cut = event.is_some();
                    return event.map(Ok);
                }
                None => {
                    input.scanned = rest.len();
                    return None;
                }
            };
            match self.pending.line(line) {
                Ok(true) => {
                    if let Some(event) = self.dispatch() {
                        return Some(Ok(event));
                    }
                }
                Ok(false) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// End the current event: the stream's state takes its id and retry,
    /// and it is yielded if it has data.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let pending = &mut self.pending;
        if std::mem::take(&mut pending.has_fields) {
            self.dispatched += 1;
        }
        self.last_event_id = pending.last_id.clone().unwrap_or_default();
        if let Some(ms) = pending.retry {
            self.retry = Some(std::time::Duration::from_millis(ms));
        }
        pending.dispatch()
    }
}

impl Pending {
    /// Interpret one line; `true` for the blank line that dispatches.
    fn line(&mut self, line: &[u8]) -> Result<bool, SseError> {
        self.line += 1;
        if line.len() > self.max_line {
            return Err(SseError::LineTooLong { line: self.line, limit: self.max_line });
        }
        if line.is_empty() {
            return Ok(true);
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(0) => return Ok(false), // a comment
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                let value = self.utf8(value)?;
                if self.data.len() + value.len() + 1 + self.event.len() > self.max_event {
                    return Err(SseError::EventTooLarge { line: self.line, limit: self.max_event });
                }
                self.data.push_str(&value);
                self.data.push('\n');
                self.has_fields = true;
            }
            b"event" => {
                let value = self.utf8(value)?;
                if self.data.len() + value.len() > self.max_event {
                    return Err(SseError::EventTooLarge { line: self.line, limit: self.max_event });
                }
                self.event.clear();
                self.event.push_str(&value);
                self.has_fields = true;
            }
            // An id with NUL is ignored, as the standard says: it could not
            // be sent back in a header.
            b"id" if !value.contains(&0) => {
                let value = self.utf8(value)?;
                self.last_id = (!value.is_empty()).then(|| value.into_owned());
                self.own_id = true;
                self.has_fields = true;
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Overflowing values are ignored like any other invalid one.
                if let Some(ms) = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok()) {
                    self.retry = Some(ms);
                    self.has_fields = true;
                }
            }
            _ => {}
        }
        Ok(false)
    }

    fn utf8<'a>(&self, value: &'a [u8]) -> Result<std::borrow::Cow<'a, str>, SseError> {
        match std::str::from_utf8(value) {
            Ok(text) => Ok(std::borrow::Cow::Borrowed(text)),
            Err(_) if self.lossy => Ok(String::from_utf8_lossy(value)),
            Err(_) => Err(SseError::InvalidUtf8 { line: self.line }),
        }
    }

    /// End the current event: yield it if it has data, else just reset.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let retry = self.retry.take();
        let own_id = std::mem::take(&mut self.own_id);
        if self.data.is_empty() {
            self.event.clear();
            return None;
        }
        self.data.pop(); // the '\n' after the last data line
        let capacity = self.data.capacity().min(64 << 10);
        let data = std::mem::replace(&mut self.data, String::with_capacity(capacity));
        Some(SseEvent { event: std::mem::take(&mut self.event), data, id: self.last_id.clone(), retry, own_id })
    }
}

//! JSON-array framing: `streamGenerateContent` without `alt=sse` streams
//! one JSON array whose elements are the response chunks (recorded in
//! `gemini/stream_json_array_gzip_thought_signatures`).
//!
//! golem asks for SSE, but a server or gateway that ignores `alt=sse`
//! answers this way, so the stream decoder accepts both (a body whose
//! first non-blank byte is `[` is an array). This splitter finds each
//! element's end — by bracket depth, outside strings — so each element is
//! handed to serde_json whole; it never interprets JSON itself. Like the
//! SSE decoder it takes chunks of any size, yields the same elements
//! however the bytes are split, bounds each element by
//! [`crate::sse::MAX_EVENT`], and stops at its first error.

use crate::sse::MAX_EVENT;

/// Why an array stream cannot be split.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArrayError {
    #[error("the body is not a JSON array")]
    NotAnArray,
    #[error("a JSON-array element is larger than {MAX_EVENT} bytes")]
    TooLarge,
    #[error("the body ended inside the JSON array")]
    Cut,
    #[error("bytes follow the end of the JSON array")]
    Trailing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the opening `[`.
    Start,
    /// Between elements: blanks and commas, an element, or `]`.
    Between,
    /// Inside an element that starts at `start`.
    Element { start: usize },
    /// After the closing `]`.
    Done,
}

/// The splitter.
#[derive(Debug)]
pub(crate) struct ArrayDecoder {
    buf: Vec<u8>,
    /// Start of the unconsumed bytes.
    pos: usize,
    state: State,
    /// How far the current element has been scanned.
    scan: usize,
    depth: u32,
    in_string: bool,
    escaped: bool,
    eof: bool,
    failed: bool,
}

impl ArrayDecoder {
    pub(crate) fn new() -> Self {
        ArrayDecoder {
            buf: Vec::new(),
            pos: 0,
            state: State::Start,
            scan: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            eof: false,
            failed: false,
        }
    }

    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        if self.failed || self.eof {
            return;
        }
        if self.pos > 0 && self.pos >= self.buf.len() - self.pos {
            // Compact once the consumed prefix outweighs what is left: the
            // bytes moved never exceed the bytes consumed.
            let drained = self.pos;
            self.buf.drain(..drained);
            self.pos = 0;
            self.scan -= drained.min(self.scan);
            if let State::Element { start } = &mut self.state {
                *start -= drained;
            }
        }
        self.buf.extend_from_slice(chunk);
    }

    pub(crate) fn finish(&mut self) {
        self.eof = true;
    }

    /// The next whole element; `None` when more input is needed or the
    /// array is over.
    pub(crate) fn next(&mut self) -> Option<Result<Vec<u8>, ArrayError>> {
        if self.failed {
            return None;
        }
        let result = self.next_inner();
        if matches!(result, Some(Err(_))) {
            self.failed = true;
            self.buf = Vec::new();
            self.pos = 0;
        }
        result
    }

    fn next_inner(&mut self) -> Option<Result<Vec<u8>, ArrayError>> {
        loop {
            match self.state {
                State::Start => {
                    self.skip(|b| b.is_ascii_whitespace());
                    match self.buf.get(self.pos) {
                        Some(b'[') => {
                            self.pos += 1;
                            self.state = State::Between;
                        }
                        Some(_) => return Some(Err(ArrayError::NotAnArray)),
                        None if self.eof => return Some(Err(ArrayError::Cut)),
                        None => return None,
                    }
                }
                State::Between => {
                    self.skip(|b| b.is_ascii_whitespace() || b == b',');
                    match self.buf.get(self.pos) {
                        Some(b']') => {
                            self.pos += 1;
                            self.state = State::Done;
                        }
                        Some(_) => {
                            self.state = State::Element { start: self.pos };
                            self.scan = self.pos;
                            (self.depth, self.in_string, self.escaped) = (0, false, false);
                        }
                        None if self.eof => return Some(Err(ArrayError::Cut)),
                        None => return None,
                    }
                }
                State::Element { start } => {
                    return match self.element_end(start) {
                        Some(end) => {
                            let element = self.buf[start..end].to_vec();
                            self.pos = end;
                            self.state = State::Between;
                            Some(Ok(element))
                        }
                        None if self.scan - start > MAX_EVENT => Some(Err(ArrayError::TooLarge)),
                        None if self.eof => Some(Err(ArrayError::Cut)),
                        None => None,
                    };
                }
                State::Done => {
                    self.skip(|b| b.is_ascii_whitespace());
                    return (self.pos < self.buf.len()).then_some(Err(ArrayError::Trailing));
                }
            }
        }
    }

    /// Scan on from where the last call stopped; the end (exclusive) of
    /// the element starting at `start`, once it is in.
    fn element_end(&mut self, start: usize) -> Option<usize> {
        while self.scan < self.buf.len() {
            let at = self.scan;
            let byte = self.buf[at];
            self.scan += 1;
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Some(at + 1);
                    }
                }
                continue;
            }
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' if self.depth == 0 => {
                    // A scalar ended by the array's `]`, or a stray bracket
                    // (kept, so serde reports it).
                    return Some(if at == start { at + 1 } else { at });
                }
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(at + 1);
                    }
                }
                b',' if self.depth == 0 => return Some(at),
                b if b.is_ascii_whitespace() && self.depth == 0 && at > start => return Some(at),
                _ => {}
            }
        }
        None
    }

    fn skip(&mut self, blank: impl Fn(u8) -> bool) {
        while self.buf.get(self.pos).is_some_and(|b| blank(*b)) {
            self.pos += 1;
        }
    }
}

//! The stream decoder every family shares (SPEC STREAM-04..08, MODEL-04):
//! the bookkeeping once — deltas through the core assembler and out in
//! order, the first error terminal and yielded once, the request id and
//! every secret on each error, the drain at the end, the response built
//! from what the deltas assembled — and each family's wire parsing, its
//! [`Parser`], apart.
//!
//! `AnthropicStream`, `GeminiStream`, `ConverseStream` and `ChatStream`
//! are this [`Stream`] over their family's parser.

mod book;
mod outbox;

pub use book::Book;

use crate::codec::StreamDecoder;
use golem_core::message::{FinishReason, Message, Usage};
use golem_core::model::{Delta, ModelError, Response};

/// One family's wire parsing: framing, events, what they mean.
pub trait Parser: Send {
    /// Take the next bytes of the body (parse later, in [`Parser::step`]).
    fn feed(&mut self, chunk: &[u8]);

    /// The body ended.
    fn end(&mut self);

    /// Parse one unit of what was fed — an event, a chunk, a frame —
    /// handing its deltas to `book`; `None` when more input is needed or
    /// the stream is over.
    fn step(&mut self, book: &mut Book) -> Option<Result<(), ModelError>>;

    /// Once the body is parsed: what the stream reported at its end, or
    /// why it is not a whole answer (`Truncated` without the end marker).
    fn outcome(&self) -> Result<Outcome, ModelError>;
}

/// What a whole stream reported besides its content.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The usage.
    pub usage: Usage,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
}

/// The incremental decoder of one streamed response: parser `P` over the
/// shared [`Book`].
///
/// A body whose first byte of substance is `{` is no stream of any family
/// (SSE lines, a JSON array, event-stream frames all start otherwise): the
/// server answered the streamed request with a plain JSON body. That is
/// said as it is, and not retried — another attempt gets the same answer.
#[derive(Debug)]
pub struct Stream<P> {
    pub(crate) parser: P,
    pub(crate) book: Book,
    /// The body's first byte of substance has been seen, or `SNIFFED`
    /// bytes without one.
    sniffed: bool,
    /// Blank bytes before the first byte of substance, held back from the
    /// parser until it is known whether the body is JSON: a binary framing
    /// (Bedrock's) reads them as a frame, so feeding them early made the
    /// outcome depend on where the chunks were cut (libFuzzer
    /// `bedrock_stream`).
    blank: Vec<u8>,
    /// The start of a JSON body answering the streamed request, kept to be
    /// quoted (the same bytes however the body is chunked).
    not_streamed: Option<Vec<u8>>,
}

/// How much of a JSON body in place of a stream is kept for the error.
const QUOTED: usize = 1024;

/// How far into the body its first byte of substance is looked for; a body
/// blank for longer is taken as a stream, however it goes on. Bounds what
/// is held back (`Stream::blank`).
const SNIFFED: usize = 64 * 1024;

/// Whitespace, or a byte of a UTF-8 byte-order mark.
fn is_blank(byte: &u8) -> bool {
    byte.is_ascii_whitespace() || b"\xEF\xBB\xBF".contains(byte)
}

impl<P: Parser> Stream<P> {
    /// A decoder of `parser`'s stream, keeping its books in `book`.
    pub fn with_parser(parser: P, book: Book) -> Self {
        Stream { parser, book, sniffed: false, blank: Vec::new(), not_streamed: None }
    }

    /// Hand the held-back blanks to the parser: the body is a stream.
    fn release_blank(&mut self) {
        let blank = std::mem::take(&mut self.blank);
        if !blank.is_empty() {
            self.parser.feed(&blank);
        }
    }

    /// Parse until a delta is queued, the input runs dry, the stream is
    /// over or it failed.
    fn pump(&mut self) {
        while self.book.wants_more() {
            match self.parser.step(&mut self.book) {
                None => return,
                Some(Ok(())) => {}
                Some(Err(error)) => self.book.fail(error),
            }
        }
    }
}

impl<P: Parser> StreamDecoder for Stream<P> {
    fn feed(&mut self, chunk: &[u8]) {
        if self.book.failed() {
            return;
        }
        let mut chunk = chunk;
        if !self.sniffed {
            // The decision depends on the body's first `SNIFFED` bytes
            // only, never on how they were chunked.
            let window = &chunk[..chunk.len().min(SNIFFED - self.blank.len())];
            match window.iter().position(|b| !is_blank(b)) {
                Some(at) if chunk[at] == b'{' => {
                    self.blank = Vec::new();
                    self.not_streamed = Some(Vec::new());
                    chunk = &chunk[at..];
                }
                Some(_) => self.release_blank(),
                None if window.len() == chunk.len() => return self.blank.extend_from_slice(chunk),
                None => self.release_blank(),
            }
            self.sniffed = true;
        }
        match &mut self.not_streamed {
            None => self.parser.feed(chunk),
            Some(kept) => {
                kept.extend_from_slice(&chunk[..chunk.len().min(QUOTED - kept.len())]);
                if kept.len() == QUOTED {
                    self.book.fail(not_streamed(self.book.head(), kept));
                }
            }
        }
    }

    fn end(&mut self) {
        if !self.sniffed {
            // A body of blanks only: the parser has its say.
            self.release_blank();
            self.sniffed = true;
        }
        self.book.ended = true;
        match &self.not_streamed {
            Some(kept) if !self.book.failed() => self.book.fail(not_streamed(self.book.head(), kept)),
            _ => self.parser.end(),
        }
    }

    fn next_delta(&mut self) -> Option<Result<Delta, ModelError>> {
        self.pump();
        self.book.next()
    }

    fn partial(&self) -> Message {
        self.book.assembler.snapshot()
    }

    fn finish(mut self) -> Result<Response, ModelError> {
        self.end();
        // Parse what nobody drained: the response is the assembler's.
        self.book.discard();
        loop {
            self.pump();
            if !self.book.discard() {
                break;
            }
        }
        if let Some(error) = self.book.take_error() {
            return Err(error);
        }
        let outcome = self.parser.outcome().map_err(|error| self.book.stamp(error))?;
        Ok(Response::new(self.book.assembler.finish())
            .with_usage(outcome.usage)
            .with_finish_reason(outcome.finish_reason))
    }
}

/// A streamed request answered with a plain JSON body (`body` from its
/// first byte): the server does not stream, or something between strips
/// the stream. Not retryable: another attempt gets the same answer.
fn not_streamed(head: &crate::http::HttpResponseHead, body: &[u8]) -> ModelError {
    let kind = head.header("content-type").map(|t| format!(" ({t})")).unwrap_or_default();
    let quoted = crate::classify::quote_body(body, None);
    let detail = format!(
        "the server did not stream: it answered a streamed request with a JSON body{kind} instead of a stream; \
         call it without streaming, or fix what strips the stream: {quoted}"
    );
    crate::classify::decode_error("stream", &detail, false, None)
}

/// Implements [`Parser`] for a family whose stream is SSE events of JSON
/// (Anthropic, the Responses API): the framing is this, what an event
/// means is the family's. `$parser` holds its `SseDecoder` in `sse`, and
/// has `event(&mut self, data: &str, book: &mut Book) -> Result<(),
/// ModelError>` and `finished(&self) -> Result<Outcome, ModelError>` (what
/// [`Parser::outcome`] returns).
#[cfg(any(feature = "anthropic", feature = "responses"))]
macro_rules! sse_events_parser {
    ($parser:ty) => {
        impl $crate::decoder::Parser for $parser {
            fn feed(&mut self, chunk: &[u8]) {
                self.sse.feed(chunk);
            }

            fn end(&mut self) {
                self.sse.finish();
            }

            fn step(&mut self, book: &mut $crate::decoder::Book) -> Option<Result<(), golem_core::model::ModelError>> {
                Some(match self.sse.next()? {
                    Ok(event) => self.event(&event.data, book),
                    Err(error) => Err($crate::decoder::sse_failure(&error, book.ended(), "event")),
                })
            }

            fn outcome(&self) -> Result<$crate::decoder::Outcome, golem_core::model::ModelError> {
                self.finished()
            }
        }
    };
}
#[cfg(any(feature = "anthropic", feature = "responses"))]
pub(crate) use sse_events_parser;

/// An SSE failure in a family whose events are JSON (Anthropic, Gemini).
/// Invalid UTF-8 at the very end is a character cut in two: the stream
/// was truncated, not garbled; invalid UTF-8 elsewhere is damage (a
/// retryable decode error); a line past its bound is not.
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "responses"))]
pub(crate) fn sse_failure(error: &crate::sse::SseError, ended: bool, unit: &str) -> ModelError {
    use crate::sse::SseError;
    match error {
        SseError::InvalidUtf8 { .. } if ended => ModelError::new(
            golem_core::model::ModelErrorKind::Truncated,
            format!("the stream ended inside a character of its last {unit}"),
        ),
        SseError::InvalidUtf8 { .. } => crate::classify::decode_error("event stream", &error.to_string(), true, None),
        _ => crate::classify::decode_error("event stream", &error.to_string(), false, None),
    }
}

/// JSON that does not parse: cut short at the end of the body, the stream
/// was truncated inside its last `unit`; anywhere else it is damage (a
/// retryable decode error at `stage`).
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "responses"))]
pub(crate) fn invalid_json(error: &serde_json::Error, ended: bool, stage: &str, unit: &str) -> ModelError {
    if error.is_eof() && ended {
        ModelError::new(
            golem_core::model::ModelErrorKind::Truncated,
            format!("the stream ended inside its last {unit}"),
        )
    } else {
        crate::classify::decode_error(stage, &format!("invalid JSON: {error}"), true, None)
    }
}

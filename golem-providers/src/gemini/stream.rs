//! `streamGenerateContent` responses (SPEC PROV-GEM-07, STREAM-04..08).
//!
//! golem asks for `?alt=sse`: each `data:` line holds one whole response
//! chunk. A body whose first non-blank byte is `[` is the JSON-array
//! framing instead (a server that ignored `alt=sse`) and is accepted
//! too, element by element ([`super::json_array`]). Either way each chunk
//! goes through the same [`Answer`] as a plain response: every text part
//! forwarded, thought parts as thinking, function calls whole, usage from
//! the last chunk that reports it. The bookkeeping — the core assembler,
//! the order of deltas and errors, the response at the end — is the
//! shared [`Stream`]'s (STREAM-05, MODEL-04).
//!
//! A model call succeeds or fails as a unit: a stream that ends before a
//! candidate reports its `finishReason` is `Truncated` (retryable), never
//! a success — so is one cut inside its last chunk. An undecodable chunk
//! is a retryable decode error, like a dropped connection; an `error`
//! chunk is the provider's error, classified; a stream without any
//! candidate is a decode error naming the prompt's block reason.

use super::answer::{no_candidates, Answer};
use super::json_array::{ArrayDecoder, ArrayError};
use super::FAMILY;
use crate::classify::decode_error;
use crate::decoder::{invalid_json, sse_failure, Book, Outcome, Parser, Stream};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use crate::sse::{SseDecoder, MAX_LINE};
use golem_core::model::{ModelError, ModelErrorKind};
use serde_json::Value;

/// How the body frames its chunks, known from its first non-blank byte.
#[derive(Debug)]
enum Framing {
    /// Nothing but blanks so far (kept, to hand to the decoder chosen).
    Unknown(Vec<u8>),
    Sse(SseDecoder),
    Array(ArrayDecoder),
}

/// The incremental decoder for one streamed Gemini response.
///
/// ```
/// use golem_providers::codec::StreamDecoder;
/// use golem_providers::gemini::GeminiStream;
/// use golem_providers::http::HttpResponseHead;
///
/// let mut stream = GeminiStream::new(&HttpResponseHead::new(200, vec![]), 1, None);
/// stream.feed(b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}]}\n\n");
/// assert_eq!(stream.next_delta().unwrap().unwrap(), golem_core::Delta::text("Hi"));
/// stream.feed(b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"!\"}]},\"finishReason\":\"STOP\"}]}\n\n");
/// stream.end();
/// while let Some(delta) = stream.next_delta() { delta.unwrap(); }
/// assert_eq!(stream.finish().unwrap().message.content, "Hi!");
/// ```
pub type GeminiStream = Stream<ChunkParser>;

impl GeminiStream {
    /// A decoder for a 2xx streamed response with `head`; `turn` numbers
    /// synthesized call ids and `key` is scrubbed from errors.
    pub fn new(head: &HttpResponseHead, turn: usize, key: Option<Secret>) -> Self {
        let parser = ChunkParser { framing: Framing::Unknown(Vec::new()), answer: Answer::new(turn), key: key.clone() };
        Stream::with_parser(parser, Book::new(head, FAMILY, key))
    }
}

/// The response chunks of a Gemini stream, SSE or JSON-array framed.
#[derive(Debug)]
pub struct ChunkParser {
    framing: Framing,
    answer: Answer,
    key: Option<Secret>,
}

impl Parser for ChunkParser {
    fn feed(&mut self, chunk: &[u8]) {
        match &mut self.framing {
            Framing::Unknown(_) => self.frame(chunk),
            Framing::Sse(sse) => sse.feed(chunk),
            Framing::Array(array) => array.feed(chunk),
        }
    }

    fn end(&mut self) {
        match &mut self.framing {
            Framing::Unknown(_) => {}
            Framing::Sse(sse) => sse.finish(),
            Framing::Array(array) => array.finish(),
        }
    }

    fn step(&mut self, book: &mut Book) -> Option<Result<(), ModelError>> {
        let next = match &mut self.framing {
            Framing::Unknown(_) => return None,
            Framing::Sse(sse) => match sse.next()? {
                Ok(event) => Ok(event.data.into_bytes()),
                Err(error) => Err(sse_failure(&error, book.ended(), "chunk")),
            },
            Framing::Array(array) => match array.next()? {
                Ok(element) => Ok(element),
                Err(ArrayError::Cut) => Err(ModelError::new(
                    ModelErrorKind::Truncated,
                    "the stream ended inside its JSON array, before its last chunk was complete",
                )),
                Err(error) => Err(decode_error("stream", &error.to_string(), true, None)),
            },
        };
        Some(next.and_then(|data| self.data(&data, book)))
    }

    fn outcome(&self) -> Result<Outcome, ModelError> {
        let missing = if self.answer.chunks == 0 {
            "the stream ended before its first chunk"
        } else if !self.answer.answered {
            return Err(decode_error("stream", &no_candidates(None), false, None));
        } else if self.answer.finish.is_none() {
            "the stream ended before a candidate reported its finishReason"
        } else {
            return Ok(Outcome { usage: self.answer.usage, finish_reason: self.answer.finish_reason() });
        };
        Err(ModelError::new(ModelErrorKind::Truncated, missing))
    }
}

impl ChunkParser {
    /// One chunk's bytes.
    fn data(&mut self, data: &[u8], book: &mut Book) -> Result<(), ModelError> {
        if data.iter().all(u8::is_ascii_whitespace) {
            return Ok(()); // keep-alive
        }
        let chunk: Value = crate::codec::json::parse_json(data)
            .map_err(|e| invalid_json(&e, book.ended(), "stream chunk", "chunk"))?;
        let mut deltas = Vec::new();
        let read = self.answer.chunk(&chunk, book.head(), self.key.as_ref(), &mut deltas);
        deltas.into_iter().try_for_each(|delta| book.emit(delta, "stream chunk"))?;
        read
    }

    /// Pick the framing once a non-blank byte arrived.
    fn frame(&mut self, chunk: &[u8]) {
        let Framing::Unknown(held) = &mut self.framing else { return };
        held.extend_from_slice(chunk);
        let first = held.iter().copied().find(|b| !b.is_ascii_whitespace() && !b"\xEF\xBB\xBF".contains(b));
        // Blanks are held only up to a line's bound; past it the SSE
        // decoder takes them (and its bounds apply).
        let Some(first) = first.or((held.len() > MAX_LINE).then_some(b'\n')) else {
            return;
        };
        let bytes = std::mem::take(held);
        self.framing = if first == b'[' {
            let mut array = ArrayDecoder::new();
            array.feed(&bytes);
            Framing::Array(array)
        } else {
            let mut sse = SseDecoder::new();
            sse.feed(&bytes);
            Framing::Sse(sse)
        };
    }
}

//! `streamGenerateContent` responses (SPEC PROV-GEM-07, STREAM-04..08).
//!
//! golem asks for `?alt=sse`: each `data:` line holds one whole response
//! chunk. A body whose first non-blank byte is `[` is the JSON-array
//! framing instead (a server that ignored `alt=sse`) and is accepted
//! too, element by element ([`super::json_array`]). Either way each chunk
//! goes through the same [`Answer`] as a plain response: every text part
//! forwarded, thought parts as thinking, function calls whole, usage from
//! the last chunk that reports it. Every delta passes the core assembler
//! before it is handed out, so the bounds hold and the response from
//! [`GeminiStream::finish`] is exactly what the deltas assemble to
//! (STREAM-05, MODEL-04).
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
use crate::classify::with_request_id;
use crate::codec::StreamDecoder;
use crate::http::HttpResponseHead;
use crate::outbox::Outbox;
use crate::secret::Secret;
use crate::sse::{SseDecoder, SseError, MAX_LINE};
use golem_core::message::Message;
use golem_core::model::{Delta, ModelError, ModelErrorKind, Response};
use golem_core::stream::StreamAssembler;
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
#[derive(Debug)]
pub struct GeminiStream {
    framing: Framing,
    answer: Answer,
    assembler: StreamAssembler,
    out: Outbox,
    ended: bool,
    head: HttpResponseHead,
    key: Option<Secret>,
}

impl GeminiStream {
    /// A decoder for a 2xx streamed response with `head`; `turn` numbers
    /// synthesized call ids and `key` is scrubbed from errors.
    pub fn new(head: &HttpResponseHead, turn: usize, key: Option<Secret>) -> Self {
        GeminiStream {
            framing: Framing::Unknown(Vec::new()),
            answer: Answer::new(turn),
            assembler: StreamAssembler::new().with_provider(FAMILY),
            out: Outbox::default(),
            ended: false,
            head: head.clone(),
            key,
        }
    }

    /// Decode chunks until a delta is queued, the input runs dry or the
    /// stream failed.
    fn pump(&mut self) {
        while self.out.wants_more() {
            let next = match &mut self.framing {
                Framing::Unknown(_) => return,
                Framing::Sse(sse) => match sse.next() {
                    None => return,
                    Some(Ok(event)) => Ok(event.data.into_bytes()),
                    Some(Err(error)) => Err(self.sse_error(&error)),
                },
                Framing::Array(array) => match array.next() {
                    None => return,
                    Some(Ok(element)) => Ok(element),
                    Some(Err(ArrayError::Cut)) => Err(ModelError::new(
                        ModelErrorKind::Truncated,
                        "the stream ended inside its JSON array, before its last chunk was complete",
                    )),
                    Some(Err(error)) => Err(decode_error("stream", &error.to_string(), true, self.key.as_ref())),
                },
            };
            if let Err(error) = next.and_then(|data| self.data(&data)) {
                self.fail(error);
            }
        }
    }

    /// An SSE failure. Invalid UTF-8 at the very end is a character cut in
    /// two: the stream was truncated, not garbled.
    fn sse_error(&self, error: &SseError) -> ModelError {
        match error {
            SseError::InvalidUtf8 { .. } if self.ended => {
                ModelError::new(ModelErrorKind::Truncated, "the stream ended inside a character of its last chunk")
            }
            SseError::InvalidUtf8 { .. } => decode_error("event stream", &error.to_string(), true, self.key.as_ref()),
            _ => decode_error("event stream", &error.to_string(), false, self.key.as_ref()),
        }
    }

    /// One chunk's bytes.
    fn data(&mut self, data: &[u8]) -> Result<(), ModelError> {
        if data.iter().all(u8::is_ascii_whitespace) {
            return Ok(()); // keep-alive
        }
        let chunk: Value = serde_json::from_slice(data).map_err(|e| {
            if e.is_eof() && self.ended {
                ModelError::new(ModelErrorKind::Truncated, "the stream ended inside its last chunk")
            } else {
                decode_error("stream chunk", &format!("invalid JSON: {e}"), true, self.key.as_ref())
            }
        })?;
        let mut deltas = Vec::new();
        let read = self.answer.chunk(&chunk, &self.head, self.key.as_ref(), &mut deltas);
        for delta in deltas {
            self.assembler
                .push(&delta)
                .map_err(|e| decode_error("stream chunk", &e.to_string(), false, self.key.as_ref()))?;
            self.out.push(delta);
        }
        read
    }

    fn fail(&mut self, error: ModelError) {
        self.out.fail(with_request_id(error, &self.head, self.key.as_ref()));
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

impl StreamDecoder for GeminiStream {
    fn feed(&mut self, chunk: &[u8]) {
        if self.out.failed() {
            return;
        }
        match &mut self.framing {
            Framing::Unknown(_) => self.frame(chunk),
            Framing::Sse(sse) => sse.feed(chunk),
            Framing::Array(array) => array.feed(chunk),
        }
    }

    fn end(&mut self) {
        self.ended = true;
        match &mut self.framing {
            Framing::Unknown(_) => {}
            Framing::Sse(sse) => sse.finish(),
            Framing::Array(array) => array.finish(),
        }
    }

    fn next_delta(&mut self) -> Option<Result<Delta, ModelError>> {
        self.pump();
        self.out.next()
    }

    fn partial(&self) -> Message {
        self.assembler.snapshot()
    }

    fn finish(mut self) -> Result<Response, ModelError> {
        self.end();
        // Parse what nobody drained: the response is the assembler's.
        self.out.discard();
        loop {
            self.pump();
            if !self.out.discard() {
                break;
            }
        }
        if let Some(error) = self.out.into_error() {
            return Err(error);
        }
        let missing = if self.answer.chunks == 0 {
            "the stream ended before its first chunk"
        } else if !self.answer.answered {
            let error = decode_error("stream", &no_candidates(None), false, self.key.as_ref());
            return Err(with_request_id(error, &self.head, self.key.as_ref()));
        } else if self.answer.finish.is_none() {
            "the stream ended before a candidate reported its finishReason"
        } else {
            let finish_reason = self.answer.finish_reason();
            return Ok(Response::new(self.assembler.finish())
                .with_usage(self.answer.usage)
                .with_finish_reason(finish_reason));
        };
        Err(with_request_id(ModelError::new(ModelErrorKind::Truncated, missing), &self.head, self.key.as_ref()))
    }
}

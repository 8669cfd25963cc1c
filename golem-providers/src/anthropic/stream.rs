//! Streamed Messages responses (SPEC PROV-ANT-06, STREAM-04..08).
//!
//! An SSE stream of typed events: `message_start` (usage so far),
//! `content_block_start` / `content_block_delta` / `content_block_stop`
//! (the blocks, through the same [`Answer`] as a plain response),
//! `message_delta` (stop reason; its usage overwrites), `message_stop`
//! (required), `ping` (ignored) and `error`. Each event's `data` carries
//! its own `type`, which is what is read; unknown event types are skipped,
//! as the API reserves the right to add them. Every delta passes the core
//! assembler before it is handed out, so the bounds hold and the response
//! from [`AnthropicStream::finish`] is exactly what the deltas assemble to
//! (STREAM-05, MODEL-04).
//!
//! A model call succeeds or fails as a unit: a stream that ends before
//! `message_stop` is `Truncated` (retryable), never a success. An
//! undecodable event is a retryable decode error, like a dropped
//! connection; an `error` event is the API's error, classified by its type
//! (overload, rate limit and API errors retryable).

use super::answer::Answer;
use super::status::in_band;
use super::FAMILY;
use crate::classify::{decode_error, with_request_id};
use crate::codec::StreamDecoder;
use crate::http::HttpResponseHead;
use crate::outbox::Outbox;
use crate::secret::Secret;
use crate::sse::{SseDecoder, SseError};
use golem_core::message::Message;
use golem_core::model::{Delta, ModelError, ModelErrorKind, Response};
use golem_core::stream::StreamAssembler;
use serde_json::Value;

/// The incremental decoder for one streamed Messages response.
///
/// ```
/// use golem_providers::anthropic::AnthropicStream;
/// use golem_providers::codec::StreamDecoder;
/// use golem_providers::http::HttpResponseHead;
///
/// let mut stream = AnthropicStream::new(&HttpResponseHead::new(200, vec![]), 1, None);
/// stream.feed(b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n");
/// stream.feed(b"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
/// stream.feed(b"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n");
/// assert_eq!(stream.next_delta().unwrap().unwrap(), golem_core::Delta::text("Hi"));
/// stream.feed(b"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n");
/// stream.feed(b"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n");
/// stream.feed(b"data: {\"type\":\"message_stop\"}\n\n");
/// stream.end();
/// let response = stream.finish().unwrap();
/// assert_eq!((response.message.content.as_str(), response.usage.input_tokens), ("Hi", 3));
/// ```
#[derive(Debug)]
pub struct AnthropicStream {
    sse: SseDecoder,
    answer: Answer,
    assembler: StreamAssembler,
    out: Outbox,
    ended: bool,
    head: HttpResponseHead,
    key: Option<Secret>,
}

impl AnthropicStream {
    /// A decoder for a 2xx streamed response with `head`; `turn` numbers
    /// synthesized call ids and `key` is scrubbed from errors.
    pub fn new(head: &HttpResponseHead, turn: usize, key: Option<Secret>) -> Self {
        AnthropicStream {
            sse: SseDecoder::new(),
            answer: Answer::new(turn),
            assembler: StreamAssembler::new().with_provider(FAMILY),
            out: Outbox::default(),
            ended: false,
            head: head.clone(),
            key,
        }
    }

    /// Decode events until a delta is queued, the input runs dry or the
    /// stream failed.
    fn pump(&mut self) {
        while self.out.wants_more() {
            let result = match self.sse.next() {
                None => return,
                Some(Ok(event)) => self.event(&event.data),
                Some(Err(error)) => Err(self.sse_error(&error)),
            };
            if let Err(error) = result {
                self.out.fail(with_request_id(error, &self.head, self.key.as_ref()));
            }
        }
    }

    /// An SSE failure. Invalid UTF-8 at the very end is a character cut in
    /// two: the stream was truncated, not garbled.
    fn sse_error(&self, error: &SseError) -> ModelError {
        match error {
            SseError::InvalidUtf8 { .. } if self.ended => {
                ModelError::new(ModelErrorKind::Truncated, "the stream ended inside a character of its last event")
            }
            SseError::InvalidUtf8 { .. } => decode_error("event stream", &error.to_string(), true, self.key.as_ref()),
            _ => decode_error("event stream", &error.to_string(), false, self.key.as_ref()),
        }
    }

    /// One event's data.
    fn event(&mut self, data: &str) -> Result<(), ModelError> {
        if data.trim().is_empty() || self.answer.stopped {
            return Ok(()); // keep-alive, or anything after the end
        }
        let key = self.key.as_ref();
        let event: Value = serde_json::from_str(data).map_err(|e| {
            // The decoder hands out an unterminated last event at the end
            // of the body: JSON cut short there is a cut stream.
            if e.is_eof() && self.ended {
                ModelError::new(ModelErrorKind::Truncated, "the stream ended inside its last event")
            } else {
                decode_error("stream event", &format!("invalid JSON: {e}"), true, key)
            }
        })?;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or_default();
        let index = || {
            event
                .get("index")
                .and_then(Value::as_u64)
                .ok_or_else(|| decode_error("stream event", &format!("{kind} without an index"), false, key))
        };
        let mut deltas = Vec::new();
        match kind {
            "message_start" => {
                self.answer.started = true;
                if let Some(usage) = event.pointer("/message/usage") {
                    self.answer.usage_from(usage);
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").filter(|b| b.is_object()).ok_or_else(|| {
                    decode_error("stream event", "content_block_start without a content_block", false, key)
                })?;
                self.answer.start(index()?, block, None, key, &mut deltas)?;
            }
            "content_block_delta" => {
                let delta = event
                    .get("delta")
                    .filter(|d| d.is_object())
                    .ok_or_else(|| decode_error("stream event", "content_block_delta without a delta", false, key))?;
                self.answer.delta(index()?, delta, key, &mut deltas)?;
            }
            "content_block_stop" => self.answer.stop(index()?, key, &mut deltas)?,
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.answer.stop_reason = Some(reason.to_string());
                }
                if let Some(usage) = event.get("usage") {
                    self.answer.usage_from(usage);
                }
            }
            "message_stop" => {
                // Blocks a lax server left open are complete by now.
                self.answer.stop_all(key, &mut deltas)?;
                self.answer.stopped = true;
            }
            "error" => {
                let error = event.get("error").cloned().unwrap_or(Value::Null);
                return Err(in_band(&self.head, &error, key));
            }
            _ => {} // ping, and event types added after this was written
        }
        for delta in deltas {
            self.assembler.push(&delta).map_err(|e| decode_error("stream event", &e.to_string(), false, key))?;
            self.out.push(delta);
        }
        Ok(())
    }
}

impl StreamDecoder for AnthropicStream {
    fn feed(&mut self, chunk: &[u8]) {
        if !self.out.failed() {
            self.sse.feed(chunk);
        }
    }

    fn end(&mut self) {
        self.ended = true;
        self.sse.finish();
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
        if !self.answer.stopped {
            let missing = if self.answer.started {
                "the stream ended before message_stop"
            } else {
                "the stream ended before message_start"
            };
            let error = ModelError::new(ModelErrorKind::Truncated, missing);
            return Err(with_request_id(error, &self.head, self.key.as_ref()));
        }
        let finish_reason = self.answer.finish_reason();
        Ok(Response::new(self.assembler.finish()).with_usage(self.answer.usage()).with_finish_reason(finish_reason))
    }
}

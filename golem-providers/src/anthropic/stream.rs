//! Streamed Messages responses (SPEC PROV-ANT-06, STREAM-04..08).
//!
//! An SSE stream of typed events: `message_start` (usage so far),
//! `content_block_start` / `content_block_delta` / `content_block_stop`
//! (the blocks, through the same [`Answer`] as a plain response),
//! `message_delta` (stop reason; its usage overwrites), `message_stop`
//! (required), `ping` (ignored) and `error`. Each event's `data` carries
//! its own `type`, which is what is read; unknown event types are skipped,
//! as the API reserves the right to add them. The bookkeeping — the core
//! assembler, the order of deltas and errors, the response at the end —
//! is the shared [`Stream`]'s (STREAM-05, MODEL-04).
//!
//! A model call succeeds or fails as a unit: a stream that ends before
//! `message_stop` is `Truncated` (retryable), never a success. An
//! undecodable event is a retryable decode error, like a dropped
//! connection; an `error` event is the API's error, classified by its type
//! (overload, rate limit and API errors retryable).

use super::answer::Answer;
use super::status::in_band;
use super::FAMILY;
use crate::classify::decode_error;
use crate::decoder::{invalid_json, Book, Outcome, Stream};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use crate::sse::SseDecoder;
use golem_core::model::{ModelError, ModelErrorKind};
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
pub type AnthropicStream = Stream<EventParser>;

impl AnthropicStream {
    /// A decoder for a 2xx streamed response with `head`; `turn` numbers
    /// synthesized call ids and `key` is scrubbed from errors.
    pub fn new(head: &HttpResponseHead, turn: usize, key: Option<Secret>) -> Self {
        let parser = EventParser { sse: SseDecoder::new(), answer: Answer::new(turn), key: key.clone() };
        Stream::with_parser(parser, Book::new(head, FAMILY, key))
    }
}

/// The Messages events of a stream.
#[derive(Debug)]
pub struct EventParser {
    sse: SseDecoder,
    answer: Answer,
    key: Option<Secret>,
}

crate::decoder::sse_events_parser!(EventParser);

impl EventParser {
    /// What the stream reported at its end, or why it is not a whole answer.
    fn finished(&self) -> Result<Outcome, ModelError> {
        if !self.answer.stopped {
            let missing = if self.answer.started {
                "the stream ended before message_stop"
            } else {
                "the stream ended before message_start"
            };
            return Err(ModelError::new(ModelErrorKind::Truncated, missing));
        }
        Ok(Outcome { usage: self.answer.usage(), finish_reason: self.answer.finish_reason() })
    }

    /// One event's data.
    fn event(&mut self, data: &str, book: &mut Book) -> Result<(), ModelError> {
        if data.trim().is_empty() || self.answer.stopped {
            return Ok(()); // keep-alive, or anything after the end
        }
        let key = self.key.as_ref();
        // The decoder hands out an unterminated last event at the end of
        // the body: JSON cut short there is a cut stream.
        let event: Value =
            serde_json::from_str(data).map_err(|e| invalid_json(&e, book.ended(), "stream event", "event"))?;
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
                self.answer.container_from(event.pointer("/message/container"));
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
                self.answer.container_from(event.pointer("/delta/container"));
            }
            "message_stop" => {
                // Blocks a lax server left open are complete by now.
                self.answer.stop_all(key, &mut deltas)?;
                self.answer.finish(&mut deltas);
                self.answer.stopped = true;
            }
            "error" => {
                let error = event.get("error").cloned().unwrap_or(Value::Null);
                return Err(in_band(book.head(), &error, key));
            }
            _ => {} // ping, and event types added after this was written
        }
        deltas.into_iter().try_for_each(|delta| book.emit(delta, "stream event"))
    }
}

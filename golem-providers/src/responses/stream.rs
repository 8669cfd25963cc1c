//! Streamed responses (SPEC PROV-RESP-03, STREAM-04..08).
//!
//! An SSE stream of typed events, each `data` naming its `type`:
//! `response.created` / `in_progress`, `response.output_item.added` /
//! `.done` (the items, through the same [`Items`] as a whole response),
//! `response.output_text.delta` and `response.refusal.delta` (text),
//! `response.function_call_arguments.delta` / `.done` (a call's
//! arguments), `response.reasoning_summary_text.delta` / `.done`
//! and `response.reasoning_text.delta` / `.done` (thinking), and one
//! terminal event: `response.completed` or
//! `response.incomplete` (usage, status, why it stopped short),
//! `response.failed` or `error` (the service's error, classified). The
//! events of the service's own tools (`web_search_call.*`,
//! `code_interpreter_call_code.delta`, annotations, …) and any type added
//! later are skipped: their items arrive whole in `output_item.done`.
//!
//! A model call succeeds or fails as a unit: a stream that ends before
//! its terminal event is `Truncated` (retryable), never a success; an
//! undecodable event is a retryable decode error, like a dropped
//! connection. The bookkeeping is the shared [`Stream`]'s.

use super::chain::Chain;
use super::error::in_band;
use super::items::{Items, Part};
use super::response::usage;
use super::FAMILY;
use crate::classify::decode_error;
use crate::decoder::{invalid_json, Book, Outcome, Stream};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use crate::sse::SseDecoder;
use golem_core::message::Message;
use golem_core::model::{ModelError, ModelErrorKind};
use serde_json::Value;
use std::sync::Arc;

/// The incremental decoder for one streamed Responses answer.
///
/// ```
/// use golem_providers::codec::StreamDecoder;
/// use golem_providers::http::HttpResponseHead;
/// use golem_providers::responses::ResponsesStream;
///
/// let mut stream = ResponsesStream::new(&HttpResponseHead::new(200, vec![]), 1, None);
/// stream.feed(b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Hi\"}\n\n");
/// assert_eq!(stream.next_delta().unwrap().unwrap(), golem_core::Delta::text("Hi"));
/// stream.feed(b"data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n");
/// stream.end();
/// let response = stream.finish().unwrap();
/// assert_eq!((response.message.content.as_str(), response.usage.input_tokens), ("Hi", 3));
/// ```
pub type ResponsesStream = Stream<EventParser>;

impl ResponsesStream {
    /// A decoder for a 2xx streamed response with `head`; `turn` numbers
    /// the ids of calls that came without one and `key` is scrubbed from
    /// errors.
    pub fn new(head: &HttpResponseHead, turn: usize, key: Option<Secret>) -> Self {
        let parser = EventParser {
            sse: SseDecoder::new(),
            items: Items::new(turn, key.clone()),
            key: key.clone(),
            outcome: None,
            remember: None,
        };
        Stream::with_parser(parser, Book::new(head, FAMILY, key))
    }

    /// This decoder telling `chain` of the answer to `history` once the
    /// stream completes it.
    pub(crate) fn remembering(mut self, chain: Chain, history: Arc<Vec<Message>>) -> Self {
        self.parser.remember = Some((chain, history));
        self
    }
}

/// The Responses events of a stream.
#[derive(Debug)]
pub struct EventParser {
    sse: SseDecoder,
    items: Items,
    key: Option<Secret>,
    /// Set by the terminal event.
    outcome: Option<Outcome>,
    /// Where to remember the answer, and the history it answers.
    remember: Option<(Chain, Arc<Vec<Message>>)>,
}

crate::decoder::sse_events_parser!(EventParser);

impl EventParser {
    /// What the stream reported at its end, or why it is not a whole answer.
    fn finished(&self) -> Result<Outcome, ModelError> {
        self.outcome
            .ok_or_else(|| ModelError::new(ModelErrorKind::Truncated, "the stream ended before response.completed"))
    }

    /// One event's data.
    fn event(&mut self, data: &str, book: &mut Book) -> Result<(), ModelError> {
        if data.trim().is_empty() || self.outcome.is_some() {
            return Ok(()); // keep-alive, or anything after the end
        }
        let key = self.key.as_ref();
        // The decoder hands out an unterminated last event at the end of
        // the body: JSON cut short there is a cut stream.
        let event: Value =
            serde_json::from_str(data).map_err(|e| invalid_json(&e, book.ended(), "stream event", "event"))?;
        let text = |field: &str| event.get(field).and_then(Value::as_str).unwrap_or_default();
        let index = |field: &str| {
            event.get(field).and_then(Value::as_u64).ok_or_else(|| {
                decode_error("stream event", &format!("{} without its {field}", text("type")), false, key)
            })
        };
        let item = || {
            event
                .get("item")
                .filter(|i| i.is_object())
                .ok_or_else(|| decode_error("stream event", &format!("{} without an item", text("type")), false, key))
        };
        let mut deltas = Vec::new();
        let out = &mut deltas;
        match text("type") {
            "response.output_item.added" => self.items.added(index("output_index")?, item()?, out)?,
            "response.output_item.done" => self.items.done(index("output_index")?, item()?, out)?,
            "response.output_text.delta" => self.items.text(index("output_index")?, text("delta"), false, out)?,
            "response.refusal.delta" => self.items.text(index("output_index")?, text("delta"), true, out)?,
            "response.function_call_arguments.delta" => {
                self.items.arguments(index("output_index")?, text("delta"), out)?
            }
            "response.function_call_arguments.done" => {
                self.items.arguments_done(index("output_index")?, text("arguments"), out)?
            }
            "response.reasoning_summary_text.delta" => {
                let part = Part::Summary(index("summary_index")?);
                self.items.reasoning_text(index("output_index")?, part, text("delta"), false, out)?
            }
            "response.reasoning_summary_text.done" => {
                let part = Part::Summary(index("summary_index")?);
                self.items.reasoning_text(index("output_index")?, part, text("text"), true, out)?
            }
            "response.reasoning_text.delta" => {
                let part = Part::Content(index("content_index")?);
                self.items.reasoning_text(index("output_index")?, part, text("delta"), false, out)?
            }
            "response.reasoning_text.done" => {
                let part = Part::Content(index("content_index")?);
                self.items.reasoning_text(index("output_index")?, part, text("text"), true, out)?
            }
            "response.completed" | "response.incomplete" => {
                let response = event.get("response").filter(|r| r.is_object()).ok_or_else(|| {
                    decode_error("stream event", &format!("{} without a response", text("type")), false, key)
                })?;
                self.items.close(response.get("output"), out)?;
                self.outcome = Some(Outcome {
                    usage: usage(response.get("usage")),
                    finish_reason: self.items.finish_reason(response),
                });
                deltas.into_iter().try_for_each(|delta| book.emit(delta, "stream event"))?;
                let id = response.get("id").and_then(Value::as_str);
                if let (Some((chain, history)), Some(id)) = (&self.remember, id) {
                    chain.remember(history, book.assembler.snapshot(), id);
                }
                return Ok(());
            }
            "response.failed" => {
                let response = event.get("response").unwrap_or(&Value::Null);
                return Err(in_band(book.head(), response, key));
            }
            "error" => return Err(in_band(book.head(), &event, key)),
            // A compatible server's error without a type: `{"error": {…}}`.
            "" if event.get("error").is_some_and(Value::is_object) => return Err(in_band(book.head(), &event, key)),
            _ => {} // lifecycle, content parts, service tools, annotations, later types
        }
        deltas.into_iter().try_for_each(|delta| book.emit(delta, "stream event"))
    }
}

//! Streamed responses (SPEC PROV-OAI-07, STREAM-04..08).
//!
//! Chunks arrive as SSE `data:` lines holding `chat.completion.chunk`
//! objects and end with `data: [DONE]`. Each chunk's first choice becomes
//! deltas: reasoning as thinking block 0, content and refusal as text, tool
//! calls keyed by their `index` (id and name on the first fragment,
//! arguments appended). Usage may come in any chunk (with `include_usage`,
//! in a last one with no choices). The bookkeeping is the shared
//! [`Stream`]'s: every delta passes the core assembler before it is handed
//! out, so the bounds (128 calls, index ≤ 1023) hold and the response at
//! the end is exactly what the deltas assemble to (SPEC STREAM-05,
//! MODEL-04).
//!
//! A model call succeeds or fails as a unit: a stream without `[DONE]` or
//! without a finish reason, or one whose body ends inside an event, is
//! `Truncated`; undecodable JSON or a corrupt
//! line is a retryable decode error, like a dropped connection; an
//! `{"error": …}` chunk is the provider's error, classified; a whole
//! stream (`[DONE]` arrived) without any choice is a fatal decode error,
//! as a plain reply without choices is (see [`crate::classify::decode_error`]).
//!
//! Each chunk is read through a strict typed view first (`chunk`), and
//! through a `serde_json::Value` only when it does not fit that view; the
//! two are checked to agree (issue 20).

use super::chunk::{self, Chunk, ChunkDelta};
use super::envelope::Content;
use super::error::{self, ErrorBody};
use super::ids::synthesized;
use super::meaning::{annotations, finish_reason_of};
use super::response::{arguments, content_texts, finish_reason, reasoning, usage};
use super::FAMILY;
use crate::classify::decode_error;
use crate::decoder::{Book, Outcome, Parser, Stream};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use crate::sse::{SseDecoder, SseError};
use golem_core::message::{FinishReason, Usage};
use golem_core::model::{Delta, ModelError, ModelErrorKind};
use serde_json::Value;

/// A tool call opened by the stream: its wire index, and whether any
/// argument text arrived (a call without any gets `{}` at the end).
#[derive(Debug)]
struct OpenCall {
    index: u32,
    id: String,
    has_args: bool,
}

/// The incremental decoder for one streamed Chat Completions response.
///
/// ```
/// use golem_providers::chat_completions::ChatStream;
/// use golem_providers::codec::StreamDecoder;
/// use golem_providers::http::HttpResponseHead;
///
/// let mut stream = ChatStream::new(&HttpResponseHead::new(200, vec![]), 1, None);
/// stream.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n");
/// assert_eq!(stream.next_delta().unwrap().unwrap(), golem_core::Delta::text("Hi"));
/// stream.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
/// stream.end();
/// while let Some(delta) = stream.next_delta() { delta.unwrap(); }
/// assert_eq!(stream.finish().unwrap().message.content, "Hi");
/// ```
pub type ChatStream = Stream<ChunkParser>;

impl ChatStream {
    /// A decoder for a 2xx streamed response with `head`; `turn` numbers
    /// synthesized call ids (see [`super::DecodeContext`]) and `key` is
    /// scrubbed from error messages.
    pub fn new(head: &HttpResponseHead, turn: usize, key: Option<Secret>) -> Self {
        let parser = ChunkParser {
            sse: SseDecoder::new(),
            calls: Vec::new(),
            usage: Usage::default(),
            finish_reason: None,
            refused: false,
            answered: false,
            done: false,
            turn,
            key: key.clone(),
            typed: true,
        };
        Stream::with_parser(parser, Book::new(head, FAMILY, key))
    }

    /// This decoder with every chunk decoded the lenient way, for the
    /// differential check of the typed view (`fuzzing::chat_stream`, which
    /// exists with the `openai` feature).
    #[cfg(feature = "openai")]
    pub(crate) fn lenient_only(mut self) -> Self {
        self.parser.typed = false;
        self
    }
}

/// The `chat.completion.chunk` events of a stream.
#[derive(Debug)]
pub struct ChunkParser {
    sse: SseDecoder,
    calls: Vec<OpenCall>,
    usage: Usage,
    finish_reason: Option<FinishReason>,
    refused: bool,
    /// A chunk carried the first choice.
    answered: bool,
    done: bool,
    turn: usize,
    key: Option<Secret>,
    /// Whether chunks try the typed view first (always, except where a
    /// test compares the two ways).
    typed: bool,
}

impl Parser for ChunkParser {
    fn feed(&mut self, chunk: &[u8]) {
        if !self.done {
            self.sse.feed(chunk);
        }
    }

    fn end(&mut self) {
        self.sse.finish();
    }

    fn step(&mut self, book: &mut Book) -> Option<Result<(), ModelError>> {
        if self.done {
            return None;
        }
        Some(match self.sse.next()? {
            Ok(event) => self.event(book, &event.data),
            Err(error) => {
                let retryable = matches!(error, SseError::InvalidUtf8 { .. });
                Err(decode_error("event stream", &error.to_string(), retryable, None))
            }
        })
    }

    fn outcome(&self) -> Result<Outcome, ModelError> {
        let missing = if !self.done {
            "the stream ended before its [DONE] marker"
        } else if !self.answered {
            // Finished, and no choice in it: the provider's answer, not a
            // cut — as a plain reply without choices (issue 32).
            return Err(decode_error("stream", "the response has no choices", false, None));
        } else if self.finish_reason.is_none() {
            "the stream ended without a finish reason"
        } else {
            let finish_reason =
                if self.refused { FinishReason::ContentFilter } else { self.finish_reason.unwrap_or_default() };
            return Ok(Outcome { usage: self.usage, finish_reason });
        };
        Err(ModelError::new(ModelErrorKind::Truncated, missing))
    }
}

impl ChunkParser {
    /// One SSE event's data.
    fn event(&mut self, book: &mut Book, data: &str) -> Result<(), ModelError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(()); // keep-alive
        }
        if data == "[DONE]" {
            self.done = true;
            self.normalize_empty_args(book);
            return Ok(());
        }
        // The typed view decodes a common chunk without a `Value` tree; a
        // chunk it does not fit goes the lenient way, which defines the meaning.
        if self.typed {
            if let Some(chunk) = chunk::parse(data) {
                return self.apply(book, chunk);
            }
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            if self.sse.ended_mid_event() && e.is_eof() {
                // The body ended inside this event, and its JSON with it: a
                // cut, not a corrupt chunk. A last event whose JSON is
                // whole but bad is corrupt all the same.
                return ModelError::new(ModelErrorKind::Truncated, "the stream ended in the middle of an event");
            }
            decode_error("stream chunk", &format!("invalid JSON: {e}"), true, self.key.as_ref())
        })?;
        if chunk.get("error").is_some() {
            let error = ErrorBody::from_value(&chunk).unwrap_or_default();
            return Err(error::in_band(book.head(), &error, self.key.as_ref()));
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = usage(u);
        }
        let choices = chunk.get("choices").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // The first choice wins (SPEC PROV-COMMON-03): with n > 1 chunks
        // interleave choices, so pick index 0 rather than position 0.
        let Some(choice) = choices.iter().find(|c| c.get("index").and_then(Value::as_u64).is_none_or(|i| i == 0))
        else {
            return Ok(());
        };
        self.answered = true;
        if let Some(delta) = choice.get("delta") {
            self.delta(book, delta)?;
        }
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(finish_reason(Some(reason)));
        }
        Ok(())
    }

    /// A chunk that fits the typed view, applied as [`Self::event`] applies
    /// its `Value`.
    fn apply(&mut self, book: &mut Book, chunk: Chunk) -> Result<(), ModelError> {
        if let Some(usage) = chunk.usage {
            self.usage = usage;
        }
        let Some(choice) = chunk.choice else {
            return Ok(());
        };
        self.answered = true;
        if let Some(delta) = choice.delta {
            self.apply_delta(book, delta)?;
        }
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(finish_reason_of(Some(&reason)));
        }
        Ok(())
    }

    /// A typed choice delta, applied as [`Self::delta`] applies its `Value`.
    fn apply_delta(&mut self, book: &mut Book, delta: ChunkDelta) -> Result<(), ModelError> {
        if let Some(text) = delta.reasoning {
            book.emit(
                Delta::Thinking { index: 0, text, signature: String::new(), redacted: String::new() },
                "stream chunk",
            )?;
        }
        let mut texts = Vec::new();
        Content::texts(delta.content, |t| texts.push(t));
        for text in texts {
            book.emit(Delta::Text { text }, "stream chunk")?;
        }
        if let Some(refusal) = delta.refusal.filter(|r| !r.is_empty()) {
            self.refused = true;
            book.emit(Delta::Text { text: refusal }, "stream chunk")?;
        }
        if let Some(part) = annotations(delta.annotations.as_ref()) {
            book.emit(part, "stream chunk")?;
        }
        let calls = delta.tool_calls.unwrap_or_default();
        let had_calls = !calls.is_empty();
        for call in calls {
            if call.kind.as_deref().is_some_and(|t| t != "function") {
                continue;
            }
            let id = call.id.unwrap_or_default();
            let index = call.index.unwrap_or_else(|| self.index_by_id(&id));
            let (name, args) = call.function.map(|f| (f.name, f.arguments)).unwrap_or_default();
            self.fragment(book, index, id, &name.unwrap_or_default(), args.unwrap_or_default())?;
        }
        if !had_calls {
            if let Some(function) = delta.function_call {
                let name = function.name.unwrap_or_default();
                self.fragment(book, 0, String::new(), &name, function.arguments.unwrap_or_default())?;
            }
        }
        Ok(())
    }

    /// One choice delta.
    fn delta(&mut self, book: &mut Book, delta: &Value) -> Result<(), ModelError> {
        if let Some(text) = reasoning(delta) {
            book.emit(
                Delta::Thinking { index: 0, text: text.to_string(), signature: String::new(), redacted: String::new() },
                "stream chunk",
            )?;
        }
        let mut texts = Vec::new();
        content_texts(delta.get("content"), |t| texts.push(t));
        for text in texts {
            book.emit(Delta::text(text), "stream chunk")?;
        }
        if let Some(refusal) = delta.get("refusal").and_then(Value::as_str).filter(|r| !r.is_empty()) {
            self.refused = true;
            book.emit(Delta::text(refusal), "stream chunk")?;
        }
        if let Some(part) = annotations(delta.get("annotations")) {
            book.emit(part, "stream chunk")?;
        }
        let calls = delta.get("tool_calls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for call in calls {
            if call.get("type").and_then(Value::as_str).is_some_and(|t| t != "function") {
                continue;
            }
            let index = self.call_index(call)?;
            self.tool_fragment(book, index, call.get("id"), call.get("function"))?;
        }
        if calls.is_empty() {
            if let Some(function) = delta.get("function_call").filter(|f| f.is_object()) {
                self.tool_fragment(book, 0, None, Some(function))?;
            }
        }
        Ok(())
    }

    /// The wire `index` of a tool-call fragment. Some compatible servers
    /// omit it; then a fragment with a new id opens the next call and any
    /// other continues the last one.
    fn call_index(&self, call: &Value) -> Result<u32, ModelError> {
        match call.get("index") {
            Some(Value::Number(n)) => n.as_u64().and_then(|i| u32::try_from(i).ok()).ok_or_else(|| {
                decode_error("stream chunk", &format!("invalid tool call index {n}"), false, self.key.as_ref())
            }),
            _ => Ok(self.index_by_id(call.get("id").and_then(Value::as_str).unwrap_or_default())),
        }
    }

    /// The index of a fragment without one: a new id opens the next call,
    /// anything else continues the last.
    fn index_by_id(&self, id: &str) -> u32 {
        match self.calls.last() {
            Some(last) if id.is_empty() || id == last.id => last.index,
            Some(_) => self.calls.iter().map(|c| c.index).max().unwrap_or(0).saturating_add(1),
            None => 0,
        }
    }

    fn tool_fragment(
        &mut self,
        book: &mut Book,
        index: u32,
        id: Option<&Value>,
        function: Option<&Value>,
    ) -> Result<(), ModelError> {
        let name = function.and_then(|f| f.get("name")).and_then(Value::as_str).unwrap_or_default();
        let args = arguments(function.and_then(|f| f.get("arguments")));
        let id = id.and_then(Value::as_str).unwrap_or_default().to_string();
        self.fragment(book, index, id, name, args)
    }

    /// One tool-call fragment, however it was decoded.
    fn fragment(
        &mut self,
        book: &mut Book,
        index: u32,
        mut id: String,
        name: &str,
        args: String,
    ) -> Result<(), ModelError> {
        let opened = self.calls.iter().position(|c| c.index == index);
        if opened.is_none() && id.is_empty() {
            // The first fragment is where the id belongs; a call without one
            // gets the deterministic id now, so deltas and response agree.
            id = synthesized(self.turn, self.calls.len() + 1);
        }
        let has_args = !args.is_empty();
        book.emit(
            Delta::ToolCall { index, id: id.clone(), name: name.to_string(), args, signature: String::new() },
            "stream chunk",
        )?;
        match opened {
            Some(at) => self.calls[at].has_args |= has_args,
            None => self.calls.push(OpenCall { index, id, has_args }),
        }
        Ok(())
    }

    /// Calls that never received argument text get `{}` (SPEC
    /// PROV-COMMON-03), as a last delta so the sink sees it too.
    fn normalize_empty_args(&mut self, book: &mut Book) {
        let empty: Vec<u32> = self.calls.iter().filter(|c| !c.has_args).map(|c| c.index).collect();
        for index in empty {
            let delta = Delta::ToolCall {
                index,
                id: String::new(),
                name: String::new(),
                args: "{}".to_string(),
                signature: String::new(),
            };
            // The slot exists already, so the assembler cannot refuse it.
            if book.emit(delta, "stream chunk").is_ok() {
                if let Some(call) = self.calls.iter_mut().find(|c| c.index == index) {
                    call.has_args = true;
                }
            }
        }
    }
}

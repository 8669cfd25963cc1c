//! ConverseStream responses (SPEC PROV-BR-05, STREAM-04..08, THINK-01).
//!
//! The body is a sequence of AWS event-stream frames
//! ([`crate::eventstream`]); each event frame's `:event-type` header names
//! its JSON payload: `messageStart`, `contentBlockStart` (a tool call's id
//! and name), `contentBlockDelta` (text, tool input, reasoning text,
//! signature, redacted content or a grounding citation),
//! `contentBlockStop`, `messageStop` (the stop reason — required) and
//! `metadata` (usage). Content blocks share
//! one index space; each index is mapped to its kind and ordinal on first
//! sight, so reasoning blocks and tool calls keep their own numbering and
//! a delta of the wrong kind for its index is a decode error.
//!
//! A model call succeeds or fails as a unit: an `:exception-type` frame is
//! the classified API error; a damaged frame or payload is a retryable
//! decode error, like a dropped connection; a body that ends inside a frame
//! or before `messageStop` is `Truncated` (retryable), never a success.

use super::builtin::{citations as citations_part, part as builtin_part, server_kind};
use super::response::{finish_reason, secrets, usage};
use super::FAMILY;
use crate::classify::{api_error, decode_error};
use crate::decoder::{Book, Outcome, Parser, Stream};
use crate::eventstream::{Frame, FrameDecoder, FrameError};
use crate::http::HttpResponseHead;
use crate::sigv4::Credentials;
use golem_core::builtin::ProviderPartKind;
use golem_core::message::{FinishReason, Usage};
use golem_core::model::{Delta, ModelError, ModelErrorKind};
use serde_json::Value;
use std::collections::BTreeMap;

/// The most content blocks one turn may open: the assembler's bounds for
/// thinking blocks and tool calls, plus as many text blocks.
const MAX_BLOCKS: usize = 3 * golem_core::stream::MAX_TOOL_CALLS;

/// What a content-block index holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Text,
    Reasoning(u32),
    Tool {
        ordinal: u32,
        has_args: bool,
    },
    /// A Nova system tool's call or result, kept whole at its stop.
    Server(ProviderPartKind),
    /// Grounding citations, one per `citation` delta, kept at the stop.
    Citations,
}

/// The incremental decoder for one ConverseStream response.
///
/// ```
/// use golem_providers::bedrock::ConverseStream;
/// use golem_providers::codec::StreamDecoder;
/// use golem_providers::eventstream::{encode_frame, Header, HeaderValue};
/// use golem_providers::http::HttpResponseHead;
///
/// let event = |kind: &str, payload: &str| {
///     let headers = vec![
///         Header { name: ":message-type".into(), value: HeaderValue::String("event".into()) },
///         Header { name: ":event-type".into(), value: HeaderValue::String(kind.into()) },
///     ];
///     encode_frame(&headers, payload.as_bytes())
/// };
/// let mut stream = ConverseStream::new(&HttpResponseHead::new(200, vec![]), 1, None);
/// stream.feed(&event("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"Hi"}}"#));
/// assert_eq!(stream.next_delta().unwrap().unwrap(), golem_core::Delta::text("Hi"));
/// stream.feed(&event("messageStop", r#"{"stopReason":"end_turn"}"#));
/// stream.end();
/// while let Some(delta) = stream.next_delta() { delta.unwrap(); }
/// assert_eq!(stream.finish().unwrap().message.content, "Hi");
/// ```
pub type ConverseStream = Stream<FrameParser>;

impl ConverseStream {
    /// A decoder for a 2xx streamed response with `head`; `turn` numbers
    /// synthesized call ids and `credentials` are scrubbed from errors.
    pub fn new(head: &HttpResponseHead, turn: usize, credentials: Option<Credentials>) -> Self {
        let parser = FrameParser {
            frames: FrameDecoder::new(),
            blocks: BTreeMap::new(),
            servers: BTreeMap::new(),
            citations: BTreeMap::new(),
            thinking: 0,
            calls: 0,
            usage: Usage::default(),
            finish_reason: None,
            turn,
        };
        Stream::with_parser(parser, Book::new(head, FAMILY, secrets(credentials.as_ref())))
    }
}

/// The event-stream frames of a ConverseStream response.
#[derive(Debug)]
pub struct FrameParser {
    frames: FrameDecoder,
    blocks: BTreeMap<u64, Block>,
    /// Open system-tool blocks: the start, the input text, the result items.
    servers: BTreeMap<u64, (Value, String, Vec<Value>)>,
    /// Open citation blocks' citations, in the order they came.
    citations: BTreeMap<u64, Vec<Value>>,
    thinking: u32,
    calls: u32,
    usage: Usage,
    finish_reason: Option<FinishReason>,
    turn: usize,
}

impl Parser for FrameParser {
    fn feed(&mut self, chunk: &[u8]) {
        self.frames.feed(chunk);
    }

    fn end(&mut self) {
        self.frames.finish();
    }

    fn step(&mut self, book: &mut Book) -> Option<Result<(), ModelError>> {
        Some(match self.frames.next_frame()? {
            Ok(frame) => self.frame(book, &frame),
            Err(FrameError::Truncated { buffered }) => {
                let what = format!("the stream ended inside an event-stream frame ({buffered} bytes of it arrived)");
                Err(ModelError::new(ModelErrorKind::Truncated, what))
            }
            Err(error) => Err(decode_error("event stream", &error.to_string(), true, None)),
        })
    }

    fn outcome(&self) -> Result<Outcome, ModelError> {
        match self.finish_reason {
            Some(finish_reason) => Ok(Outcome { usage: self.usage, finish_reason }),
            None => Err(ModelError::new(ModelErrorKind::Truncated, "the stream ended before its messageStop event")),
        }
    }
}

impl FrameParser {
    fn frame(&mut self, book: &mut Book, frame: &Frame) -> Result<(), ModelError> {
        match frame.string_header(":message-type").unwrap_or("event") {
            "event" => {
                let payload: Value = crate::codec::json::parse_json(&frame.payload).map_err(|e| {
                    decode_error("event stream", &format!("invalid JSON in an event payload: {e}"), true, None)
                })?;
                self.event(book, frame.string_header(":event-type").unwrap_or_default(), &payload)
            }
            "exception" => {
                let kind = frame.string_header(":exception-type").unwrap_or_default();
                let payload = serde_json::from_slice::<Value>(&frame.payload).unwrap_or(Value::Null);
                let message = payload
                    .get("message")
                    .or_else(|| payload.get("Message"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                Err(exception(book.head(), kind, message))
            }
            "error" => {
                let code = frame.string_header(":error-code").unwrap_or_default();
                let message = frame.string_header(":error-message").unwrap_or_default();
                Err(exception(book.head(), code, message))
            }
            // Other message types are not part of ConverseStream; skipping
            // keeps the decoder working if AWS adds one.
            _ => Ok(()),
        }
    }

    fn event(&mut self, book: &mut Book, kind: &str, payload: &Value) -> Result<(), ModelError> {
        match kind {
            "contentBlockStart" => {
                let index = block_index(payload)?;
                let start = payload.get("start").unwrap_or(&Value::Null);
                if let Some(kind) = server_kind(start) {
                    self.open(index, Block::Server(kind))?;
                    if self.blocks.get(&index) != Some(&Block::Server(kind)) {
                        return Err(mismatch(index, "a system tool block"));
                    }
                    self.servers.insert(index, (start.clone(), String::new(), Vec::new()));
                } else if let Some(tool) = payload.pointer("/start/toolUse") {
                    self.open(index, Block::Tool { ordinal: self.calls, has_args: false })?;
                    let Some(Block::Tool { ordinal, .. }) = self.blocks.get(&index).copied() else {
                        return Err(mismatch(index, "a tool call"));
                    };
                    let mut id = text(tool.get("toolUseId"));
                    if id.is_empty() {
                        id = super::call_id(self.turn, usize::try_from(ordinal).unwrap_or(usize::MAX) + 1);
                    }
                    let name = text(tool.get("name"));
                    book.emit(
                        Delta::ToolCall { index: ordinal, id, name, args: String::new(), signature: String::new() },
                        "event stream",
                    )?;
                }
                Ok(())
            }
            "contentBlockDelta" => {
                let index = block_index(payload)?;
                let delta = payload.get("delta").unwrap_or(&Value::Null);
                if let Some(piece) = delta.get("text").and_then(Value::as_str) {
                    self.open(index, Block::Text)?;
                    // A citations block may carry the text it supports.
                    if !matches!(self.blocks.get(&index), Some(Block::Text | Block::Citations)) {
                        return Err(mismatch(index, "text"));
                    }
                    if !piece.is_empty() {
                        book.emit(Delta::text(piece), "event stream")?;
                    }
                } else if let Some(citation) = delta.get("citation") {
                    self.open(index, Block::Citations)?;
                    if !matches!(self.blocks.get(&index), Some(Block::Text | Block::Citations)) {
                        return Err(mismatch(index, "a citation"));
                    }
                    // Each delta is one whole citation (as recorded), so the
                    // block's list is the plain response's `citations`.
                    self.citations.entry(index).or_default().push(citation.clone());
                } else if let Some((_, input, results)) = self.servers.get_mut(&index) {
                    // A system tool's input grows as text, its result as content items.
                    match (delta.pointer("/toolUse/input"), delta.get("toolResult")) {
                        (Some(Value::String(piece)), _) => input.push_str(piece),
                        (Some(other), _) if !other.is_null() => input.push_str(&other.to_string()),
                        (_, Some(Value::Array(items))) => results.extend(items.iter().cloned()),
                        _ => {}
                    }
                } else if let Some(input) = delta.pointer("/toolUse/input") {
                    let Some(Block::Tool { ordinal, has_args }) = self.blocks.get_mut(&index) else {
                        return Err(mismatch(index, "tool input"));
                    };
                    let args = match input {
                        Value::String(piece) => piece.clone(),
                        Value::Null => String::new(),
                        other => other.to_string(),
                    };
                    *has_args |= !args.is_empty();
                    let ordinal = *ordinal;
                    if !args.is_empty() {
                        book.emit(
                            Delta::ToolCall {
                                index: ordinal,
                                id: String::new(),
                                name: String::new(),
                                args,
                                signature: String::new(),
                            },
                            "event stream",
                        )?;
                    }
                } else if let Some(reasoning) = delta.get("reasoningContent") {
                    self.open(index, Block::Reasoning(self.thinking))?;
                    let Some(Block::Reasoning(ordinal)) = self.blocks.get(&index).copied() else {
                        return Err(mismatch(index, "reasoning"));
                    };
                    let delta = Delta::Thinking {
                        index: ordinal,
                        text: text(reasoning.get("text")),
                        signature: text(reasoning.get("signature")),
                        redacted: match reasoning.get("redactedContent") {
                            Some(Value::String(data)) => data.clone(),
                            _ => String::new(),
                        },
                    };
                    if delta
                        != (Delta::Thinking {
                            index: ordinal,
                            text: String::new(),
                            signature: String::new(),
                            redacted: String::new(),
                        })
                    {
                        book.emit(delta, "event stream")?;
                    }
                }
                // Client tool-result and image deltas carry nothing a golem
                // message holds (SPEC PROV-COMMON-03).
                Ok(())
            }
            "contentBlockStop" => {
                let index = block_index(payload)?;
                self.close_citations(book, index)?;
                self.close_server(book, index)?;
                self.close_tool(book, index)
            }
            "messageStop" => {
                let open: Vec<u64> = self.blocks.keys().copied().collect();
                for index in open {
                    self.close_citations(book, index)?;
                    self.close_server(book, index)?;
                    self.close_tool(book, index)?;
                }
                self.finish_reason = Some(finish_reason(payload.get("stopReason").and_then(Value::as_str)));
                Ok(())
            }
            "metadata" => {
                if let Some(reported) = payload.get("usage") {
                    self.usage = usage(reported);
                }
                Ok(())
            }
            // messageStart (the role is always assistant) and event types
            // added later.
            _ => Ok(()),
        }
    }

    /// Map `index` to `block` on first sight, within the bounds.
    fn open(&mut self, index: u64, block: Block) -> Result<(), ModelError> {
        if self.blocks.contains_key(&index) {
            return Ok(());
        }
        if self.blocks.len() >= MAX_BLOCKS {
            return Err(decode_error("event stream", &format!("more than {MAX_BLOCKS} content blocks"), false, None));
        }
        match block {
            Block::Reasoning(_) => self.thinking += 1,
            Block::Tool { .. } => self.calls += 1,
            Block::Text | Block::Server(_) | Block::Citations => {}
        }
        self.blocks.insert(index, block);
        Ok(())
    }

    /// A system tool's block, complete: its start with the input or the
    /// result content it grew, in the shape a whole response has — so both
    /// keep the same part.
    fn close_server(&mut self, book: &mut Book, index: u64) -> Result<(), ModelError> {
        let Some(Block::Server(kind)) = self.blocks.get(&index).copied() else {
            return Ok(());
        };
        let Some((mut start, input, results)) = self.servers.remove(&index) else {
            return Ok(()); // already closed
        };
        if let Some(tool) = start.get_mut("toolUse") {
            let input: Value = if input.trim().is_empty() {
                Value::Object(serde_json::Map::new())
            } else {
                serde_json::from_str(&input).map_err(|e| {
                    decode_error("event stream", &format!("a system tool's input is not JSON: {e}"), false, None)
                })?
            };
            tool["input"] = input;
        } else if let Some(result) = start.get_mut("toolResult") {
            result["content"] = Value::Array(results);
        }
        book.emit(builtin_part(kind, &start), "event stream")
    }

    /// A citations block, complete: the part a whole response's
    /// `citationsContent` block keeps, placed where the block stops.
    fn close_citations(&mut self, book: &mut Book, index: u64) -> Result<(), ModelError> {
        match self.citations.remove(&index).and_then(citations_part) {
            Some(part) => book.emit(part, "event stream"),
            None => Ok(()),
        }
    }

    /// A tool call that never received input gets `{}` (SPEC
    /// PROV-COMMON-03), as a last delta so the sink sees it too.
    fn close_tool(&mut self, book: &mut Book, index: u64) -> Result<(), ModelError> {
        if let Some(Block::Tool { ordinal, has_args }) = self.blocks.get_mut(&index) {
            if !*has_args {
                *has_args = true;
                let ordinal = *ordinal;
                book.emit(
                    Delta::ToolCall {
                        index: ordinal,
                        id: String::new(),
                        name: String::new(),
                        args: "{}".to_string(),
                        signature: String::new(),
                    },
                    "event stream",
                )?;
            }
        }
        Ok(())
    }
}

/// An in-stream exception as the API error its HTTP twin would be (SPEC
/// PROV-BR-05): status by type, retryable per PROV-COMMON-05.
fn exception(head: &HttpResponseHead, kind: &str, message: &str) -> ModelError {
    let status = exception_status(kind);
    let head = HttpResponseHead { status, ..head.clone() };
    let message = if message.is_empty() { format!("the stream reported {kind}") } else { message.to_string() };
    api_error(&head, &message, kind, None)
}

/// The HTTP status an in-stream exception stands for (SPEC PROV-BR-05):
/// the `httpStatusCode` botocore's model of the service gives its shape
/// (`bedrock-runtime` 2023-09-30), so an exception mid-stream is
/// classified as its twin over plain HTTP would be. `modelStreamErrorException`
/// is 424, a failed dependency the sender's request caused, not retried;
/// an exception added after this was written counts as a server fault.
pub fn exception_status(kind: &str) -> u16 {
    match kind.to_ascii_lowercase().as_str() {
        "throttlingexception" => 429,
        "modeltimeoutexception" => 408,
        "modelstreamerrorexception" => 424,
        "serviceunavailableexception" => 503,
        "validationexception" => 400,
        _ => 500, // internalServerException, and what comes next
    }
}

fn block_index(payload: &Value) -> Result<u64, ModelError> {
    payload.get("contentBlockIndex").and_then(Value::as_u64).ok_or_else(|| {
        decode_error("event stream", "a content-block event without a valid contentBlockIndex", false, None)
    })
}

fn mismatch(index: u64, what: &str) -> ModelError {
    decode_error(
        "event stream",
        &format!("{what} for content block {index}, which is not open as a block of that kind"),
        false,
        None,
    )
}

fn text(value: Option<&Value>) -> String {
    value.and_then(Value::as_str).unwrap_or_default().to_string()
}

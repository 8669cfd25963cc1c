//! From content blocks to deltas (SPEC PROV-ANT-05/06, THINK-01/05,
//! STREAM-05).
//!
//! A streamed answer announces each content block by its wire `index`
//! (`content_block_start`), grows it with deltas and closes it
//! (`content_block_stop`); a whole response is the same blocks, complete.
//! Both paths run this [`Answer`], so a plain and a streamed turn of the
//! same answer build the same message.
//!
//! Every wire index maps to a kind and an ordinal of that kind (THINK-05):
//! thinking and redacted_thinking blocks share one ordinal space (golem's
//! thinking-block index), tool_use blocks another (the call index), text
//! blocks are concatenated content, server tools' calls and results are
//! provider parts placed where they stood in the text. A delta for an
//! index never started, a second start of one index, or a delta of the
//! wrong kind is a decode error, never a panic or a silently misplaced
//! fragment. Blocks golem does not model (future kinds) are tracked so
//! their deltas are accepted, and skipped (PROV-COMMON-03).
//!
//! Text blocks that follow each other are joined as they are: citations
//! cut one sentence into several adjacent blocks, so any separator there
//! would corrupt it. Text that comes after another kind of block (a server
//! tool's call or result, a tool_use, thinking) while earlier text exists
//! starts a new paragraph: `"\n\n"` goes before its first non-empty
//! fragment, unless the text so far ends with whitespace or the fragment
//! starts with it. The separator is part of the content, so a provider
//! part's offset stands before it and the next turn replays it as text.

use super::builtin::{container_part, server_block};
use super::call_id;
use crate::classify::decode_error;
use crate::secret::Secret;
use golem_core::builtin::{ProviderPart, ProviderPartKind};
use golem_core::message::{FinishReason, Usage};
use golem_core::model::{Delta, ModelError};
use serde_json::Value;
use std::collections::BTreeMap;

/// The largest wire index accepted (SPEC STREAM-08: indexes bound what is
/// kept, they never size anything).
const MAX_WIRE_INDEX: u64 = 1023;

/// What goes between text and the text that follows another kind of block.
const PARAGRAPH: &str = "\n\n";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    Redacted,
    ToolUse,
    /// A server tool's call or result, kept whole (`builtin.rs`).
    Server(ProviderPartKind),
    Skipped,
}

#[derive(Debug)]
struct Block {
    kind: Kind,
    /// The golem index (thinking block or call), for the kinds that have one.
    ordinal: u32,
    /// A tool_use block got argument text.
    has_args: bool,
    /// The `input` of a tool_use start, used when no fragment follows.
    start_input: String,
    /// A server block as it started, and the input fragments of a call.
    server: Option<Value>,
    stopped: bool,
}

/// What the events or blocks of one answer said so far.
#[derive(Debug)]
pub(crate) struct Answer {
    turn: usize,
    blocks: BTreeMap<u64, Block>,
    thinking: u32,
    calls: u32,
    input: u64,
    cache_read: u64,
    cache_write: u64,
    output: u64,
    pub(crate) stop_reason: Option<String>,
    /// `message_start` was seen (a stream) or the body was a message.
    pub(crate) started: bool,
    /// `message_stop` was seen.
    pub(crate) stopped: bool,
    /// The text emitted so far, as far as the paragraph rule needs it.
    prose: Prose,
    /// The code-execution container the answer named (`builtin.rs`).
    container: Option<Value>,
}

/// The paragraph rule's memory (module docs).
#[derive(Debug, Default)]
struct Prose {
    /// Some text was emitted and its last character is not whitespace.
    ends_in_word: bool,
    /// A block of another kind started since the last text fragment.
    after_other: bool,
}

impl Prose {
    /// A block of another kind started.
    fn other_block(&mut self) {
        self.after_other = true;
    }

    /// A fragment of a text block, after the paragraph break when one is due.
    fn text(&mut self, fragment: &str, out: &mut Vec<Delta>) {
        let Some(last) = fragment.chars().next_back() else {
            return;
        };
        if std::mem::take(&mut self.after_other) && self.ends_in_word && !fragment.starts_with(char::is_whitespace) {
            out.push(Delta::text(PARAGRAPH));
        }
        self.ends_in_word = !last.is_whitespace();
        out.push(Delta::text(fragment));
    }
}

impl Answer {
    /// An answer to a request with `turn - 1` assistant messages.
    pub(crate) fn new(turn: usize) -> Self {
        Answer {
            turn,
            blocks: BTreeMap::new(),
            thinking: 0,
            calls: 0,
            input: 0,
            cache_read: 0,
            cache_write: 0,
            output: 0,
            stop_reason: None,
            started: false,
            stopped: false,
            prose: Prose::default(),
            container: None,
        }
    }

    /// The answer's `container` object, from a body, `message_start` or
    /// `message_delta`; the last one named wins.
    pub(crate) fn container_from(&mut self, container: Option<&Value>) {
        if let Some(container) = container.filter(|c| c.is_object()) {
            self.container = Some(container.clone());
        }
    }

    /// The end of the answer: its container, if it named one, as a part
    /// after all the text (a plain and a streamed answer place it alike).
    pub(crate) fn finish(&mut self, out: &mut Vec<Delta>) {
        if let Some(delta) = self.container.take().as_ref().and_then(container_part) {
            out.push(delta);
        }
    }

    /// Read a `usage` object; the fields it has overwrite what was known
    /// (message_delta's counts are cumulative, SPEC PROV-ANT-06).
    pub(crate) fn usage_from(&mut self, usage: &Value) {
        let field = |name: &str| usage.get(name).and_then(Value::as_u64);
        if let Some(n) = field("input_tokens") {
            self.input = n;
        }
        if let Some(n) = field("cache_read_input_tokens") {
            self.cache_read = n;
        }
        if let Some(n) = field("cache_creation_input_tokens") {
            self.cache_write = n;
        }
        if let Some(n) = field("output_tokens") {
            self.output = n;
        }
    }

    /// The usage in golem's convention (SPEC USAGE-02): cached tokens,
    /// read and written, are part of the input.
    pub(crate) fn usage(&self) -> Usage {
        let input = self.input.saturating_add(self.cache_read).saturating_add(self.cache_write);
        Usage::new(input, self.output).with_cache_read_tokens(self.cache_read).with_cache_write_tokens(self.cache_write)
    }

    /// The finish reason (SPEC PROV-ANT-05).
    pub(crate) fn finish_reason(&self) -> FinishReason {
        finish_reason(self.stop_reason.as_deref())
    }

    /// `content_block_start`, or a whole block of a plain response.
    /// `raw_input` is the exact text of a tool_use `input` when known.
    pub(crate) fn start(
        &mut self,
        index: u64,
        block: &Value,
        raw_input: Option<&str>,
        key: Option<&Secret>,
        out: &mut Vec<Delta>,
    ) -> Result<(), ModelError> {
        if index > MAX_WIRE_INDEX {
            return Err(protocol(&format!("content block index {index} is beyond {MAX_WIRE_INDEX}"), key));
        }
        if self.blocks.contains_key(&index) {
            return Err(protocol(&format!("content block {index} started twice"), key));
        }
        let text = |field: &str| block.get(field).and_then(Value::as_str).unwrap_or_default();
        let kind = match text("type") {
            "text" => Kind::Text,
            "thinking" => Kind::Thinking,
            "redacted_thinking" => Kind::Redacted,
            "tool_use" => Kind::ToolUse,
            other => server_block(other).map_or(Kind::Skipped, Kind::Server),
        };
        let ordinal = match kind {
            Kind::Thinking | Kind::Redacted => bump(&mut self.thinking),
            Kind::ToolUse => bump(&mut self.calls),
            Kind::Text | Kind::Server(_) | Kind::Skipped => 0,
        };
        let mut entry =
            Block { kind, ordinal, has_args: false, start_input: String::new(), server: None, stopped: false };
        if kind != Kind::Text {
            self.prose.other_block();
        }
        match kind {
            Kind::Text => self.prose.text(text("text"), out),
            Kind::Thinking => {
                if !text("thinking").is_empty() || !text("signature").is_empty() {
                    out.push(thinking(ordinal, text("thinking"), text("signature"), ""));
                }
            }
            Kind::Redacted => out.push(thinking(ordinal, "", "", text("data"))),
            Kind::ToolUse => {
                let id = match text("id") {
                    "" => call_id(self.turn, usize::try_from(ordinal).unwrap_or(usize::MAX).saturating_add(1)),
                    id => id.to_string(),
                };
                entry.start_input = match (raw_input, block.get("input")) {
                    (Some(raw), _) if raw.trim() != "null" => raw.to_string(),
                    (Some(_), _) => String::new(),
                    (None, Some(input)) if !input.is_null() => input.to_string(),
                    _ => String::new(),
                };
                out.push(Delta::ToolCall {
                    index: ordinal,
                    id,
                    name: text("name").to_string(),
                    args: String::new(),
                    signature: String::new(),
                });
            }
            Kind::Server(_) => entry.server = Some(block.clone()),
            Kind::Skipped => {}
        }
        self.blocks.insert(index, entry);
        Ok(())
    }

    /// `content_block_delta`.
    pub(crate) fn delta(
        &mut self,
        index: u64,
        delta: &Value,
        key: Option<&Secret>,
        out: &mut Vec<Delta>,
    ) -> Result<(), ModelError> {
        let Some(block) = self.blocks.get_mut(&index) else {
            return Err(protocol(&format!("a delta for content block {index}, which was never started"), key));
        };
        if block.stopped {
            return Err(protocol(&format!("a delta for content block {index} after it stopped"), key));
        }
        let text = |field: &str| delta.get(field).and_then(Value::as_str);
        let kind = text("type").unwrap_or_default();
        match (block.kind, kind) {
            (Kind::Skipped, _) => {}
            (Kind::Server(ProviderPartKind::Call), "input_json_delta") => {
                block.start_input.push_str(text("partial_json").unwrap_or_default());
                block.has_args = true;
            }
            // Citations annotate the text they arrive with; golem keeps the text.
            (Kind::Text, "text_delta") => self.prose.text(text("text").unwrap_or_default(), out),
            (Kind::Text, "citations_delta") => {}
            (Kind::Thinking, "thinking_delta") => {
                let fragment = text("thinking").unwrap_or_default();
                if !fragment.is_empty() {
                    out.push(thinking(block.ordinal, fragment, "", ""));
                }
            }
            (Kind::Thinking, "signature_delta") => {
                let signature = text("signature").unwrap_or_default();
                if !signature.is_empty() {
                    out.push(thinking(block.ordinal, "", signature, ""));
                }
            }
            (Kind::ToolUse, "input_json_delta") => {
                let fragment = text("partial_json").unwrap_or_default();
                if !fragment.is_empty() {
                    block.has_args = true;
                    out.push(Delta::ToolCall {
                        index: block.ordinal,
                        id: String::new(),
                        name: String::new(),
                        args: fragment.to_string(),
                        signature: String::new(),
                    });
                }
            }
            (kind_of_block, kind) => {
                return Err(protocol(
                    &format!("a {kind:?} delta for content block {index}, a {} block", kind_name(kind_of_block)),
                    key,
                ))
            }
        }
        Ok(())
    }

    /// `content_block_stop`: a tool call that got no argument text takes
    /// its start's `input`, else `{}` (SPEC HIST-06) — so a call streamed
    /// without fragments and the same call in a plain response agree.
    pub(crate) fn stop(&mut self, index: u64, key: Option<&Secret>, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        let Some(block) = self.blocks.get_mut(&index) else {
            return Err(protocol(&format!("content block {index} stopped without a start"), key));
        };
        if block.stopped {
            return Err(protocol(&format!("content block {index} stopped twice"), key));
        }
        block.stopped = true;
        if let (Kind::Server(kind), Some(start)) = (block.kind, block.server.take()) {
            let input = block.has_args.then(|| std::mem::take(&mut block.start_input));
            out.push(server_part(kind, start, input.as_deref(), key)?);
            return Ok(());
        }
        if block.kind == Kind::ToolUse && !block.has_args {
            let input = std::mem::take(&mut block.start_input);
            let args = if input.is_empty() { "{}".to_string() } else { input };
            block.has_args = true;
            out.push(Delta::ToolCall {
                index: block.ordinal,
                id: String::new(),
                name: String::new(),
                args,
                signature: String::new(),
            });
        }
        Ok(())
    }

    /// Close every block still open (a plain response, or a stream that
    /// ended its message without stopping them).
    pub(crate) fn stop_all(&mut self, key: Option<&Secret>, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        let open: Vec<u64> = self.blocks.iter().filter(|(_, b)| !b.stopped).map(|(i, _)| *i).collect();
        for index in open {
            self.stop(index, key, out)?;
        }
        Ok(())
    }
}

/// stop_reason → finish reason (SPEC PROV-ANT-05); absent → unknown.
///
/// ```
/// use golem_providers::anthropic::finish_reason;
/// use golem_core::FinishReason;
///
/// assert_eq!(finish_reason(Some("end_turn")), FinishReason::Stop);
/// assert_eq!(finish_reason(Some("tool_use")), FinishReason::ToolCall);
/// assert_eq!(finish_reason(Some("pause_turn")), FinishReason::Other);
/// ```
pub fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolCall,
        Some("refusal") => FinishReason::ContentFilter,
        Some(_) => FinishReason::Other,
        None => FinishReason::Unknown,
    }
}

/// A finished server block as a provider part. A streamed call's input
/// arrives as fragments after a start with an empty `input`; they replace
/// it. Both paths store the block's compact JSON, so a plain and a streamed
/// answer keep the same bytes — the ones replayed next turn.
fn server_part(
    kind: ProviderPartKind,
    mut block: Value,
    input: Option<&str>,
    key: Option<&Secret>,
) -> Result<Delta, ModelError> {
    if let Some(input) = input.filter(|i| !i.trim().is_empty()) {
        let input: Value = serde_json::from_str(input)
            .map_err(|e| protocol(&format!("a server tool call's input is not JSON: {e}"), key))?;
        block["input"] = input;
    }
    let text = |field: &str| block.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
    let id = match kind {
        ProviderPartKind::Call => text("id"),
        _ => text("tool_use_id"),
    };
    let name = match kind {
        ProviderPartKind::Call => text("name"),
        _ => text("type"),
    };
    let part = ProviderPart::new(super::FAMILY, kind, block.to_string()).with_id(id).with_name(name);
    Ok(Delta::Provider { part })
}

fn bump(counter: &mut u32) -> u32 {
    let n = *counter;
    *counter = counter.saturating_add(1);
    n
}

fn thinking(index: u32, text: &str, signature: &str, redacted: &str) -> Delta {
    Delta::Thinking { index, text: text.to_string(), signature: signature.to_string(), redacted: redacted.to_string() }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "text",
        Kind::Thinking => "thinking",
        Kind::Redacted => "redacted_thinking",
        Kind::ToolUse => "tool_use",
        Kind::Server(_) => "server tool",
        Kind::Skipped => "skipped",
    }
}

/// A stream or body that breaks the protocol's block rules: well-formed
/// JSON a new attempt would not fix.
fn protocol(detail: &str, key: Option<&Secret>) -> ModelError {
    decode_error("content blocks", detail, false, key)
}

//! From output items to deltas, for whole responses and streams alike.
//!
//! A Responses answer is a list of typed output items, each at its
//! `output_index`: `message` (the answer text), `function_call`,
//! `reasoning`, and the items of the service's own tools
//! (`web_search_call`, `file_search_call`, `code_interpreter_call`, …). A
//! stream announces each item (`output_item.added`), grows it with deltas
//! and closes it whole (`output_item.done`); a plain response is the
//! closed items. Both run through these [`Items`], so a plain and a
//! streamed turn of one answer build the same message.
//!
//! How golem's message carries them:
//!
//! - `message` → the text (a `refusal` too, and the turn finishes as
//!   filtered);
//! - `function_call` → a tool call: `call_id` is its id;
//! - `reasoning` → one thinking block per summary part, its text the
//!   part's. The item itself — its `id`, its `encrypted_content`, all but
//!   the summary — is kept as the first block's `signature` (as compact
//!   JSON, see [`reasoning_token`]), or as a `redacted` block when the
//!   summary is empty, and goes back to the API as it came
//!   (`request.rs`). A reasoning item with neither an id nor encrypted
//!   content can go nowhere: its summary is shown and never sent back.
//!   An item without a summary but with `reasoning_text` content (open
//!   models on compatible servers) shows that text instead; the content
//!   travels in the kept item, so those texts never go back as a summary.
//! - any other item (the service's tools) → a provider part holding the
//!   whole item, and a `message` item is kept whole too, as a metadata
//!   part after its text (see `builtin.rs`): replayed in their place to
//!   this family only, the API wanting the output back in its order.
//!
//! An item announced twice, a delta for an item of another kind, indexes
//! beyond their bound: decode errors, never a panic or a misplaced
//! fragment.

use super::builtin::{message_part, tool_part};
use crate::chat_completions::ids::synthesized;
use crate::classify::decode_error;
use crate::secret::Secret;
use golem_core::message::FinishReason;
use golem_core::model::{Delta, ModelError};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The largest output or summary index accepted (SPEC STREAM-08).
const MAX_INDEX: u64 = 1023;

#[derive(Debug)]
enum Slot {
    Message {
        has_text: bool,
        done: bool,
    },
    Call {
        index: u32,
        has_args: bool,
        done: bool,
    },
    /// Summary or content part → the thinking block holding it.
    Reasoning {
        parts: BTreeMap<Part, u32>,
        done: bool,
    },
    Other {
        done: bool,
    },
}

impl Slot {
    fn done(&self) -> bool {
        match self {
            Slot::Message { done, .. }
            | Slot::Call { done, .. }
            | Slot::Reasoning { done, .. }
            | Slot::Other { done } => *done,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Slot::Message { .. } => "message",
            Slot::Call { .. } => "function_call",
            Slot::Reasoning { .. } => "reasoning",
            Slot::Other { .. } => "tool",
        }
    }
}

/// A text part of a reasoning item: of its summary, or of its content
/// (`reasoning_text`), by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Part {
    Summary(u64),
    Content(u64),
}

/// What the items of one answer said so far.
#[derive(Debug)]
pub(crate) struct Items {
    turn: usize,
    slots: BTreeMap<u64, Slot>,
    blocks: u32,
    calls: u32,
    refused: bool,
    key: Option<Secret>,
}

impl Items {
    /// The items of an answer to a request with `turn - 1` assistant
    /// messages; `key` is scrubbed from errors.
    pub(crate) fn new(turn: usize, key: Option<Secret>) -> Self {
        Items { turn, slots: BTreeMap::new(), blocks: 0, calls: 0, refused: false, key }
    }

    /// `output_item.added`: the item opens; a call's id and name go out.
    pub(crate) fn added(&mut self, at: u64, item: &Value, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        self.bound("output", at)?;
        if self.slots.contains_key(&at) {
            return Err(self.protocol(&format!("output item {at} added twice")));
        }
        let slot = match text(item, "type") {
            "message" => Slot::Message { has_text: false, done: false },
            "function_call" => {
                let index = self.calls;
                self.calls = self.calls.saturating_add(1);
                let id = match text(item, "call_id") {
                    "" => synthesized(self.turn, usize::try_from(index).unwrap_or(usize::MAX).saturating_add(1)),
                    id => id.to_string(),
                };
                out.push(call(index, id, text(item, "name").to_string(), String::new()));
                Slot::Call { index, has_args: false, done: false }
            }
            "reasoning" => Slot::Reasoning { parts: BTreeMap::new(), done: false },
            _ => Slot::Other { done: false },
        };
        self.slots.insert(at, slot);
        Ok(())
    }

    /// `output_text.delta` (or `refusal.delta`, `refusal` true).
    pub(crate) fn text(&mut self, at: u64, delta: &str, refusal: bool, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        self.open_lazily(at, "message")?;
        match self.slots.get_mut(&at) {
            Some(Slot::Message { has_text, done: false }) => {
                *has_text = true;
                self.refused |= refusal;
                if !delta.is_empty() {
                    out.push(Delta::text(delta));
                }
                Ok(())
            }
            other => {
                let kind = other.map(|slot| slot.kind());
                Err(self.misplaced(at, "text", kind))
            }
        }
    }

    /// `function_call_arguments.delta`.
    pub(crate) fn arguments(&mut self, at: u64, delta: &str, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        match self.slots.get_mut(&at) {
            Some(Slot::Call { index, has_args, done: false }) => {
                if !delta.is_empty() {
                    *has_args = true;
                    out.push(call(*index, String::new(), String::new(), delta.to_string()));
                }
                Ok(())
            }
            other => {
                let kind = other.map(|slot| slot.kind());
                Err(self.misplaced(at, "arguments", kind))
            }
        }
    }

    /// `function_call_arguments.done`: the whole arguments, used when no
    /// fragment came.
    pub(crate) fn arguments_done(&mut self, at: u64, whole: &str, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        match self.slots.get_mut(&at) {
            Some(Slot::Call { has_args: true, .. }) => Ok(()),
            Some(Slot::Call { .. }) => self.arguments(at, whole, out),
            other => {
                let kind = other.map(|slot| slot.kind());
                Err(self.misplaced(at, "arguments", kind))
            }
        }
    }

    /// `reasoning_summary_text.delta` or `reasoning_text.delta` (`whole`:
    /// a `.done` text, used only when no fragment of that part came).
    pub(crate) fn reasoning_text(
        &mut self,
        at: u64,
        part: Part,
        delta: &str,
        whole: bool,
        out: &mut Vec<Delta>,
    ) -> Result<(), ModelError> {
        let (Part::Summary(index) | Part::Content(index)) = part;
        self.bound("reasoning part", index)?;
        self.open_lazily(at, "reasoning")?;
        let next = self.blocks;
        let opened = match self.slots.get_mut(&at) {
            Some(Slot::Reasoning { parts, done: false }) => {
                if delta.is_empty() || (whole && parts.contains_key(&part)) {
                    return Ok(());
                }
                let opened = !parts.contains_key(&part);
                let block = *parts.entry(part).or_insert(next);
                out.push(thinking(block, delta.to_string(), String::new(), String::new()));
                opened
            }
            other => {
                let kind = other.map(|slot| slot.kind());
                return Err(self.misplaced(at, "reasoning text", kind));
            }
        };
        if opened {
            self.blocks = self.blocks.saturating_add(1);
        }
        Ok(())
    }

    /// `output_item.done`, or an item of a whole response: what no delta
    /// said yet, and the item itself where it is kept.
    pub(crate) fn done(&mut self, at: u64, item: &Value, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        if !self.slots.contains_key(&at) {
            self.added(at, item, out)?;
        }
        // What is still to say, read before anything is said.
        let (message_text, call_args, reasoning) = match self.slots.get(&at) {
            Some(slot) if slot.done() => return Err(self.protocol(&format!("output item {at} done twice"))),
            Some(Slot::Message { has_text, .. }) => (!has_text, false, false),
            Some(Slot::Call { has_args, .. }) => (false, !has_args, false),
            Some(Slot::Reasoning { .. }) => (false, false, true),
            Some(Slot::Other { .. }) | None => (false, false, false),
        };
        if message_text {
            for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                match text(part, "type") {
                    "output_text" => self.text(at, text(part, "text"), false, out)?,
                    "refusal" => self.text(at, text(part, "refusal"), true, out)?,
                    _ => {}
                }
            }
        } else if call_args {
            let args = match text(item, "arguments") {
                "" => "{}",
                args => args,
            };
            self.arguments(at, args, out)?;
        } else if reasoning {
            self.reasoning_done(at, item, out)?;
        }
        // The whole item, where it is kept: after its text, after the
        // thinking blocks before it (`builtin.rs`).
        match self.slots.get(&at) {
            Some(Slot::Message { .. }) if item.is_object() => out.push(message_part(item, self.blocks)),
            Some(Slot::Other { .. }) => out.push(tool_part(item, self.blocks)),
            _ => {}
        }
        if let Some(slot) = self.slots.get_mut(&at) {
            match slot {
                Slot::Message { done, .. }
                | Slot::Call { done, .. }
                | Slot::Reasoning { done, .. }
                | Slot::Other { done } => *done = true,
            }
        }
        Ok(())
    }

    /// The whole response at the end of a stream: items no `done` event
    /// closed (a lax server) are taken from its `output`, and calls still
    /// without arguments get `{}` (SPEC HIST-06).
    pub(crate) fn close(&mut self, output: Option<&Value>, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        for (at, item) in output.and_then(Value::as_array).into_iter().flatten().enumerate() {
            let at = u64::try_from(at).unwrap_or(u64::MAX);
            if !self.slots.get(&at).is_some_and(Slot::done) {
                self.done(at, item, out)?;
            }
        }
        for slot in self.slots.values_mut() {
            if let Slot::Call { index, has_args: has_args @ false, .. } = slot {
                *has_args = true;
                out.push(call(*index, String::new(), String::new(), "{}".into()));
            }
        }
        Ok(())
    }

    /// Why the model stopped, from the response's `status` and
    /// `incomplete_details` (a `failed` response is an error, read
    /// before).
    pub(crate) fn finish_reason(&self, response: &Value) -> FinishReason {
        let called = self.slots.values().any(|s| matches!(s, Slot::Call { .. }));
        match response.get("status").and_then(Value::as_str) {
            Some("completed") | None if self.refused => FinishReason::ContentFilter,
            Some("completed") | None if called => FinishReason::ToolCall,
            Some("completed") | None => FinishReason::Stop,
            Some("incomplete") => match response.pointer("/incomplete_details/reason").and_then(Value::as_str) {
                Some("max_output_tokens") => FinishReason::Length,
                Some("content_filter") => FinishReason::ContentFilter,
                _ => FinishReason::Other,
            },
            Some(_) => FinishReason::Other,
        }
    }

    /// A reasoning item closed: text parts no delta carried (its summary,
    /// else its `reasoning_text` content), then the item itself, on the
    /// first part's block or a block of its own.
    fn reasoning_done(&mut self, at: u64, item: &Value, out: &mut Vec<Delta>) -> Result<(), ModelError> {
        let parts = |field: &str| item.get(field).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let numbered = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        if has_summary(item) {
            for (n, entry) in parts("summary").iter().enumerate() {
                self.reasoning_text(at, Part::Summary(numbered(n)), text(entry, "text"), true, out)?;
            }
        } else {
            for (n, entry) in parts("content").iter().enumerate().filter(|(_, e)| text(e, "type") == "reasoning_text") {
                self.reasoning_text(at, Part::Content(numbered(n)), text(entry, "text"), true, out)?;
            }
        }
        let Some(token) = reasoning_token(item) else {
            return Ok(());
        };
        let first = match self.slots.get(&at) {
            Some(Slot::Reasoning { parts, .. }) => parts.values().min().copied(),
            _ => None,
        };
        match first {
            Some(block) => out.push(thinking(block, String::new(), token, String::new())),
            None => {
                let block = self.block();
                out.push(thinking(block, String::new(), String::new(), token));
            }
        }
        Ok(())
    }

    /// A delta for an item never announced opens it as `kind` (servers
    /// that skip `output_item.added` for text and reasoning).
    fn open_lazily(&mut self, at: u64, kind: &str) -> Result<(), ModelError> {
        self.bound("output", at)?;
        self.slots.entry(at).or_insert_with(|| match kind {
            "message" => Slot::Message { has_text: false, done: false },
            _ => Slot::Reasoning { parts: BTreeMap::new(), done: false },
        });
        Ok(())
    }

    fn block(&mut self) -> u32 {
        let index = self.blocks;
        self.blocks = self.blocks.saturating_add(1);
        index
    }

    fn bound(&self, what: &str, index: u64) -> Result<(), ModelError> {
        if index > MAX_INDEX {
            return Err(self.protocol(&format!("{what} index {index} is beyond {MAX_INDEX}")));
        }
        Ok(())
    }

    fn misplaced(&self, at: u64, what: &str, kind: Option<&str>) -> ModelError {
        match kind {
            Some(kind) => self.protocol(&format!("{what} for output item {at}, a {kind} item or one already done")),
            None => self.protocol(&format!("{what} for output item {at}, which was never added")),
        }
    }

    /// Well-formed JSON that breaks the item rules: a new attempt would
    /// not fix it.
    fn protocol(&self, detail: &str) -> ModelError {
        decode_error("output items", detail, false, self.key.as_ref())
    }
}

/// What a thinking block keeps of a reasoning item: the item without its
/// summary (which the blocks' texts hold), as compact JSON — with an empty
/// summary kept as it is, so that texts shown from its content never go
/// back as a summary — or `None` when it has neither an `id` nor
/// `encrypted_content`, and so cannot be sent back.
///
/// ```
/// use golem_providers::responses::reasoning_token;
/// use serde_json::json;
///
/// let item = json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA",
///                   "summary": [{"type": "summary_text", "text": "**Plan**"}]});
/// assert_eq!(reasoning_token(&item).unwrap(), r#"{"encrypted_content":"gAAA","id":"rs_1","type":"reasoning"}"#);
/// assert_eq!(reasoning_token(&json!({"type": "reasoning", "summary": []})), None);
/// let open_model = json!({"type": "reasoning", "id": "rs_2", "summary": [],
///                         "content": [{"type": "reasoning_text", "text": "Think."}]});
/// assert_eq!(reasoning_token(&open_model).unwrap(),
///            r#"{"content":[{"text":"Think.","type":"reasoning_text"}],"id":"rs_2","summary":[],"type":"reasoning"}"#);
/// ```
pub fn reasoning_token(item: &Value) -> Option<String> {
    let mut fields: Map<String, Value> = item.as_object()?.clone();
    let kept = |name: &str| fields.get(name).and_then(Value::as_str).is_some_and(|v| !v.is_empty());
    if !kept("id") && !kept("encrypted_content") {
        return None;
    }
    if has_summary(item) {
        fields.remove("summary");
    } else {
        fields.insert("summary".into(), Value::Array(Vec::new()));
    }
    Some(compact(Value::Object(fields)))
}

/// True when a reasoning item has summary text.
fn has_summary(item: &Value) -> bool {
    item.get("summary").and_then(Value::as_array).is_some_and(|parts| parts.iter().any(|p| !text(p, "text").is_empty()))
}

fn compact(value: Value) -> String {
    value.to_string()
}

fn text<'v>(value: &'v Value, field: &str) -> &'v str {
    value.get(field).and_then(Value::as_str).unwrap_or_default()
}

fn call(index: u32, id: String, name: String, args: String) -> Delta {
    Delta::ToolCall { index, id, name, args, signature: String::new() }
}

fn thinking(index: u32, text: String, signature: String, redacted: String) -> Delta {
    Delta::Thinking { index, text, signature, redacted }
}

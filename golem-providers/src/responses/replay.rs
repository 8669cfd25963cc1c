//! An assistant turn of golem's history as Responses input items: the
//! reasoning, service-tool and message items it carries, its text, its
//! calls.
//!
//! The thinking blocks this family decoded (see `items.rs`) hold each
//! reasoning item as it came — the item without its summary in the first
//! block's `signature` (or a `redacted` block when the summary was empty),
//! its summary parts in the blocks' texts — and its provider parts hold
//! the service-tool items and the `message` items whole (`builtin.rs`),
//! each noting how many thinking blocks came before it. They go back in
//! that order, the reasoning with its `id` and `encrypted_content` byte
//! for byte and its summary part by part: the model picks up its
//! reasoning where it left it, and each reasoning item is followed by the
//! item it led to. A kept `message` item goes back as it came (its id,
//! its annotations) while the text it holds is still the history's text
//! at that place; text edited since, or text no item holds, goes as a
//! plain assistant message. Blocks and parts of another family are
//! dropped (their signatures mean nothing here, SPEC THINK-04), and so is
//! reasoning text with no item to carry it. Histories from before the
//! provider parts kept service-tool items as `redacted` blocks: those go
//! back in their place too.

use super::builtin::MESSAGE;
use super::FAMILY;
use crate::blocks::{no_parts, provider_json};
use crate::chat_completions::ids::synthesized;
use golem_core::builtin::{ProviderPart, ProviderPartKind};
use golem_core::message::{Message, ThinkingBlock};
use golem_core::model::ModelError;
use serde_json::{json, Map, Value};

/// A reasoning item being rebuilt, and its summary from the blocks' texts
/// (none when the item kept its own: texts shown from its content).
type Rebuilt = (Map<String, Value>, Option<Vec<Value>>);

/// Who takes media where, for the refusal of parts on assistant turns.
pub(crate) const WHO: &str = "the Responses API accepts";

/// The input items of assistant message `index`, the `ordinal`-th of the
/// history (for the ids of calls stored without one).
pub(crate) fn assistant_items(
    message: &Message,
    index: usize,
    ordinal: usize,
    out: &mut Vec<Value>,
) -> Result<(), ModelError> {
    no_parts(message, index, WHO)?;
    let mut parts = message.provider_parts.iter().filter(|p| p.provider == FAMILY).peekable();
    let mut text = Text { content: &message.content, from: 0 };
    let mut open: Option<Rebuilt> = None;
    for (n, block) in message.thinking.iter().enumerate() {
        while let Some(part) = parts.next_if(|p| p.thinking_at.is_some_and(|before| before <= n)) {
            close(open.take(), out);
            text.part(part, index, out)?;
        }
        if !block.provider.is_empty() && block.provider != FAMILY {
            continue;
        }
        match carried_item(block) {
            Some(item) => {
                close(open.take(), out);
                if item.get("type").and_then(Value::as_str) == Some("reasoning") {
                    let summary = (!item.contains_key("summary")).then(|| summary_part(block).into_iter().collect());
                    open = Some((item, summary));
                } else {
                    out.push(Value::Object(item));
                }
            }
            None => {
                if let (Some((_, Some(parts))), Some(part)) = (open.as_mut(), summary_part(block)) {
                    parts.push(part);
                }
            }
        }
    }
    close(open, out);
    for part in parts {
        text.part(part, index, out)?;
    }
    text.rest(out);
    for (n, call) in message.tool_calls.iter().enumerate() {
        // A stored call without an id gets the id decoding would have given.
        let id = if call.id.is_empty() { synthesized(ordinal, n + 1) } else { call.id.clone() };
        out.push(json!({
            "type": "function_call",
            "call_id": id,
            "name": call.name,
            "arguments": call.args.normalized_for_wire(),
        }));
    }
    Ok(())
}

/// The text of an assistant turn, handed out in order to the parts that
/// stood in it.
struct Text<'a> {
    content: &'a str,
    /// Where the text not yet sent starts.
    from: usize,
}

impl Text<'_> {
    /// A provider part of this family in its place: the text before it,
    /// then the item it keeps — a kept `message` item standing for that
    /// text when it still holds it.
    fn part(&mut self, part: &ProviderPart, index: usize, out: &mut Vec<Value>) -> Result<(), ModelError> {
        let message = part.name == MESSAGE;
        if part.kind == ProviderPartKind::Metadata && !message {
            return Ok(());
        }
        // An offset a hand-edited history broke lands on the nearest
        // character boundary before it, never before the text sent.
        let mut at = part.at.clamp(self.from, self.content.len());
        while !self.content.is_char_boundary(at) {
            at -= 1;
        }
        let before = &self.content[self.from..at.max(self.from)];
        self.from = at.max(self.from);
        let item = provider_json(part, index)?;
        if !message {
            plain(before, out);
            out.push(item);
        } else if item_text(&item) == before {
            out.push(item);
        } else {
            plain(before, out);
        }
        Ok(())
    }

    /// The text after the last part.
    fn rest(self, out: &mut Vec<Value>) {
        plain(&self.content[self.from..], out);
    }
}

/// Assistant text no kept item holds, as a plain input message.
fn plain(text: &str, out: &mut Vec<Value>) {
    if !text.is_empty() {
        out.push(json!({"role": "assistant", "content": text}));
    }
}

/// The text a `message` item holds, as decoding read it: its
/// `output_text` parts' texts and its refusals, in order.
fn item_text(item: &Value) -> String {
    let parts = item.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    parts
        .iter()
        .filter_map(|p| match p.get("type").and_then(Value::as_str) {
            Some("output_text") => p.get("text").and_then(Value::as_str),
            Some("refusal") => p.get("refusal").and_then(Value::as_str),
            _ => None,
        })
        .collect()
}

/// The item a block carries: its signature or redacted data, when that is
/// a JSON object naming its type (anything else is not this family's).
fn carried_item(block: &ThinkingBlock) -> Option<Map<String, Value>> {
    let token = if block.signature.is_empty() { &block.redacted } else { &block.signature };
    let Ok(Value::Object(item)) = serde_json::from_str::<Value>(token) else {
        return None;
    };
    item.get("type").and_then(Value::as_str).is_some_and(|t| !t.is_empty()).then_some(item)
}

fn summary_part(block: &ThinkingBlock) -> Option<Value> {
    (!block.text.is_empty()).then(|| json!({"type": "summary_text", "text": block.text}))
}

/// A reasoning item with its summary back in place.
fn close(open: Option<Rebuilt>, out: &mut Vec<Value>) {
    if let Some((mut item, summary)) = open {
        if let Some(parts) = summary {
            item.insert("summary".into(), Value::Array(parts));
        }
        out.push(Value::Object(item));
    }
}

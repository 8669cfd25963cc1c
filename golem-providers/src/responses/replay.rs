//! An assistant turn of golem's history as Responses input items: the
//! reasoning and service-tool items it carries, its text, its calls.
//!
//! The thinking blocks this family decoded (see `items.rs`) hold each
//! output item as it came — a reasoning item without its summary in the
//! first block's `signature` (or a `redacted` block when the summary was
//! empty), its summary parts in the blocks' texts, a service-tool item
//! whole in a `redacted` block. Each goes back in its place, the
//! reasoning with its `id` and `encrypted_content` byte for byte and its
//! summary part by part: the model picks up its reasoning where it left
//! it. Blocks of another family are dropped (their signatures mean
//! nothing here, SPEC THINK-04), and so is reasoning text with no item to
//! carry it.

use super::FAMILY;
use crate::blocks::no_parts;
use crate::chat_completions::ids::synthesized;
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
    let mut open: Option<Rebuilt> = None;
    for block in &message.thinking {
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
    if !message.content.is_empty() {
        out.push(json!({"role": "assistant", "content": message.content}));
    }
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

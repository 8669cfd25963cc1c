//! Amazon Nova's system tools on Converse: web grounding and the code
//! interpreter, declared as `systemTool` entries; the calls and results
//! they leave in an answer (a `toolUse` of type `server_tool_use`, a
//! `toolResult` with a `type`) are provider parts, never client calls —
//! golem must not try to run a local tool of that name.
//!
//! Grounding also leaves `citationsContent` blocks naming the web pages
//! behind the text before them. Each is kept as a `Metadata` part named
//! `citations`, at the text offset where it stood; its raw text is
//! `{"citations":[…]}` in serde_json's compact form (keys sorted). A stream
//! carries the same block as one `citation` delta per citation under the
//! block's index, gathered at the block's stop into that same JSON, so a
//! plain and a streamed decode of one answer keep identical parts. The
//! stream has no counterpart of the plain block's `content` (the generated
//! text a citation supports, which Nova leaves in the text blocks around
//! it), so the part holds only the citations; a plain block's `content`
//! text is kept as text. Metadata parts are not replayed: Bedrock takes
//! history without them (no recorded follow-up carries any).

use crate::blocks::unsupported_builtin;
use golem_core::builtin::{BuiltinTool, ProviderPart, ProviderPartKind};
use golem_core::model::{Delta, ModelError};
use serde_json::{json, Value};

/// Whether `model` has Nova's system tools (the Nova family only).
pub(crate) fn has_system_tools(model: &str) -> bool {
    model.contains("amazon.nova")
}

/// The `tools` entry of a declared built-in, or why it cannot run here.
pub(crate) fn tool_entry(tool: &BuiltinTool, model: &str) -> Result<Value, ModelError> {
    if !has_system_tools(model) {
        return Err(unsupported_builtin(tool, super::FAMILY, "only Amazon Nova models have system tools"));
    }
    let name = match tool {
        BuiltinTool::WebSearch(search) => {
            if search != &golem_core::builtin::WebSearch::new() {
                return Err(unsupported_builtin(
                    tool,
                    super::FAMILY,
                    "Nova grounding takes no domains, limits or location",
                ));
            }
            "nova_grounding"
        }
        BuiltinTool::CodeExecution => "nova_code_interpreter",
        other => return Err(unsupported_builtin(other, super::FAMILY, "Nova has no such system tool")),
    };
    Ok(json!({"systemTool": {"name": name}}))
}

/// The kind of a content block a system tool left, if it is one: a
/// `toolUse` typed `server_tool_use` (its call), a `toolResult` carrying a
/// `type` (its result — a client's result never has one).
pub(crate) fn server_kind(block: &Value) -> Option<ProviderPartKind> {
    if let Some(tool) = block.get("toolUse") {
        return (tool.get("type").and_then(Value::as_str) == Some("server_tool_use")).then_some(ProviderPartKind::Call);
    }
    let result = block.get("toolResult")?;
    result.get("type").and_then(Value::as_str).filter(|t| !t.is_empty()).map(|_| ProviderPartKind::Result)
}

/// A whole system-tool block as the delta that keeps it.
pub(crate) fn part(kind: ProviderPartKind, block: &Value) -> Delta {
    let inner = block.get("toolUse").or_else(|| block.get("toolResult")).unwrap_or(&Value::Null);
    let text = |field: &str| inner.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
    let name = match kind {
        ProviderPartKind::Call => text("name"),
        _ => text("type"),
    };
    let part = ProviderPart::new(super::FAMILY, kind, block.to_string()).with_id(text("toolUseId")).with_name(name);
    Delta::Provider { part }
}

/// A citations block's citations as the metadata part that keeps them, or
/// nothing when it names none. Plain and streamed decode both build the
/// part here, from the citations in the order they came.
pub(crate) fn citations(citations: Vec<Value>) -> Option<Delta> {
    if citations.is_empty() {
        return None;
    }
    let raw = json!({ "citations": citations }).to_string();
    Some(Delta::Provider {
        part: ProviderPart::new(super::FAMILY, ProviderPartKind::Metadata, raw).with_name("citations"),
    })
}

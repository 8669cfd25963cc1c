//! The Responses API's built-in tools (web search, code interpreter): the
//! `tools` entries a declared [`BuiltinTool`] becomes, and the output
//! items golem keeps whole as provider parts.
//!
//! Every output item that is not a `message`, a `function_call` or a
//! `reasoning` is the service's own (`web_search_call`,
//! `file_search_call`, `code_interpreter_call`, `image_generation_call`,
//! `mcp_call`, …): one item holds both the call and what it found, kept
//! as a provider part named by its type, its id the item's. A `message`
//! item is kept too, as a metadata part beside the text it holds: its id
//! and its `url_citation` annotations go back with it (`replay.rs`).
//! Each part notes how many thinking blocks came before it: reasoning
//! and tool items alternate, and the API wants them back in that order.

use super::tuning::Tuning;
use super::FAMILY;
use crate::blocks::{location_fields, unsupported_builtin};
use golem_core::builtin::{BuiltinTool, ProviderPart, ProviderPartKind};
use golem_core::model::{Delta, ModelError};
use serde_json::{json, Map, Value};

/// The name of the metadata part a `message` item is kept as.
pub(crate) const MESSAGE: &str = "message";

/// The `include` value that asks for the code interpreter's outputs,
/// sent whenever code execution is declared: without it the item comes
/// back with `outputs: null`.
pub(crate) const CODE_OUTPUTS: &str = "code_interpreter_call.outputs";

/// The `tools` entry of a declared built-in, or why the Responses API
/// cannot run it.
///
/// Web search takes `filters.allowed_domains`, an approximate
/// `user_location` and the tuning's `search_context_size`; it has no
/// blocked domains and no per-tool use limit (`max_tool_calls` counts every
/// built-in call of a response), so those options are refused rather than
/// dropped. Code execution runs in a container the service creates.
pub(crate) fn tool_entry(tool: &BuiltinTool, tuning: &Tuning) -> Result<Value, ModelError> {
    match tool {
        BuiltinTool::WebSearch(search) => {
            if !search.blocked_domains.is_empty() || search.max_uses.is_some() {
                return Err(unsupported_builtin(
                    tool,
                    FAMILY,
                    "the web_search tool takes allowed domains only, with no blocked domains and no use limit",
                ));
            }
            let mut entry = Map::new();
            entry.insert("type".into(), "web_search".into());
            if !search.allowed_domains.is_empty() {
                entry.insert("filters".into(), json!({"allowed_domains": search.allowed_domains}));
            }
            if let Some(location) = &search.user_location {
                let mut fields = location_fields(location);
                fields.insert("type".into(), "approximate".into());
                entry.insert("user_location".into(), Value::Object(fields));
            }
            if let Some(size) = &tuning.extras.search_context_size {
                entry.insert("search_context_size".into(), size.as_str().into());
            }
            Ok(Value::Object(entry))
        }
        BuiltinTool::CodeExecution => Ok(json!({"type": "code_interpreter", "container": {"type": "auto"}})),
        other => Err(unsupported_builtin(other, FAMILY, "the Responses API has no such built-in tool")),
    }
}

/// Whether the declared built-ins include code execution.
pub(crate) fn executes_code(tools: &[BuiltinTool]) -> bool {
    tools.iter().any(|t| matches!(t, BuiltinTool::CodeExecution))
}

/// A service-tool item as a provider part: a call (`…_call`,
/// `…_request`) or what the service listed or returned (anything else,
/// e.g. `mcp_list_tools`), after `thinking_at` thinking blocks.
pub(crate) fn tool_part(item: &Value, thinking_at: u32) -> Delta {
    let kind = item_type(item);
    let part_kind = if kind.ends_with("_call") || kind.ends_with("_request") {
        ProviderPartKind::Call
    } else {
        ProviderPartKind::Result
    };
    kept(item, part_kind, kind, thinking_at)
}

/// A `message` item as the metadata part kept beside its text.
pub(crate) fn message_part(item: &Value, thinking_at: u32) -> Delta {
    kept(item, ProviderPartKind::Metadata, MESSAGE, thinking_at)
}

fn kept(item: &Value, kind: ProviderPartKind, name: &str, thinking_at: u32) -> Delta {
    let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
    let blocks = usize::try_from(thinking_at).unwrap_or(usize::MAX);
    let part = ProviderPart::new(FAMILY, kind, item.to_string()).with_name(name).with_id(id).with_thinking_at(blocks);
    Delta::Provider { part }
}

fn item_type(item: &Value) -> &str {
    item.get("type").and_then(Value::as_str).unwrap_or_default()
}

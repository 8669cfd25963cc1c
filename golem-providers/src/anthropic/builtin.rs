//! Anthropic's server tools (web search, web fetch, code execution): the
//! tool entries a declared [`BuiltinTool`] becomes, and which content
//! blocks of an answer are theirs.
//!
//! Their calls (`server_tool_use`) and results (`*_tool_result`) are kept
//! whole as provider parts and replayed in place; golem runs nothing for
//! them.
//!
//! Code execution runs in a container the answer names (`container: {id,
//! expires_at}`). It is kept as a `Metadata` part named `container` at the
//! end of the message (never replayed as a block), and the next request
//! sends `"container": "<id>"` — the one the latest assistant turn that
//! named a container used — so files and state carry over between turns.
//! golem keeps no clock here: a container that expired is the API's error.

use crate::blocks::{location_fields, unsupported_builtin};
use golem_core::builtin::{BuiltinTool, ProviderPart, ProviderPartKind, UserLocation};
use golem_core::message::{Message, Role};
use golem_core::model::{Delta, ModelError};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Each server tool's name and the version sent unless the tuning picks
/// another ([`Tuning::server_tool_version`](super::Tuning::server_tool_version)):
/// the newest each recorded exchange used.
pub(crate) const SERVER_TOOLS: [(&str, &str); 3] = [
    ("web_search", "web_search_20250305"),
    ("web_fetch", "web_fetch_20250910"),
    ("code_execution", "code_execution_20260120"),
];

/// The `tools` entry of a declared built-in, or why Anthropic cannot run
/// it; `versions` are the tuning's picks by tool name.
pub(crate) fn tool_entry(tool: &BuiltinTool, versions: &BTreeMap<String, String>) -> Result<Value, ModelError> {
    let mut entry = Map::new();
    let mut named = |name: &str| {
        let default = SERVER_TOOLS.iter().find(|(tool, _)| *tool == name).map_or("", |(_, version)| version);
        let version = versions.get(name).map_or(default, String::as_str);
        entry.insert("type".into(), version.into());
        entry.insert("name".into(), name.into());
    };
    match tool {
        BuiltinTool::WebSearch(search) => {
            named("web_search");
            domains(&mut entry, &search.allowed_domains, &search.blocked_domains);
            if let Some(n) = search.max_uses {
                entry.insert("max_uses".into(), n.into());
            }
            if let Some(location) = &search.user_location {
                entry.insert("user_location".into(), user_location(location));
            }
        }
        BuiltinTool::WebFetch(fetch) => {
            named("web_fetch");
            domains(&mut entry, &fetch.allowed_domains, &fetch.blocked_domains);
            if let Some(n) = fetch.max_uses {
                entry.insert("max_uses".into(), n.into());
            }
        }
        BuiltinTool::CodeExecution => named("code_execution"),
        other => return Err(unsupported_builtin(other, super::FAMILY, "the Messages API has no such server tool")),
    }
    Ok(Value::Object(entry))
}

fn domains(entry: &mut Map<String, Value>, allowed: &[String], blocked: &[String]) {
    if !allowed.is_empty() {
        entry.insert("allowed_domains".into(), json!(allowed));
    }
    if !blocked.is_empty() {
        entry.insert("blocked_domains".into(), json!(blocked));
    }
}

/// The API's approximate location: only the fields given.
pub(crate) fn user_location(location: &UserLocation) -> Value {
    let mut out = location_fields(location);
    out.insert("type".into(), "approximate".into());
    Value::Object(out)
}

/// Whether a content block of this `type` is a server tool's call or
/// result: `server_tool_use`, and every `…_tool_result` an assistant turn
/// holds (`web_search_tool_result`, `bash_code_execution_tool_result`, …);
/// a client `tool_result` never appears in an answer.
pub(crate) fn server_block(kind: &str) -> Option<ProviderPartKind> {
    match kind {
        "server_tool_use" => Some(ProviderPartKind::Call),
        "tool_result" => None,
        kind if kind.ends_with("_tool_result") => Some(ProviderPartKind::Result),
        _ => None,
    }
}

/// The name of the part that keeps the code-execution container.
const CONTAINER: &str = "container";

/// The part keeping an answer's `container` object, when it names one.
pub(crate) fn container_part(container: &Value) -> Option<Delta> {
    let id = container.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())?;
    let part = ProviderPart::new(super::FAMILY, ProviderPartKind::Metadata, container.to_string())
        .with_name(CONTAINER)
        .with_id(id);
    Some(Delta::Provider { part })
}

/// The container of the latest assistant turn that named one.
pub(crate) fn latest_container(messages: &[Message]) -> Option<&str> {
    messages.iter().rev().filter(|m| m.role == Role::Assistant).find_map(|m| {
        m.provider_parts
            .iter()
            .rev()
            .find(|p| p.provider == super::FAMILY && p.kind == ProviderPartKind::Metadata && p.name == CONTAINER)
            .map(|p| p.id.as_str())
    })
}

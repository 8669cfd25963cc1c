//! Gemini's built-in tools (Google Search grounding, code execution, URL
//! context): the `tools` entries a declared [`BuiltinTool`] becomes, and
//! the parts and metadata they leave in an answer.
//!
//! `executableCode` and `codeExecutionResult` parts are kept whole (their
//! `thoughtSignature` included) as provider parts and sent back in place;
//! `groundingMetadata` and `urlContextMetadata` are kept as metadata parts
//! for the caller and never sent back (the API does not take them).

use crate::blocks::unsupported_builtin;
use golem_core::builtin::{BuiltinTool, ProviderPart, ProviderPartKind, WebSearch};
use golem_core::model::{Delta, ModelError};
use serde_json::{json, Value};

/// The `tools` entry of a declared built-in, or why Gemini cannot run it.
pub(crate) fn tool_entry(tool: &BuiltinTool) -> Result<Value, ModelError> {
    match tool {
        BuiltinTool::WebSearch(search) if *search == WebSearch::new() => Ok(json!({"googleSearch": {}})),
        BuiltinTool::WebSearch(_) => Err(unsupported_builtin(
            tool,
            super::FAMILY,
            "Google Search grounding takes no domains, limits or location",
        )),
        BuiltinTool::CodeExecution => Ok(json!({"codeExecution": {}})),
        BuiltinTool::UrlContext => Ok(json!({"urlContext": {}})),
        other => Err(unsupported_builtin(other, super::FAMILY, "Gemini has no such built-in tool")),
    }
}

/// A content part a built-in left, as the delta that keeps it whole.
pub(crate) fn part(part: &Value) -> Option<Delta> {
    let (kind, inner) = if let Some(code) = part.get("executableCode") {
        (ProviderPartKind::Call, code)
    } else if let Some(result) = part.get("codeExecutionResult") {
        (ProviderPartKind::Result, result)
    } else {
        return None;
    };
    let id = inner.get("id").and_then(Value::as_str).unwrap_or_default();
    let name = if kind == ProviderPartKind::Call { "executableCode" } else { "codeExecutionResult" };
    let part = ProviderPart::new(super::FAMILY, kind, part.to_string()).with_id(id).with_name(name);
    Some(Delta::Provider { part })
}

/// A candidate's grounding or URL-context metadata, each as a metadata
/// part named for its field; a stream repeats it on later chunks, and a
/// repeat of one already kept (`seen`) is not kept twice.
pub(crate) fn metadata(candidate: &Value, seen: &mut Vec<String>, out: &mut Vec<Delta>) {
    for field in ["groundingMetadata", "urlContextMetadata"] {
        if let Some(value) = candidate.get(field).filter(|v| v.is_object()) {
            let raw = value.to_string();
            if seen.contains(&raw) {
                continue;
            }
            seen.push(raw.clone());
            let part = ProviderPart::new(super::FAMILY, ProviderPartKind::Metadata, raw).with_name(field);
            out.push(Delta::Provider { part });
        }
    }
}

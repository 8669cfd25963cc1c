//! A `tools/call` result as a golem tool result (SPEC MCP-08).

use crate::mcp::resources::ResourceContents;
use crate::tool::{ToolError, ToolResult};
use base64::Engine as _;
use golem_core::{Part, PartKind};
use serde_json::Value;

/// What an `isError` result becomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum IsErrorAs {
    /// A failed result the model reads; no correction budget is charged
    /// (the default).
    #[default]
    Failed,
    /// A correctable rejection, charged to the correction budget (the
    /// upstream behaviour).
    Rejection,
}

/// Map the raw `tools/call` result of tool `name` (its model-facing name).
pub fn tool_result(name: &str, result: &Value, is_error_as: IsErrorAs) -> Result<ToolResult, ToolError> {
    let mut lines = Vec::new();
    let mut parts = Vec::new();
    let mut has_text = false;
    let items = result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for item in items {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("untyped");
        let text = |key: &str| item.get(key).and_then(Value::as_str);
        match kind {
            "text" => {
                has_text = true;
                lines.push(text("text").unwrap_or_default().to_string());
            }
            "image" | "audio" => match media_part(kind, text("data"), text("mimeType")) {
                Some(part) => parts.push(part),
                None => lines.push(format!("[mcp: invalid {kind} content]")),
            },
            "resource_link" => {
                let uri = text("uri").unwrap_or_default();
                lines.push(match text("name") {
                    Some(name) if !name.is_empty() => format!("[resource link {name}: {uri}]"),
                    _ => format!("[resource link: {uri}]"),
                });
            }
            // Text as is; a blob as `[mcp: binary resource {uri}, {mimeType},
            // N bytes]`, so the model knows what it got and where it is.
            "resource" => match item.get("resource").map(ResourceContents::from_value) {
                Some(Ok(contents)) => lines.push(contents.render()),
                _ => lines.push("[mcp: invalid resource content]".to_string()),
            },
            other => lines.push(format!("[mcp: unsupported {other} content]")),
        }
    }
    if !has_text {
        if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
            lines.insert(0, structured.to_string());
        }
    }
    let content = lines.join("\n");
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let reason =
            if content.is_empty() { format!("tool {name} failed") } else { format!("tool {name} failed: {content}") };
        return Err(match is_error_as {
            IsErrorAs::Failed => ToolError::Failed(reason),
            IsErrorAs::Rejection => ToolError::Reject(reason),
        });
    }
    Ok(ToolResult::text(content).with_parts(parts))
}

fn media_part(kind: &str, data: Option<&str>, media_type: Option<&str>) -> Option<Part> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(data?).ok()?;
    let media_type = media_type.filter(|m| !m.is_empty())?;
    if bytes.is_empty() {
        return None;
    }
    let kind = if kind == "audio" { PartKind::Audio } else { PartKind::Image };
    Some(Part::from_data(kind, media_type, bytes))
}

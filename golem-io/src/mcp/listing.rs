//! `tools/list` pages (SPEC MCP-04): what one page holds and the guard that
//! keeps pagination finite.

use super::error::McpError;
use serde_json::{json, Value};
use std::collections::HashSet;

/// The most pages one listing may take.
pub const MAX_PAGES: usize = 100;

/// One tool as the server declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct McpTool {
    /// The name to call it by on the wire.
    pub name: String,
    /// The human-readable title, when given.
    pub title: Option<String>,
    /// The description (empty when missing).
    pub description: String,
    /// The input schema (`{"type": "object"}` when missing).
    pub input_schema: Value,
    /// The output schema, when given.
    pub output_schema: Option<Value>,
    /// Hints such as `readOnlyHint`, as sent.
    pub annotations: Option<Value>,
}

impl McpTool {
    fn from_value(value: &Value) -> Result<McpTool, McpError> {
        let invalid = |reason: &str| McpError::invalid_result("tools/list", reason);
        let name = value.get("name").and_then(Value::as_str).ok_or_else(|| invalid("a tool without a name"))?;
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        let input_schema = match value.get("inputSchema") {
            Some(schema @ Value::Object(_)) => schema.clone(),
            _ => json!({"type": "object"}),
        };
        Ok(McpTool {
            name: name.to_string(),
            title: text("title"),
            description: text("description").unwrap_or_default(),
            input_schema,
            output_schema: value.get("outputSchema").filter(|s| s.is_object()).cloned(),
            annotations: value.get("annotations").filter(|s| s.is_object()).cloned(),
        })
    }
}

/// Walks `tools/list` pages: the params of each request, the tools of each
/// answer, an error on a repeated cursor or past [`MAX_PAGES`].
#[derive(Debug, Default)]
pub struct Pager {
    cursor: Option<String>,
    seen: HashSet<String>,
    pages: usize,
    tools: Vec<McpTool>,
    done: bool,
}

impl Pager {
    /// A listing from the first page.
    pub fn new() -> Self {
        Pager::default()
    }

    /// The params of the next request, or `None` when the listing is done.
    pub fn next_params(&self) -> Option<Value> {
        if self.done {
            return None;
        }
        Some(match &self.cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        })
    }

    /// Take in one page's result.
    pub fn handle_page(&mut self, result: &Value) -> Result<(), McpError> {
        self.pages += 1;
        let tools = result
            .get("tools")
            .and_then(Value::as_array)
            .ok_or_else(|| McpError::invalid_result("tools/list", "no tools array"))?;
        for tool in tools {
            self.tools.push(McpTool::from_value(tool)?);
        }
        match result.get("nextCursor") {
            None | Some(Value::Null) => self.done = true,
            Some(Value::String(cursor)) => {
                if !self.seen.insert(cursor.clone()) {
                    return Err(McpError::Pagination(format!("the cursor {cursor:?} came back")));
                }
                if self.pages >= MAX_PAGES {
                    return Err(McpError::Pagination(format!("more than {MAX_PAGES} pages")));
                }
                self.cursor = Some(cursor.clone());
            }
            Some(_) => return Err(McpError::invalid_result("tools/list", "nextCursor is not a string")),
        }
        Ok(())
    }

    /// The tools listed, once [`next_params`](Self::next_params) is `None`.
    pub fn into_tools(self) -> Vec<McpTool> {
        self.tools
    }
}

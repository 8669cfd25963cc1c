//! Paginated listings (SPEC MCP-04, MCP-11): what one `tools/list` page
//! holds, and the cursor guard every listing (tools, resources, prompts)
//! shares to stay finite.

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
    /// Whether the tool runs as a task (`execution.taskSupport`).
    pub task_support: TaskSupport,
}

/// A tool's `execution.taskSupport` (MCP 2025-11-25 tasks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Called plainly only (`"forbidden"`, or no declaration).
    #[default]
    Forbidden,
    /// Either way (`"optional"`): this client calls it plainly.
    Optional,
    /// Only as a task (`"required"`): this client does not bridge it.
    Required,
}

impl TaskSupport {
    fn from_tool(value: &Value) -> TaskSupport {
        match value.get("execution").and_then(|e| e.get("taskSupport")).and_then(Value::as_str) {
            Some("required") => TaskSupport::Required,
            Some("optional") => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
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
            task_support: TaskSupport::from_tool(value),
        })
    }
}

/// Follows `nextCursor` for one listing method: the params of each
/// request, an error on a repeated cursor or past [`MAX_PAGES`].
#[derive(Debug)]
pub(crate) struct Cursor {
    method: &'static str,
    cursor: Option<String>,
    seen: HashSet<String>,
    pages: usize,
    done: bool,
}

impl Cursor {
    pub(crate) fn new(method: &'static str) -> Self {
        Cursor { method, cursor: None, seen: HashSet::new(), pages: 0, done: false }
    }

    /// The params of the next request, or `None` when the listing is done.
    pub(crate) fn next_params(&self) -> Option<Value> {
        if self.done {
            return None;
        }
        Some(match &self.cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        })
    }

    /// Take in one page's result: its items under `key`.
    pub(crate) fn page<'a>(&mut self, result: &'a Value, key: &str) -> Result<&'a [Value], McpError> {
        self.pages += 1;
        let items = result
            .get(key)
            .and_then(Value::as_array)
            .ok_or_else(|| McpError::invalid_result(self.method, format!("no {key} array")))?;
        match result.get("nextCursor") {
            None | Some(Value::Null) => self.done = true,
            Some(Value::String(cursor)) => {
                let method = self.method;
                if !self.seen.insert(cursor.clone()) {
                    return Err(McpError::Pagination(format!("{method}: the cursor {cursor:?} came back")));
                }
                if self.pages >= MAX_PAGES {
                    return Err(McpError::Pagination(format!("{method}: more than {MAX_PAGES} pages")));
                }
                self.cursor = Some(cursor.clone());
            }
            Some(_) => return Err(McpError::invalid_result(self.method, "nextCursor is not a string")),
        }
        Ok(items)
    }
}

/// Walks `tools/list` pages: the params of each request, the tools of each
/// answer, an error on a repeated cursor or past [`MAX_PAGES`].
#[derive(Debug)]
pub struct Pager {
    cursor: Cursor,
    tools: Vec<McpTool>,
}

impl Default for Pager {
    fn default() -> Self {
        Pager { cursor: Cursor::new("tools/list"), tools: Vec::new() }
    }
}

impl Pager {
    /// A listing from the first page.
    pub fn new() -> Self {
        Pager::default()
    }

    /// The params of the next request, or `None` when the listing is done.
    pub fn next_params(&self) -> Option<Value> {
        self.cursor.next_params()
    }

    /// Take in one page's result.
    pub fn handle_page(&mut self, result: &Value) -> Result<(), McpError> {
        for tool in self.cursor.page(result, "tools")? {
            self.tools.push(McpTool::from_value(tool)?);
        }
        Ok(())
    }

    /// The tools listed, once [`next_params`](Self::next_params) is `None`.
    pub fn into_tools(self) -> Vec<McpTool> {
        self.tools
    }
}

//! Prompts (SPEC MCP-11): `prompts/list`, paginated like tools, and
//! `prompts/get {name, arguments}`, as typed values.

use super::client::McpClient;
use super::error::McpError;
use serde_json::{json, Map, Value};

/// One prompt template as the server lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct McpPrompt {
    /// The name to get it by.
    pub name: String,
    /// The human-readable title, when given.
    pub title: Option<String>,
    /// What it is for, when the server says.
    pub description: Option<String>,
    /// The arguments it takes.
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptArgument {
    /// The argument's name.
    pub name: String,
    /// What it means, when the server says.
    pub description: Option<String>,
    /// True when the prompt cannot be had without it.
    pub required: bool,
}

impl McpPrompt {
    /// Read one entry of a `prompts/list` result.
    pub fn from_value(value: &Value) -> Result<McpPrompt, McpError> {
        let invalid = |reason: &str| McpError::invalid_result("prompts/list", reason);
        let name = text(value, "name").ok_or_else(|| invalid("a prompt without a name"))?;
        let arguments = match value.get("arguments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    Ok(PromptArgument {
                        name: text(item, "name").ok_or_else(|| invalid("a prompt argument without a name"))?,
                        description: text(item, "description"),
                        required: item.get("required").and_then(Value::as_bool).unwrap_or(false),
                    })
                })
                .collect::<Result<_, McpError>>()?,
            Some(_) => return Err(invalid("prompt arguments that are not an array")),
        };
        Ok(McpPrompt { name, title: text(value, "title"), description: text(value, "description"), arguments })
    }
}

/// One message of a prompt: a role and one content block.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMessage {
    /// `user` or `assistant`, as sent.
    pub role: String,
    /// The content block as sent (`{"type": "text", "text": …}`, an image,
    /// a resource, …).
    pub content: Value,
}

impl PromptMessage {
    /// The text of a text block.
    pub fn text(&self) -> Option<&str> {
        match self.content.get("type").and_then(Value::as_str) {
            Some("text") => self.content.get("text").and_then(Value::as_str),
            _ => None,
        }
    }
}

/// A `prompts/get` result: the prompt filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct McpPromptResult {
    /// The server's description, when given.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl McpPromptResult {
    /// Read a whole `prompts/get` result.
    pub fn from_value(result: &Value) -> Result<McpPromptResult, McpError> {
        let invalid = |reason: &str| McpError::invalid_result("prompts/get", reason);
        let messages = result.get("messages").and_then(Value::as_array).ok_or_else(|| invalid("no messages array"))?;
        let messages = messages
            .iter()
            .map(|message| {
                let role = text(message, "role").ok_or_else(|| invalid("a message without a role"))?;
                let content = message.get("content").filter(|c| c.is_object()).cloned();
                Ok(PromptMessage { role, content: content.ok_or_else(|| invalid("a message without content"))? })
            })
            .collect::<Result<_, McpError>>()?;
        Ok(McpPromptResult { description: text(result, "description"), messages })
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

impl McpClient {
    /// Every prompt the server lists, following `nextCursor` with the same
    /// guards as [`list_tools`](Self::list_tools) (SPEC MCP-11).
    pub fn list_prompts(&self) -> Result<Vec<McpPrompt>, McpError> {
        self.list_all("prompts/list", "prompts", McpPrompt::from_value)
    }

    /// Prompt `name` filled in with `arguments` (name and value pairs;
    /// values are strings in the protocol).
    ///
    /// ```no_run
    /// # fn demo(client: &golem_io::mcp::McpClient) -> Result<(), golem_io::mcp::McpError> {
    /// let prompt = client.get_prompt("review", &[("code", "x = 1")])?;
    /// println!("{}", prompt.messages[0].text().unwrap_or_default());
    /// let plain = client.get_prompt("greeting", &[])?;
    /// # Ok(()) }
    /// ```
    pub fn get_prompt(&self, name: &str, arguments: &[(&str, &str)]) -> Result<McpPromptResult, McpError> {
        let arguments: Map<String, Value> =
            arguments.iter().map(|(k, v)| ((*k).to_string(), Value::String((*v).to_string()))).collect();
        let result = self.request("prompts/get", json!({"name": name, "arguments": arguments}), None)?;
        McpPromptResult::from_value(&result)
    }
}

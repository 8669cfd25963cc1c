//! Resources (SPEC MCP-11): `resources/list`, paginated like tools, and
//! `resources/read {uri}`, as typed values.

use super::client::McpClient;
use super::error::McpError;
use base64::Engine as _;
use serde_json::{json, Value};

/// One resource as the server lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct McpResource {
    /// The URI to read it by.
    pub uri: String,
    /// Its name (empty when missing).
    pub name: String,
    /// The human-readable title, when given.
    pub title: Option<String>,
    /// What it holds, when the server says.
    pub description: Option<String>,
    /// Its media type, when known.
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    pub size: Option<u64>,
    /// Hints such as `audience` and `priority`, as sent.
    pub annotations: Option<Value>,
}

impl McpResource {
    /// Read one entry of a `resources/list` result.
    pub fn from_value(value: &Value) -> Result<McpResource, McpError> {
        let uri =
            text(value, "uri").ok_or_else(|| McpError::invalid_result("resources/list", "a resource without a uri"))?;
        Ok(McpResource {
            uri,
            name: text(value, "name").unwrap_or_default(),
            title: text(value, "title"),
            description: text(value, "description"),
            mime_type: text(value, "mimeType"),
            size: value.get("size").and_then(Value::as_u64),
            annotations: value.get("annotations").filter(|a| a.is_object()).cloned(),
        })
    }
}

/// What a resource holds: text, or bytes (`blob`, base64 on the wire).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceBody {
    /// Text contents.
    Text(String),
    /// Binary contents, decoded.
    Blob(Vec<u8>),
}

/// One item of a `resources/read` result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceContents {
    /// The URI of this item (a read may answer with several).
    pub uri: String,
    /// Its media type, when known.
    pub mime_type: Option<String>,
    /// The contents.
    pub body: ResourceBody,
}

impl ResourceContents {
    /// Read one item of a `resources/read` result's `contents`: it must
    /// carry a `uri` and either `text` or valid base64 `blob`.
    pub fn from_value(value: &Value) -> Result<ResourceContents, McpError> {
        let invalid = |reason: &str| McpError::invalid_result("resources/read", reason);
        let uri = text(value, "uri").ok_or_else(|| invalid("contents without a uri"))?;
        let body = match (value.get("text").and_then(Value::as_str), value.get("blob").and_then(Value::as_str)) {
            (Some(text), _) => ResourceBody::Text(text.to_string()),
            (None, Some(blob)) => ResourceBody::Blob(
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map_err(|_| invalid("a blob that is not base64"))?,
            ),
            (None, None) => return Err(invalid("contents with neither text nor blob")),
        };
        Ok(ResourceContents { uri, mime_type: text(value, "mimeType"), body })
    }

    /// The text, for text contents.
    pub fn text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text(text) => Some(text),
            ResourceBody::Blob(_) => None,
        }
    }

    /// The item as a model reads it: text as is; bytes as the line
    /// `[mcp: binary resource {uri}, {mimeType}, N bytes]` (the media type
    /// `unknown type` when missing).
    pub fn render(&self) -> String {
        match &self.body {
            ResourceBody::Text(text) => text.clone(),
            ResourceBody::Blob(bytes) => {
                let mime = self.mime_type.as_deref().filter(|m| !m.is_empty()).unwrap_or("unknown type");
                format!("[mcp: binary resource {}, {mime}, {} bytes]", self.uri, bytes.len())
            }
        }
    }
}

/// Read a whole `resources/read` result.
pub fn read_result(result: &Value) -> Result<Vec<ResourceContents>, McpError> {
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .ok_or_else(|| McpError::invalid_result("resources/read", "no contents array"))?;
    contents.iter().map(ResourceContents::from_value).collect()
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

impl McpClient {
    /// Every resource the server lists, following `nextCursor` with the
    /// same guards as [`list_tools`](Self::list_tools) (SPEC MCP-11).
    pub fn list_resources(&self) -> Result<Vec<McpResource>, McpError> {
        self.list_all("resources/list", "resources", McpResource::from_value)
    }

    /// Read the resource at `uri`: one or more contents items.
    pub fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, McpError> {
        read_result(&self.request("resources/read", json!({"uri": uri}), None)?)
    }

    /// Ask to hear when the resource at `uri` changes
    /// (`resources/subscribe`): the server then sends
    /// `notifications/resources/updated`, which reach
    /// [`ClientOptions::on_resource_updated`](crate::mcp::ClientOptions::on_resource_updated)
    /// (SPEC MCP-20). A server without `resources.subscribe` answers with
    /// a protocol error.
    pub fn subscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        self.request("resources/subscribe", json!({"uri": uri}), None).map(drop)
    }

    /// Stop hearing about `uri` (`resources/unsubscribe`).
    pub fn unsubscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        self.request("resources/unsubscribe", json!({"uri": uri}), None).map(drop)
    }
}

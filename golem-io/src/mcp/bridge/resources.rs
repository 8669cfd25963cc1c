//! The optional read-only resource tool (SPEC MCP-11): the model reads a
//! server resource by URI — typically one a tool result linked to
//! (`[resource link name: uri]`) or the instructions named.

use super::names::model_name;
use super::McpBridge;
use crate::mcp::error::McpError;
use crate::mcp::resources::read_result;
use crate::tool::context::ToolContext;
use crate::tool::{Tool, ToolError, ToolResult};
use serde_json::{json, Value};

/// The resource tool's name, before any prefix.
pub const RESOURCE_TOOL: &str = "read_mcp_resource";

impl McpBridge {
    /// A read-only tool, `read_mcp_resource` (`<prefix>_read_mcp_resource`
    /// under a prefix), that takes `{"uri": "…"}` and answers with the
    /// resource's contents: text as is, each binary item as the line
    /// `[mcp: binary resource {uri}, {mimeType}, N bytes]`, items joined
    /// with `\n`.
    ///
    /// Not part of [`tools`](Self::tools): add it when the model should
    /// read resources. A JSON-RPC error (an unknown URI) is a failed result
    /// the model reads; transport failures end the run, as for every
    /// bridged tool. Reading twice does no harm, so the tool is
    /// [idempotent](Tool::idempotent).
    pub fn resources_tool<Deps: Send + Sync + 'static>(&self) -> Tool<Deps> {
        let client = std::sync::Arc::clone(&self.client);
        let (timeout, caps) = (self.options.timeout, self.options.caps);
        let server = client.server_info().map(|s| s.name).filter(|n| !n.is_empty());
        let description = match &server {
            Some(name) => format!(
                "Read a resource of the MCP server {name:?} by its URI (as given in tool results or instructions) \
                 and return its contents."
            ),
            None => "Read a resource of the MCP server by its URI (as given in tool results or instructions) and \
                     return its contents."
                .to_string(),
        };
        let schema = json!({
            "type": "object",
            "properties": {"uri": {"type": "string", "description": "The resource's URI."}},
            "required": ["uri"],
        });
        let name = model_name(self.options.prefix.as_deref(), RESOURCE_TOOL);
        Tool::new(name, description, schema, move |ctx: ToolContext<Deps>, args: Value| {
            let Some(uri) = args.get("uri").and_then(Value::as_str) else {
                return Err(ToolError::reject("`uri` must be a string"));
            };
            let params = json!({"uri": uri});
            let cancel = Some(ctx.cancellation());
            let result = match timeout {
                Some(timeout) => client.request_with_timeout("resources/read", params, timeout, cancel),
                None => client.request("resources/read", params, cancel),
            };
            let result = match result {
                Ok(result) => result,
                // The model asked for something the server does not have.
                Err(McpError::Protocol { message, .. }) => {
                    let uri = crate::tools::clip::quoted(uri);
                    return Err(ToolError::failed(format!("reading {uri} failed: {message}")));
                }
                Err(error) => return Err(ToolError::fatal(error)),
            };
            let contents = read_result(&result).map_err(ToolError::fatal)?;
            let text: Vec<String> = contents.iter().map(|c| c.render()).collect();
            super::cap::cap(Ok(ToolResult::text(text.join("\n"))), caps)
        })
        .idempotent()
    }

    /// The server's instructions for the model (`initialize`'s
    /// `instructions`), to add to the agent's own:
    ///
    /// ```no_run
    /// # use golem_core::testing::TestModel;
    /// # use golem_io::Agent;
    /// # fn demo(bridge: &golem_io::mcp::McpBridge) -> Result<(), Box<dyn std::error::Error>> {
    /// let mut instructions = String::from("You are a helpful assistant.");
    /// if let Some(server) = bridge.instructions() {
    ///     instructions.push_str("\n\n");
    ///     instructions.push_str(&server);
    /// }
    /// let agent = Agent::<()>::builder(TestModel::new()).instructions(&instructions).tools(bridge.tools()).build()?;
    /// # Ok(()) }
    /// ```
    ///
    /// `None` when the server gave none. Read from the client each time, so
    /// a session started again (HTTP 404) shows its new instructions.
    pub fn instructions(&self) -> Option<String> {
        self.client.instructions()
    }
}

//! Server tools as golem tools (SPEC MCP-07, MCP-08, MCP-10).
//!
//! A bridge is a snapshot of the server's tool list: [`McpBridge::tools`]
//! turns it into ordinary [`Tool`]s for either driver, each holding a clone
//! of the client's `Arc`. When the server says its list changed the bridge
//! is [stale](McpBridge::is_stale); [`refresh`](McpBridge::refresh) lists
//! again (and agents built before keep the tools they were given).
//!
//! Besides the tools a bridge offers the server's
//! [instructions](McpBridge::instructions) and an optional read-only
//! [resource tool](McpBridge::resources_tool).

mod cap;
mod content;
mod names;
mod resources;

pub use cap::{DEFAULT_MAX_MEDIA_BYTES, DEFAULT_MAX_RESULT_BYTES};
pub use content::{tool_result, IsErrorAs};
pub use names::{is_valid_name, model_name, MAX_NAME};
pub use resources::RESOURCE_TOOL;

use super::client::McpClient;
use super::error::McpError;
use super::listing::{McpTool, TaskSupport};
use super::progress::CallOptions;
use crate::tool::context::ToolContext;
use crate::tool::{Tool, ToolError};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// How a bridge names and maps tools.
#[derive(Clone, Debug, Default)]
pub struct BridgeOptions {
    prefix: Option<String>,
    is_error_as: IsErrorAs,
    timeout: Option<Duration>,
    progress: bool,
    caps: cap::Caps,
}

impl BridgeOptions {
    /// No prefix, `isError` as a failed result, the client's timeout,
    /// results capped at [`DEFAULT_MAX_RESULT_BYTES`] of text and
    /// [`DEFAULT_MAX_MEDIA_BYTES`] of media.
    pub fn new() -> Self {
        BridgeOptions::default()
    }

    /// Builder-style: the most bytes of a server's text — a result or an
    /// `isError` explanation — the model reads; past it the text is cut
    /// on a character boundary and "\n\n[mcp: result truncated at N
    /// bytes]" added (default [`DEFAULT_MAX_RESULT_BYTES`]).
    pub fn max_result_bytes(mut self, max: usize) -> Self {
        self.caps.text = max;
        self
    }

    /// Builder-style: the most inline media bytes (images, audio) one
    /// result passes on; parts past it are dropped, each named in a line
    /// of the text (default [`DEFAULT_MAX_MEDIA_BYTES`]).
    pub fn max_media_bytes(mut self, max: usize) -> Self {
        self.caps.media = max;
        self
    }

    /// Builder-style: name every tool `<prefix>_<name>`, so tools of
    /// several servers can live in one agent.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Builder-style: what an `isError` result becomes.
    pub fn is_error_as(mut self, is_error_as: IsErrorAs) -> Self {
        self.is_error_as = is_error_as;
        self
    }

    /// Builder-style: the timeout of each `tools/call` (else the client's).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Builder-style: ask the server for progress on every call (a
    /// `progressToken`, SPEC MCP-16) and pass each report to the run's
    /// [progress observers](crate::RunBuilder::on_tool_progress). Off by
    /// default.
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }
}

/// Why a bridge could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// Listing the tools failed.
    #[error(transparent)]
    Mcp(#[from] McpError),
    /// Two server tools map to the same model-facing name.
    #[error("MCP tools {first:?} and {second:?} both map to the tool name {name:?}")]
    Collision {
        /// The shared model-facing name.
        name: String,
        /// The first server tool.
        first: String,
        /// The second server tool.
        second: String,
    },
}

/// One bridged tool: the server's declaration and the name the model uses.
#[derive(Clone, Debug, PartialEq)]
pub struct BridgedTool {
    /// The model-facing name (valid for every provider).
    pub name: String,
    /// The server's declaration; its `name` goes on the wire.
    pub server: McpTool,
}

/// A server tool the bridge left out, and why.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SkippedTool {
    /// The tool's name on the wire.
    pub name: String,
    /// Why it is not among the bridge's tools.
    pub reason: String,
}

/// A snapshot of an MCP server's tools, ready to hand to an agent.
///
/// ```no_run
/// use golem_io::mcp::{BridgeOptions, ClientOptions, McpBridge, McpClient, StdioConfig};
/// use golem_io::Agent;
/// use golem_core::testing::TestModel;
/// use std::sync::Arc;
///
/// let client = Arc::new(McpClient::stdio(StdioConfig::new("my-mcp-server"), ClientOptions::new())?);
/// let bridge = McpBridge::with_options(Arc::clone(&client), BridgeOptions::new().prefix("srv"))?;
/// let agent = Agent::<()>::builder(TestModel::new()).tools(bridge.tools()).build()?;
/// let result = agent.run((), "use the server's tools")?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct McpBridge {
    client: Arc<McpClient>,
    options: BridgeOptions,
    tools: Vec<BridgedTool>,
    skipped: Vec<SkippedTool>,
    /// The client's tool-change count when this bridge listed.
    seen: u64,
}

impl McpBridge {
    /// List the server's tools with default options.
    pub fn new(client: Arc<McpClient>) -> Result<McpBridge, BridgeError> {
        McpBridge::with_options(client, BridgeOptions::new())
    }

    /// List the server's tools.
    pub fn with_options(client: Arc<McpClient>, options: BridgeOptions) -> Result<McpBridge, BridgeError> {
        let mut bridge = McpBridge { client, options, tools: Vec::new(), skipped: Vec::new(), seen: 0 };
        bridge.refresh()?;
        Ok(bridge)
    }

    /// List again, replacing the snapshot (kept as it was on error).
    pub fn refresh(&mut self) -> Result<(), BridgeError> {
        // Counted first: a change announced while listing marks it again.
        let seen = self.client.tool_changes();
        let (listed, skipped): (Vec<McpTool>, Vec<McpTool>) =
            self.client.list_tools()?.into_iter().partition(|t| t.task_support != TaskSupport::Required);
        self.tools = bridge_tools(self.options.prefix.as_deref(), listed)?;
        self.skipped = skipped
            .into_iter()
            .map(|tool| {
                let reason =
                    "it must run as a task (execution.taskSupport \"required\"), which this client does not do";
                self.client.note("warning", format!("MCP tool {:?} left out of the bridge: {reason}", tool.name));
                SkippedTool { name: tool.name, reason: reason.to_string() }
            })
            .collect();
        self.seen = seen;
        Ok(())
    }

    /// True when the server announced a tool-list change since this
    /// bridge's last listing. Each bridge has its own view: one bridge's
    /// refresh leaves another stale.
    pub fn is_stale(&self) -> bool {
        self.client.tool_changes() != self.seen
    }

    /// The server tools left out of the snapshot, with the reason (each
    /// also went to the client's log sink): tools that run only as tasks.
    pub fn skipped(&self) -> &[SkippedTool] {
        &self.skipped
    }

    /// The snapshot: server declarations with their model-facing names.
    pub fn listed(&self) -> &[BridgedTool] {
        &self.tools
    }

    /// The client the tools call.
    pub fn client(&self) -> &Arc<McpClient> {
        &self.client
    }

    /// The snapshot as golem tools, for an agent with any `Deps`.
    pub fn tools<Deps: Send + Sync + 'static>(&self) -> Vec<Tool<Deps>> {
        self.tools.iter().map(|t| self.tool(t)).collect()
    }

    fn tool<Deps: Send + Sync + 'static>(&self, tool: &BridgedTool) -> Tool<Deps> {
        let client = Arc::clone(&self.client);
        let (name, wire) = (tool.name.clone(), tool.server.name.clone());
        let (is_error_as, timeout, progress, caps) =
            (self.options.is_error_as, self.options.timeout, self.options.progress, self.options.caps);
        let description = match (&tool.server.title, tool.server.description.is_empty()) {
            (Some(title), true) => title.clone(),
            _ => tool.server.description.clone(),
        };
        Tool::new(
            tool.name.clone(),
            description,
            tool.server.input_schema.clone(),
            move |ctx: ToolContext<Deps>, args: Value| {
                let mut options = CallOptions::new().cancel(ctx.cancellation().clone());
                if let Some(timeout) = timeout {
                    options = options.timeout(timeout);
                }
                if progress {
                    let ctx = ctx.clone();
                    options =
                        options.on_progress(move |p| ctx.report_progress(p.progress, p.total, p.message.as_deref()));
                }
                let result = client.call_tool_with(&wire, args, &options);
                // Transport and protocol failures end the run (tool stage).
                let result = result.map_err(ToolError::fatal)?;
                cap::cap(tool_result(&name, &result, is_error_as), caps)
            },
        )
    }
}

/// Name the listed tools; two tools with one model-facing name are an error.
fn bridge_tools(prefix: Option<&str>, listed: Vec<McpTool>) -> Result<Vec<BridgedTool>, BridgeError> {
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut tools = Vec::with_capacity(listed.len());
    for server in listed {
        let name = model_name(prefix, &server.name);
        if let Some(first) = seen.insert(name.clone(), server.name.clone()) {
            return Err(BridgeError::Collision { name, first, second: server.name });
        }
        tools.push(BridgedTool { name, server });
    }
    Ok(tools)
}

//! The MCP client (feature `mcp`, SPEC MCP): any Model Context Protocol
//! server's tools as ordinary golem [`Tool`](crate::Tool)s, over stdio or
//! streamable HTTP, under either driver.
//!
//! **Layers.** [`Session`] is the sans-IO protocol core: JSON-RPC ids and
//! the pending-request table, the initialize handshake and version
//! negotiation, server pings, notifications, timeouts — messages and time
//! in, messages and events out. The transports drive it: [`StdioConfig`]
//! starts a child process speaking newline-delimited JSON; [`HttpConfig`]
//! posts to a streamable HTTP endpoint and reads JSON or SSE answers.
//! [`McpClient`] is the connected pair, and [`McpBridge`] turns its tool
//! list into golem tools.
//!
//! **Blocking and async.** Client calls block their thread and are safe to
//! make from many threads at once; bridged tools are blocking tools, which
//! the async driver runs on the `blocking` thread pool (no runtime of its
//! own), and the `_async` client methods do the same. A canceled or
//! timed-out call tells the server with `notifications/cancelled`.
//!
//! **Server messages outside requests.** Over HTTP the client also opens
//! the standalone GET stream after the handshake ([`HttpConfig::listen`],
//! on by default) and reconnects it with `Last-Event-ID` when it ends.
//!
//! **Beyond tools.** The server's [instructions](McpBridge::instructions),
//! [resources](McpClient::list_resources) and
//! [prompts](McpClient::list_prompts) as typed values, and an optional
//! read-only [resource tool](McpBridge::resources_tool) (SPEC MCP-11).
//!
//! **Streamable HTTP, more.** A request's SSE stream that ends before its
//! answer is resumed with `Last-Event-ID` (SPEC MCP-12); a forgotten
//! session (404, or a 400 saying so, `id` or none) is started again, and
//! only requests safe to repeat are sent again — a `tools/call` fails with
//! [`McpError::SessionLost`] (MCP-13, MCP-21); a server that cannot be
//! reached fails the call at once with [`McpError::Unreachable`] (MCP-22);
//! a 401 runs the OAuth flow of [`HttpConfig::oauth`] (MCP-15), which
//! accepts only `https` endpoints, checks the issuer and keeps every
//! credential out of its errors (AUTH-01..03).
//!
//! **What the client offers.** Elicitations go to
//! [`ClientOptions::on_elicitation`] (MCP-14), sampling requests to the
//! model of [`ClientOptions::sampling`] (MCP-18), `roots/list` to
//! [`ClientOptions::roots`] (MCP-19), resource updates to
//! [`ClientOptions::on_resource_updated`] (MCP-20), progress to
//! [`CallOptions::on_progress`] (MCP-16).
//!
//! **Not in scope:** URL-mode elicitation, tools in sampling requests,
//! running tools as tasks (tools that require it are left out of bridges).
//!
//! ```no_run
//! use golem_core::testing::TestModel;
//! use golem_io::mcp::{ClientOptions, McpBridge, McpClient, StdioConfig};
//! use golem_io::Agent;
//! use std::sync::Arc;
//!
//! let server = StdioConfig::new("python3").args(["-m", "my_mcp_server"]);
//! let client = Arc::new(McpClient::stdio(server, ClientOptions::new())?);
//! let bridge = McpBridge::new(Arc::clone(&client))?;
//! let agent = Agent::<()>::builder(TestModel::new()).tools(bridge.tools()).build()?;
//! println!("{}", agent.run((), "go")?.output);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Room rule (ARCHITECTURE.md): imports `tools`, `tool`, `run`, golem-core
// and golem-providers' SSE decoder.

mod auth;
mod bridge;
mod client;
mod elicitation;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod http;
mod jsonrpc;
mod listen_state;
mod listing;
mod progress;
mod prompts;
mod redact;
mod resources;
mod roots;
mod sampling;
mod session;
mod shared;
pub mod sse;
mod stdio;

pub use auth::{
    AuthorizationRequest, AuthorizationResponse, Challenge, ClientAuth, MemoryTokenStore, OAuth, SigningKey,
    TokenStore, Tokens, DEFAULT_REDIRECT_URI,
};
pub use bridge::{
    is_valid_name, model_name, tool_result, BridgeError, BridgeOptions, BridgedTool, IsErrorAs, McpBridge, SkippedTool,
    DEFAULT_MAX_MEDIA_BYTES, DEFAULT_MAX_RESULT_BYTES, MAX_NAME, RESOURCE_TOOL,
};
pub use client::{ClientOptions, McpClient};
pub use elicitation::{ElicitationRequest, ElicitationResponse};
pub use error::{AuthStage, McpError, BODY_EXCERPT};
pub use http::{HttpConfig, MAX_BODY};
pub use jsonrpc::{Id, Message, ParseError, RpcError, METHOD_NOT_FOUND};
pub use listen_state::ListenState;
pub use listing::{McpTool, Pager, TaskSupport, MAX_PAGES};
pub use progress::{CallOptions, Progress};
pub use prompts::{McpPrompt, McpPromptResult, PromptArgument, PromptMessage};
pub use resources::{read_result, McpResource, ResourceBody, ResourceContents};
pub use roots::Root;
pub use sampling::{ModelPreferences, Sampling, SamplingDecision, SamplingModel, SamplingRequest, DEFAULT_MAX_TOKENS};
pub use session::{
    LogMessage, ServerInfo, Session, SessionConfig, SessionEvent, DEFAULT_TIMEOUT, LEGACY_VERSION, PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
};
pub use stdio::{StdioConfig, MAX_LINE, MAX_QUEUED, STDERR_TAIL};

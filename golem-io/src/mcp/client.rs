//! The MCP client the application owns: connect over stdio or streamable
//! HTTP, then list and call tools (SPEC MCP-02..06, MCP-09, MCP-10).

use super::elicitation::{ElicitationHandler, ElicitationRequest, ElicitationResponse};
use super::error::McpError;
use super::http::{HttpConfig, HttpTransport};
use super::listen_state::ListenState;
use super::listing::{Cursor, McpTool, Pager};
use super::progress::CallOptions;
use super::roots::Root;
use super::sampling::{Sampler, Sampling};
use super::session::{LogMessage, ServerInfo, Session, SessionConfig, DEFAULT_TIMEOUT};
use super::shared::{Handlers, LogSink, ResourceSink, Shared, Transport};
use super::stdio::{StdioConfig, StdioTransport};
use crate::run::cancel::CancellationToken;
use serde_json::{json, Value};
use std::fmt;
#[cfg(feature = "async")]
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Settings shared by both transports: timeouts, and what the client
/// offers the server — elicitation, sampling, roots — and hears from it.
#[derive(Clone)]
pub struct ClientOptions {
    timeout: Duration,
    client_version: String,
    log: Option<LogSink>,
    elicit: Option<ElicitationHandler>,
    sampling: Option<Sampling>,
    roots: Option<Vec<Root>>,
    resource_updated: Option<ResourceSink>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            timeout: DEFAULT_TIMEOUT,
            client_version: env!("CARGO_PKG_VERSION").to_string(),
            log: None,
            elicit: None,
            sampling: None,
            roots: None,
            resource_updated: None,
        }
    }
}

impl ClientOptions {
    /// The defaults: a 60 s timeout per request, no log sink.
    pub fn new() -> Self {
        ClientOptions::default()
    }

    /// Builder-style: how long any request may wait for its answer.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Builder-style: the `clientInfo.version` sent in `initialize`.
    pub fn client_version(mut self, version: impl Into<String>) -> Self {
        self.client_version = version.into();
        self
    }

    /// Builder-style: where the server's `notifications/message` logs (and
    /// notes about skipped output) go. Called on the transport's threads.
    pub fn on_log(mut self, sink: impl Fn(&LogMessage) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(sink));
        self
    }

    /// Builder-style: answer the server's elicitations (form mode, SPEC
    /// MCP-14) with `handler`, which asks the user. Only with a handler
    /// does the client declare the capability; without one an elicitation
    /// is declined. Fields the answer leaves out get the schema's defaults.
    /// The handler runs on a thread of its own and may block while the user
    /// answers (the request that caused it keeps its timeout).
    pub fn on_elicitation(
        mut self,
        handler: impl Fn(&ElicitationRequest) -> ElicitationResponse + Send + Sync + 'static,
    ) -> Self {
        self.elicit = Some(Arc::new(handler));
        self
    }

    /// Builder-style: answer the server's sampling requests
    /// (`sampling/createMessage`, SPEC MCP-18) with the model `sampling`
    /// names, behind its approval hook and token limits. Only with this
    /// does the client declare the capability; without it such requests
    /// get −32601. Each request is answered on a thread of its own.
    pub fn sampling(mut self, sampling: Sampling) -> Self {
        self.sampling = Some(sampling);
        self
    }

    /// Builder-style: offer `roots` (SPEC MCP-19): the client declares the
    /// capability (with `listChanged`) and answers `roots/list` with them;
    /// [`McpClient::set_roots`] changes them later and tells the server.
    /// An empty list still offers roots. Without this, `roots/list` gets
    /// −32601.
    pub fn roots(mut self, roots: impl IntoIterator<Item = Root>) -> Self {
        self.roots = Some(roots.into_iter().collect());
        self
    }

    /// Builder-style: hear `notifications/resources/updated` (SPEC MCP-20):
    /// `callback` gets the URI of each resource the server says changed —
    /// those subscribed to with [`McpClient::subscribe_resource`]. Called
    /// on the transport's threads; keep it short.
    pub fn on_resource_updated(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.resource_updated = Some(Arc::new(callback));
        self
    }

    fn session(&self, allow_legacy_version: bool) -> Session {
        Session::new(SessionConfig {
            client_version: self.client_version.clone(),
            request_timeout: self.timeout,
            allow_legacy_version,
            elicitation: self.elicit.is_some(),
            sampling: self.sampling.is_some(),
            roots: self.roots.clone(),
        })
    }

    fn shared(&self, allow_legacy_version: bool, transport: Box<dyn Transport>) -> Arc<Shared> {
        let handlers = Handlers {
            log: self.log.clone(),
            elicit: self.elicit.clone(),
            sampler: self.sampling.clone().map(|sampling| Arc::new(Sampler::new(sampling))),
            resource_updated: self.resource_updated.clone(),
        };
        Shared::new(self.session(allow_legacy_version), transport, handlers)
    }
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("timeout", &self.timeout)
            .field("client_version", &self.client_version)
            .field("log", &self.log.is_some())
            .field("elicitation", &self.elicit.is_some())
            .field("sampling", &self.sampling)
            .field("roots", &self.roots)
            .field("resource_updated", &self.resource_updated.is_some())
            .finish()
    }
}

/// A connected MCP client. The application owns it (usually in an `Arc`
/// that bridged tools clone); dropping the last owner closes it.
///
/// Every method blocks the calling thread; the `_async` twins run the same
/// work on the `blocking` thread pool, for any executor. Any number of
/// requests may be in flight at once, from any threads.
///
/// ```no_run
/// use golem_io::mcp::{ClientOptions, McpClient, StdioConfig};
/// use serde_json::json;
///
/// let client = McpClient::stdio(StdioConfig::new("python3").arg("server.py"), ClientOptions::new())?;
/// for tool in client.list_tools()? {
///     println!("{}: {}", tool.name, tool.description);
/// }
/// let result = client.call_tool("echo", json!({"text": "hi"}), None)?;
/// println!("{result}");
/// client.close();
/// # Ok::<(), golem_io::mcp::McpError>(())
/// ```
pub struct McpClient {
    shared: Arc<Shared>,
    timeout: Duration,
    /// The tool-list change count at the last `list_tools`.
    listed_at: AtomicU64,
}

impl McpClient {
    /// Start a stdio server and run the handshake. Protocol version
    /// `2024-11-05` is accepted here (stdio) besides the current ones.
    pub fn stdio(config: StdioConfig, options: ClientOptions) -> Result<McpClient, McpError> {
        let transport = StdioTransport::spawn(&config)?;
        let shared = options.shared(true, Box::new(transport));
        let client = McpClient { shared, timeout: options.timeout, listed_at: AtomicU64::new(0) };
        client
            .shared
            .transport
            .start(&client.shared)
            .and_then(|()| client.handshake())
            .inspect_err(|_| client.close())?;
        Ok(client)
    }

    /// Connect to a streamable HTTP server and run the handshake; then,
    /// unless configured off, open the standalone GET stream in the
    /// background (see [`listen_state`](Self::listen_state)). A proxy URL
    /// ([`HttpConfig::proxy`]) the client cannot use is an
    /// [`McpError::Http`] before anything is sent.
    pub fn http(config: HttpConfig, options: ClientOptions) -> Result<McpClient, McpError> {
        let transport = HttpTransport::new(config, options.timeout)?;
        let shared = options.shared(false, Box::new(transport));
        let client = McpClient { shared, timeout: options.timeout, listed_at: AtomicU64::new(0) };
        client.handshake().inspect_err(|_| client.close())?;
        client.shared.transport.ready(&client.shared);
        Ok(client)
    }

    fn handshake(&self) -> Result<(), McpError> {
        let (id, message) = self.shared.lock().session.start(Instant::now())?;
        self.shared.transport.send_request(&self.shared, id, message);
        self.shared.wait(id, "initialize", None).map(drop)
    }

    /// What the server said about itself (name, version, capabilities,
    /// instructions, negotiated protocol version).
    pub fn server_info(&self) -> Option<ServerInfo> {
        self.shared.lock().session.server_info().cloned()
    }

    /// The server's instructions for the model, from the handshake (SPEC
    /// MCP-02): what to tell an agent about using this server. `None` when
    /// the server gave none (or only whitespace).
    pub fn instructions(&self) -> Option<String> {
        let inner = self.shared.lock();
        let text = inner.session.server_info()?.instructions.as_deref()?;
        (!text.trim().is_empty()).then(|| text.to_string())
    }

    /// What the standalone GET stream of an HTTP client is doing
    /// ([`ListenState::Off`] over stdio or with
    /// [`HttpConfig::listen(false)`](HttpConfig::listen)).
    pub fn listen_state(&self) -> ListenState {
        self.shared.transport.listen_state()
    }

    /// The server's process id, for a stdio server.
    pub fn process_id(&self) -> Option<u32> {
        self.shared.transport.process_id()
    }

    /// Every tool the server lists, following `nextCursor` (SPEC MCP-04).
    pub fn list_tools(&self) -> Result<Vec<McpTool>, McpError> {
        // Counted first: a change announced while listing shows next time.
        self.listed_at.store(self.shared.changes(), Ordering::SeqCst);
        let mut pager = Pager::new();
        while let Some(params) = pager.next_params() {
            let result = self.request("tools/list", params, None)?;
            pager.handle_page(&result)?;
        }
        Ok(pager.into_tools())
    }

    /// Call tool `name` (its wire name) with `arguments` (`{}` when null);
    /// the raw `tools/call` result. `cancel` gives up early and tells the
    /// server (`notifications/cancelled`).
    pub fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, McpError> {
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        self.request("tools/call", json!({"name": name, "arguments": arguments}), cancel)
    }

    /// [`call_tool`](Self::call_tool) with per-call options: a timeout, a
    /// cancellation token, and a progress callback (the request then
    /// carries a `progressToken`, SPEC MCP-16).
    pub fn call_tool_with(&self, name: &str, arguments: Value, options: &CallOptions) -> Result<Value, McpError> {
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        let mut params = json!({"name": name, "arguments": arguments});
        let token = options.progress.clone().map(|sink| self.shared.register_progress(sink));
        if let Some(token) = &token {
            params["_meta"] = json!({"progressToken": token});
        }
        let timeout = options.timeout.unwrap_or(self.timeout);
        let result = self.shared.call("tools/call", params, Some(timeout), options.cancel.as_ref());
        if let Some(token) = &token {
            self.shared.forget_progress(token);
        }
        result
    }

    /// Any request (`resources/list`, `prompts/get`, …): its result, or the
    /// server's JSON-RPC error as [`McpError::Protocol`].
    pub fn request(&self, method: &str, params: Value, cancel: Option<&CancellationToken>) -> Result<Value, McpError> {
        self.shared.call(method, params, Some(self.timeout), cancel)
    }

    /// [`request`](Self::request) with its own timeout.
    pub fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, McpError> {
        self.shared.call(method, params, Some(timeout), cancel)
    }

    /// [`list_tools`](Self::list_tools) on the blocking thread pool.
    #[cfg(feature = "async")]
    pub fn list_tools_async(self: &Arc<Self>) -> impl Future<Output = Result<Vec<McpTool>, McpError>> + Send + 'static {
        let client = Arc::clone(self);
        blocking::unblock(move || client.list_tools())
    }

    /// [`call_tool`](Self::call_tool) on the blocking thread pool.
    #[cfg(feature = "async")]
    pub fn call_tool_async(
        self: &Arc<Self>,
        name: impl Into<String>,
        arguments: Value,
        cancel: Option<CancellationToken>,
    ) -> impl Future<Output = Result<Value, McpError>> + Send + 'static {
        let (client, name) = (Arc::clone(self), name.into());
        blocking::unblock(move || client.call_tool(&name, arguments, cancel.as_ref()))
    }

    /// True when the server said its tools changed
    /// (`notifications/tools/list_changed`) since this client last listed
    /// them. Each bridge keeps its own view ([`McpBridge::is_stale`]).
    ///
    /// [`McpBridge::is_stale`]: crate::mcp::McpBridge::is_stale
    pub fn tools_changed(&self) -> bool {
        self.shared.changes() != self.listed_at.load(Ordering::SeqCst)
    }

    /// How many tool-list changes the server announced so far.
    pub(crate) fn tool_changes(&self) -> u64 {
        self.shared.changes()
    }

    /// A note for the log sink (logger `golem.mcp`).
    pub(crate) fn note(&self, level: &str, text: String) {
        self.shared.note(level, text);
    }

    /// Change the roots the server is offered and tell it
    /// (`notifications/roots/list_changed`, SPEC MCP-19).
    /// [`McpError::NotOffered`] when the client did not offer roots
    /// ([`ClientOptions::roots`]): the server was never told of any.
    pub fn set_roots(&self, roots: impl IntoIterator<Item = Root>) -> Result<(), McpError> {
        let mut inner = self.shared.lock();
        if !inner.session.set_roots(roots.into_iter().collect()) {
            return Err(McpError::NotOffered { capability: "roots".into() });
        }
        self.shared.pump(inner);
        Ok(())
    }

    /// End the session: pending requests fail with [`McpError::Closed`],
    /// server requests being answered (sampling) are abandoned, then the
    /// transport shuts down (stdio: stdin closed, 2 s, SIGTERM, 2 s,
    /// SIGKILL, reaped; HTTP: the GET stream's thread stopped, then DELETE
    /// with the session id). Idempotent; also done on drop.
    pub fn close(&self) {
        self.shared.cancel_serving();
        self.shared.fail_all(McpError::Closed);
        self.shared.transport.close(&self.shared);
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        self.close();
    }
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.shared.lock();
        f.debug_struct("McpClient")
            .field("server", &inner.session.server_info().map(|s| s.name.clone()))
            .field("protocol_version", &inner.session.protocol_version())
            .field("pending", &inner.session.pending_count())
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Every item a listing holds, page after page, each read by `parse`.
    pub(crate) fn list_all<T>(
        &self,
        method: &'static str,
        key: &str,
        parse: impl Fn(&Value) -> Result<T, McpError>,
    ) -> Result<Vec<T>, McpError> {
        let mut cursor = Cursor::new(method);
        let mut items = Vec::new();
        while let Some(params) = cursor.next_params() {
            let result = self.request(method, params, None)?;
            for item in cursor.page(&result, key)? {
                items.push(parse(item)?);
            }
        }
        Ok(items)
    }
}

//! The sans-IO MCP session (SPEC MCP-01..04, MCP-09): request ids, the
//! pending-request table, the initialize handshake with version
//! negotiation, server requests and notifications, per-request timeouts.
//!
//! It never touches a socket, a process or a clock: messages go in through
//! [`Session::handle_message`], time through the `now` arguments and
//! [`Session::handle_timeout`]; what to send comes out of
//! [`Session::poll_transmit`], what happened out of [`Session::poll_event`],
//! and when to wake up out of [`Session::poll_timeout`]. Requests the
//! application makes are returned to the caller directly, so a transport can
//! send each on its own path (a stdio line, an HTTP POST). After every input,
//! drain both queues.
//!
//! ```
//! use golem_io::mcp::{Message, Session, SessionConfig, SessionEvent};
//! use serde_json::json;
//! use std::time::Instant;
//!
//! let now = Instant::now();
//! let mut session = Session::new(SessionConfig::default());
//! let (init, request) = session.start(now).unwrap();
//! assert_eq!(request.method(), Some("initialize"));
//! let answer = json!({"jsonrpc": "2.0", "id": init, "result": {
//!     "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "tiny", "version": "1"}}});
//! session.handle_message(now, Message::from_value(answer).unwrap());
//! assert_eq!(session.poll_transmit().unwrap().method(), Some("notifications/initialized"));
//! assert!(matches!(session.poll_event(), Some(SessionEvent::Completed { id, result: Ok(_) }) if id == init));
//! assert_eq!(session.protocol_version(), Some("2025-06-18"));
//! ```

use super::elicitation;
use super::error::McpError;
use super::jsonrpc::{Id, Message, RpcError};
use super::progress::Progress;
use super::roots::Root;
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// The protocol version this client offers.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The versions accepted from a server on any transport.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The oldest version, accepted over stdio only (its HTTP transport was the
/// older HTTP+SSE one, which this client does not speak).
pub const LEGACY_VERSION: &str = "2024-11-05";

/// The default per-request timeout (SPEC MCP-09).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How a [`Session`] behaves.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The `clientInfo.version` sent in `initialize`.
    pub client_version: String,
    /// How long a request may wait for its answer.
    pub request_timeout: Duration,
    /// Accept [`LEGACY_VERSION`] (stdio only).
    pub allow_legacy_version: bool,
    /// Declare elicitation (form mode) and hand `elicitation/create` to the
    /// driver as [`SessionEvent::Request`]; off, such requests are declined
    /// (SPEC MCP-14).
    pub elicitation: bool,
    /// Declare sampling and hand `sampling/createMessage` to the driver as
    /// [`SessionEvent::Request`]; off, such requests get −32601 (SPEC
    /// MCP-18).
    pub sampling: bool,
    /// Declare roots (with `listChanged`) and answer `roots/list` with
    /// these; `None` offers no roots and `roots/list` gets −32601 (SPEC
    /// MCP-19).
    pub roots: Option<Vec<Root>>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            client_version: env!("CARGO_PKG_VERSION").to_string(),
            request_timeout: DEFAULT_TIMEOUT,
            allow_legacy_version: false,
            elicitation: false,
            sampling: false,
            roots: None,
        }
    }
}

/// What the server said about itself in the handshake (SPEC MCP-02).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerInfo {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// `serverInfo.title`, when given.
    pub title: Option<String>,
    /// The server's capabilities object, as sent.
    pub capabilities: Value,
    /// Instructions for the model, when given.
    pub instructions: Option<String>,
}

/// A `notifications/message` log entry from the server, or a note from the
/// transport (logger `golem.mcp`) about output it skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct LogMessage {
    /// The syslog-style level (`debug`, `info`, `warning`, `error`, …).
    pub level: String,
    /// The logger name, when given.
    pub logger: Option<String>,
    /// The payload: any JSON.
    pub data: Value,
}

/// Something the session has to tell its driver.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum SessionEvent {
    /// A request ended: its result, or why it has none. Reported exactly
    /// once per request, unless it was [canceled](Session::cancel).
    Completed {
        /// The request's id.
        id: u64,
        /// The result or the error.
        result: Result<Value, McpError>,
    },
    /// The server sent a log message.
    Log(LogMessage),
    /// The server's tool list changed (`notifications/tools/list_changed`).
    ToolsChanged,
    /// A server request the driver must answer with [`Session::respond`]
    /// (or [`Session::respond_error`]): `elicitation/create` when
    /// [`SessionConfig::elicitation`] is on, `sampling/createMessage` when
    /// [`SessionConfig::sampling`] is.
    Request {
        /// The server's request id.
        id: Id,
        /// The method.
        method: String,
        /// Its params (`null` when none).
        params: Value,
    },
    /// The server says the resource at `uri` changed
    /// (`notifications/resources/updated`, after `resources/subscribe`;
    /// SPEC MCP-20).
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
    /// The server gave up on its request `id` (`notifications/cancelled`):
    /// the driver stops working on it and sends no answer.
    ServerCanceled {
        /// The server's request id.
        id: Id,
    },
    /// A `notifications/progress` report for the request that sent
    /// `token` as its `progressToken` (SPEC MCP-16).
    Progress {
        /// The token, as the server echoed it.
        token: Value,
        /// The report.
        progress: Progress,
    },
}

#[derive(Clone, Debug)]
enum Phase {
    Idle,
    Initializing,
    Ready,
    Closed(McpError),
}

#[derive(Debug)]
struct Pending {
    method: String,
    deadline: Instant,
    timeout: Duration,
}

/// The client side of one MCP session, without I/O.
#[derive(Debug)]
pub struct Session {
    config: SessionConfig,
    phase: Phase,
    /// The id of the `initialize` in flight (first handshake or a re-run).
    init_request: Option<u64>,
    next_id: u64,
    pending: BTreeMap<u64, Pending>,
    transmits: VecDeque<Message>,
    events: VecDeque<SessionEvent>,
    server: Option<ServerInfo>,
    /// The roots `roots/list` answers with, when roots are offered.
    roots: Option<Vec<Root>>,
}

impl Session {
    /// A session that has not started its handshake.
    pub fn new(config: SessionConfig) -> Self {
        Session {
            roots: config.roots.clone(),
            config,
            phase: Phase::Idle,
            init_request: None,
            next_id: 1,
            pending: BTreeMap::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            server: None,
        }
    }

    /// Begin the handshake: the `initialize` request to send.
    pub fn start(&mut self, now: Instant) -> Result<(u64, Message), McpError> {
        match &self.phase {
            Phase::Idle => {
                self.phase = Phase::Initializing;
                Ok(self.initialize(now))
            }
            Phase::Closed(e) => Err(e.clone()),
            _ => Err(McpError::invalid_result("initialize", "the handshake has already started")),
        }
    }

    /// Run the handshake again (an HTTP session the server forgot): a new
    /// `initialize` request. Requests in flight stay pending.
    pub fn restart(&mut self, now: Instant) -> Result<(u64, Message), McpError> {
        match &self.phase {
            Phase::Closed(e) => Err(e.clone()),
            _ => {
                if let Some(old) = self.init_request.take() {
                    self.pending.remove(&old);
                }
                Ok(self.initialize(now))
            }
        }
    }

    fn initialize(&mut self, now: Instant) -> (u64, Message) {
        let mut capabilities = json!({});
        if self.config.elicitation {
            capabilities["elicitation"] = elicitation::capability();
        }
        if self.config.sampling {
            capabilities["sampling"] = json!({});
        }
        if self.roots.is_some() {
            capabilities["roots"] = json!({"listChanged": true});
        }
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": capabilities,
            "clientInfo": {"name": "golem", "version": self.config.client_version},
        });
        let (id, message) = self.register(now, "initialize", params, self.config.request_timeout);
        self.init_request = Some(id);
        (id, message)
    }

    /// A request to send, with the session's default timeout. Fails before
    /// the handshake finished and after the session closed.
    pub fn request(&mut self, now: Instant, method: &str, params: Value) -> Result<(u64, Message), McpError> {
        let timeout = self.config.request_timeout;
        self.request_with_timeout(now, method, params, timeout)
    }

    /// A request to send, answered within `timeout` or failed.
    pub fn request_with_timeout(
        &mut self,
        now: Instant,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<(u64, Message), McpError> {
        match &self.phase {
            Phase::Ready => Ok(self.register(now, method, params, timeout)),
            Phase::Closed(e) => Err(e.clone()),
            _ => Err(McpError::NotInitialized),
        }
    }

    fn register(&mut self, now: Instant, method: &str, params: Value, timeout: Duration) -> (u64, Message) {
        let id = self.next_id;
        self.next_id += 1;
        let deadline = now.checked_add(timeout).unwrap_or(now);
        self.pending.insert(id, Pending { method: method.to_string(), deadline, timeout });
        let id_value = Id::Int(i64::try_from(id).unwrap_or(i64::MAX));
        (id, Message::Request { id: id_value, method: method.to_string(), params: Some(params) })
    }

    /// Take in one message from the server.
    pub fn handle_message(&mut self, _now: Instant, message: Message) {
        match message {
            Message::Response { id, result } => self.answer(&id, Ok(result)),
            Message::Error { id, error } => self.answer(&id, Err(error)),
            Message::Request { id, method, params } => self.server_request(id, method, params),
            Message::Notification { method, params } => self.notification(&method, params),
        }
    }

    fn answer(&mut self, id: &Id, result: Result<Value, RpcError>) {
        // Exact, type-sensitive matching: only our own integer ids; answers
        // to requests no longer pending (canceled, timed out) are dropped.
        let Some(n) = id.as_ours() else { return };
        if self.pending.remove(&n).is_none() {
            return;
        }
        let result = result.map_err(McpError::protocol);
        if self.init_request == Some(n) {
            self.init_request = None;
            return self.initialized(n, result);
        }
        self.events.push_back(SessionEvent::Completed { id: n, result });
    }

    fn initialized(&mut self, id: u64, result: Result<Value, McpError>) {
        let outcome = result.and_then(|r| self.negotiate(&r).map(|info| (r, info)));
        match outcome {
            Ok((result, info)) => {
                self.server = Some(info);
                self.phase = Phase::Ready;
                self.transmits
                    .push_back(Message::Notification { method: "notifications/initialized".into(), params: None });
                self.events.push_back(SessionEvent::Completed { id, result: Ok(result) });
            }
            Err(error) => {
                self.events.push_back(SessionEvent::Completed { id, result: Err(error.clone()) });
                // An unusable handshake ends the session (SPEC MCP-02).
                self.fail_all(error);
            }
        }
    }

    fn negotiate(&self, result: &Value) -> Result<ServerInfo, McpError> {
        let invalid = |reason: &str| McpError::invalid_result("initialize", reason);
        let version =
            result.get("protocolVersion").and_then(Value::as_str).ok_or_else(|| invalid("no protocolVersion"))?;
        let legacy = self.config.allow_legacy_version && version == LEGACY_VERSION;
        if !SUPPORTED_VERSIONS.contains(&version) && !legacy {
            return Err(McpError::UnsupportedProtocolVersion { version: version.to_string() });
        }
        let server = result.get("serverInfo");
        let field = |name: &str| server.and_then(|s| s.get(name)).and_then(Value::as_str).map(str::to_string);
        Ok(ServerInfo {
            protocol_version: version.to_string(),
            name: field("name").unwrap_or_default(),
            version: field("version").unwrap_or_default(),
            title: field("title"),
            capabilities: result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
            instructions: result.get("instructions").and_then(Value::as_str).map(str::to_string),
        })
    }

    fn server_request(&mut self, id: Id, method: String, params: Option<Value>) {
        let params = params.unwrap_or(Value::Null);
        let reply = match method.as_str() {
            "ping" => Message::Response { id, result: json!({}) },
            "elicitation/create" if self.config.elicitation && elicitation::is_form(&params) => {
                return self.events.push_back(SessionEvent::Request { id, method, params });
            }
            // Without a handler (or in a mode it does not speak) the user
            // is never asked: a clean decline, not an error.
            "elicitation/create" => Message::Response { id, result: elicitation::declined() },
            "sampling/createMessage" if self.config.sampling => {
                return self.events.push_back(SessionEvent::Request { id, method, params });
            }
            "roots/list" if self.roots.is_some() => {
                let roots: Vec<Value> = self.roots.iter().flatten().map(Root::to_value).collect();
                Message::Response { id, result: json!({"roots": roots}) }
            }
            _ => Message::Error { id, error: RpcError::method_not_found(&method) },
        };
        self.transmits.push_back(reply);
    }

    /// Answer server request `id` (one handed out as
    /// [`SessionEvent::Request`]) with `result`.
    pub fn respond(&mut self, id: Id, result: Value) {
        self.transmits.push_back(Message::Response { id, result });
    }

    /// Refuse server request `id` (one handed out as
    /// [`SessionEvent::Request`]) with a JSON-RPC error.
    pub fn respond_error(&mut self, id: Id, error: RpcError) {
        self.transmits.push_back(Message::Error { id, error });
    }

    /// Change the roots `roots/list` answers with and tell the server
    /// (`notifications/roots/list_changed`, once the handshake is done).
    /// False, and nothing changes, when the session offers no roots
    /// ([`SessionConfig::roots`]): the server was never told of any.
    pub fn set_roots(&mut self, roots: Vec<Root>) -> bool {
        if self.roots.is_none() {
            return false;
        }
        self.roots = Some(roots);
        if self.is_ready() {
            let changed = Message::Notification { method: "notifications/roots/list_changed".into(), params: None };
            self.transmits.push_back(changed);
        }
        true
    }

    fn notification(&mut self, method: &str, params: Option<Value>) {
        match method {
            "notifications/tools/list_changed" => self.events.push_back(SessionEvent::ToolsChanged),
            "notifications/message" => {
                let params = params.unwrap_or(Value::Null);
                let text = |name: &str| params.get(name).and_then(Value::as_str).map(str::to_string);
                let log = LogMessage {
                    level: text("level").unwrap_or_else(|| "info".into()),
                    logger: text("logger"),
                    data: params.get("data").cloned().unwrap_or(Value::Null),
                };
                self.events.push_back(SessionEvent::Log(log));
            }
            "notifications/progress" => {
                let params = params.unwrap_or(Value::Null);
                let (Some(token), Some(progress)) =
                    (params.get("progressToken"), params.get("progress").and_then(Value::as_f64))
                else {
                    return;
                };
                let progress = Progress {
                    progress,
                    total: params.get("total").and_then(Value::as_f64),
                    message: params.get("message").and_then(Value::as_str).map(str::to_string),
                };
                self.events.push_back(SessionEvent::Progress { token: token.clone(), progress });
            }
            "notifications/resources/updated" => {
                let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
                if let Some(uri) = uri {
                    self.events.push_back(SessionEvent::ResourceUpdated { uri: uri.to_string() });
                }
            }
            "notifications/cancelled" => {
                let id = params.as_ref().and_then(|p| p.get("requestId")).and_then(Id::from_value);
                if let Some(id) = id {
                    self.events.push_back(SessionEvent::ServerCanceled { id });
                }
            }
            // Everything else carries nothing this client acts on.
            _ => {}
        }
    }

    /// The caller gave up on request `id`: forget it and tell the server
    /// (`notifications/cancelled`). False when it was not pending.
    pub fn cancel(&mut self, id: u64, reason: &str) -> bool {
        if self.pending.remove(&id).is_none() {
            return false;
        }
        self.send_canceled(id, reason);
        true
    }

    fn send_canceled(&mut self, id: u64, reason: &str) {
        // The protocol forbids cancelling initialize.
        if self.init_request == Some(id) {
            self.init_request = None;
            return;
        }
        let params = json!({"requestId": id, "reason": reason});
        self.transmits
            .push_back(Message::Notification { method: "notifications/cancelled".into(), params: Some(params) });
    }

    /// Fail request `id` with a transport error (its HTTP exchange failed).
    pub fn fail(&mut self, id: u64, error: McpError) {
        if self.pending.remove(&id).is_some() {
            if self.init_request == Some(id) {
                self.init_request = None;
            }
            self.events.push_back(SessionEvent::Completed { id, result: Err(error) });
        }
    }

    /// The connection is gone: fail every pending request with `error` and
    /// refuse new ones with it.
    pub fn fail_all(&mut self, error: McpError) {
        for (id, _) in std::mem::take(&mut self.pending) {
            self.events.push_back(SessionEvent::Completed { id, result: Err(error.clone()) });
        }
        self.init_request = None;
        if !matches!(self.phase, Phase::Closed(_)) {
            self.phase = Phase::Closed(error);
        }
    }

    /// Fail the requests whose deadline passed by `now`, each with a
    /// `notifications/cancelled` to the server.
    pub fn handle_timeout(&mut self, now: Instant) {
        let expired: Vec<u64> = self.pending.iter().filter(|(_, p)| p.deadline <= now).map(|(id, _)| *id).collect();
        for id in expired {
            let Some(p) = self.pending.remove(&id) else { continue };
            let error = McpError::Timeout { method: p.method.clone(), after: p.timeout };
            let was_init = self.init_request == Some(id);
            self.send_canceled(id, &format!("timed out after {:?}", p.timeout));
            self.events.push_back(SessionEvent::Completed { id, result: Err(error.clone()) });
            if was_init && !matches!(self.phase, Phase::Ready) {
                self.fail_all(error);
            }
        }
    }

    /// The earliest deadline of a pending request.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.pending.values().map(|p| p.deadline).min()
    }

    /// The next message to send (replies, notifications), in order.
    pub fn poll_transmit(&mut self) -> Option<Message> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.events.pop_front()
    }

    /// True while request `id` waits for its answer.
    pub fn is_pending(&self, id: u64) -> bool {
        self.pending.contains_key(&id)
    }

    /// The method of pending request `id`.
    pub fn pending_method(&self, id: u64) -> Option<&str> {
        self.pending.get(&id).map(|p| p.method.as_str())
    }

    /// How many requests wait for an answer.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// True once the handshake finished and until the session closed.
    pub fn is_ready(&self) -> bool {
        matches!(self.phase, Phase::Ready)
    }

    /// Why the session closed, once it has.
    pub fn closed(&self) -> Option<&McpError> {
        match &self.phase {
            Phase::Closed(e) => Some(e),
            _ => None,
        }
    }

    /// The negotiated protocol version, after the handshake.
    pub fn protocol_version(&self) -> Option<&str> {
        self.server.as_ref().map(|s| s.protocol_version.as_str())
    }

    /// What the server said about itself, after the handshake.
    pub fn server_info(&self) -> Option<&ServerInfo> {
        self.server.as_ref()
    }

    /// The configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }
}

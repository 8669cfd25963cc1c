//! The state a client shares with its transport's threads: the session
//! behind a lock, the answers waiting for their callers, and the loop a
//! caller runs while it waits (timeouts, cancellation).

use super::elicitation::{self, ElicitationHandler, ElicitationRequest};
use super::error::McpError;
use super::jsonrpc::{Id, Message, RpcError};
use super::listen_state::ListenState;
use super::progress::{Progress, ProgressSink};
use super::sampling::Sampler;
use super::session::{LogMessage, Session, SessionEvent};
use crate::run::cancel::CancellationToken;
use crate::run::contain::contain;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Where log messages go.
pub(crate) type LogSink = Arc<dyn Fn(&LogMessage) + Send + Sync>;

/// Where `notifications/resources/updated` go (SPEC MCP-20).
pub(crate) type ResourceSink = Arc<dyn Fn(&str) + Send + Sync>;

/// What the application handles for the client: its callbacks, and the
/// answerers of server requests.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) log: Option<LogSink>,
    pub(crate) elicit: Option<ElicitationHandler>,
    pub(crate) sampler: Option<Arc<Sampler>>,
    pub(crate) resource_updated: Option<ResourceSink>,
}

/// What moves messages to and from a server.
pub(crate) trait Transport: Send + Sync + 'static {
    /// Start reading from the server into `shared` (stdio's reader thread).
    fn start(&self, _shared: &Arc<Shared>) -> Result<(), McpError> {
        Ok(())
    }
    /// The handshake finished (HTTP: open the standalone GET stream).
    fn ready(&self, _shared: &Arc<Shared>) {}
    /// What the standalone GET stream is doing.
    fn listen_state(&self) -> ListenState {
        ListenState::Off
    }
    /// Send a request whose answer a caller waits for. Failures are fed back
    /// into the session ([`Shared::fail`]).
    fn send_request(&self, shared: &Arc<Shared>, id: u64, message: Message);
    /// Send a reply or a notification, after those sent before it.
    fn send(&self, shared: &Arc<Shared>, message: Message);
    /// The server's process id (stdio).
    fn process_id(&self) -> Option<u32> {
        None
    }
    /// Shut the connection down; idempotent.
    fn close(&self, shared: &Arc<Shared>);
}

pub(crate) struct Inner {
    pub(crate) session: Session,
    /// Answers not yet taken by their callers.
    done: HashMap<u64, Result<Value, McpError>>,
}

/// The session and its transport, shared by the client, its tools and the
/// transport's threads.
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    cond: Condvar,
    pub(crate) transport: Box<dyn Transport>,
    handlers: Handlers,
    /// The server requests being answered (sampling), so the server's
    /// `notifications/cancelled` or the client's close can stop them.
    serving: Mutex<HashMap<Id, CancellationToken>>,
    /// How many times the server said its tools changed: each bridge
    /// compares it with the count at its own listing.
    changes: AtomicU64,
    /// The progress callbacks of calls in flight, by token.
    progress: Mutex<HashMap<String, ProgressSink>>,
    next_token: AtomicU64,
}

impl Shared {
    pub(crate) fn new(session: Session, transport: Box<dyn Transport>, handlers: Handlers) -> Arc<Shared> {
        Arc::new(Shared {
            inner: Mutex::new(Inner { session, done: HashMap::new() }),
            cond: Condvar::new(),
            transport,
            handlers,
            serving: Mutex::new(HashMap::new()),
            changes: AtomicU64::new(0),
            progress: Mutex::new(HashMap::new()),
            next_token: AtomicU64::new(1),
        })
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every critical section leaves the session consistent; a panic in
        // a log sink elsewhere must not wedge the client.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A message from the server.
    pub(crate) fn feed(self: &Arc<Self>, message: Message) {
        let mut inner = self.lock();
        inner.session.handle_message(Instant::now(), message);
        self.pump(inner);
    }

    /// Request `id` failed in transit.
    pub(crate) fn fail(self: &Arc<Self>, id: u64, error: McpError) {
        let mut inner = self.lock();
        inner.session.fail(id, error);
        self.pump(inner);
    }

    /// The connection is gone.
    pub(crate) fn fail_all(self: &Arc<Self>, error: McpError) {
        let mut inner = self.lock();
        inner.session.fail_all(error);
        self.pump(inner);
    }

    /// A note from the transport (skipped output) for the log sink.
    pub(crate) fn note(&self, level: &str, text: String) {
        if let Some(sink) = &self.handlers.log {
            sink(&LogMessage { level: level.into(), logger: Some("golem.mcp".into()), data: text.into() });
        }
    }

    pub(crate) fn protocol_version(&self) -> Option<String> {
        self.lock().session.protocol_version().map(str::to_string)
    }

    pub(crate) fn is_pending(&self, id: u64) -> bool {
        self.lock().session.is_pending(id)
    }

    /// How many tool-list changes the server announced so far.
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::SeqCst)
    }

    /// A fresh progress token routed to `sink` until [`forget_progress`].
    ///
    /// [`forget_progress`]: Self::forget_progress
    pub(crate) fn register_progress(&self, sink: ProgressSink) -> String {
        let token = format!("golem-progress-{}", self.next_token.fetch_add(1, Ordering::SeqCst));
        self.progress.lock().unwrap_or_else(|p| p.into_inner()).insert(token.clone(), sink);
        token
    }

    pub(crate) fn forget_progress(&self, token: &str) {
        self.progress.lock().unwrap_or_else(|p| p.into_inner()).remove(token);
    }

    /// The application's callback for a resource update (SPEC MCP-20);
    /// a panic in it is contained and logged, the reader goes on.
    fn resource_updated(&self, uri: &str) {
        let Some(sink) = &self.handlers.resource_updated else { return };
        if let Err(panicked) = contain("the resource update callback", || sink(uri)) {
            self.note("warning", panicked.to_string());
        }
    }

    fn report_progress(&self, token: &Value, progress: &Progress) {
        let Some(token) = token.as_str() else { return };
        let sink = self.progress.lock().unwrap_or_else(|p| p.into_inner()).get(token).cloned();
        if let Some(sink) = sink {
            sink(progress);
        }
    }

    /// Put an elicitation to the application's handler on a thread of its
    /// own (the user may take long; the transport must keep reading), then
    /// send the answer.
    fn elicit(self: &Arc<Self>, id: Id, params: Value) {
        let request = ElicitationRequest::from_params(&params);
        let Some(handler) = self.handlers.elicit.clone() else {
            return self.respond(id, elicitation::declined());
        };
        let shared = Arc::clone(self);
        let spawned = std::thread::Builder::new().name("golem-mcp-elicit".into()).spawn(move || {
            let answer = match crate::run::contain::contain("the elicitation handler", || handler(&request)) {
                Ok(response) => elicitation::result(&request, response),
                Err(_) => json!({"action": "cancel"}),
            };
            shared.respond(id, answer);
        });
        if let Err(error) = spawned {
            self.note("warning", format!("could not start a thread for an elicitation: {error}"));
        }
    }

    /// Put a sampling request to the application's model on a thread of
    /// its own (SPEC MCP-18), then send the answer — unless the server
    /// canceled the request or the client closed meanwhile.
    fn sample(self: &Arc<Self>, id: Id, params: Value) {
        let Some(sampler) = self.handlers.sampler.clone() else {
            return self.respond_error(id, RpcError::method_not_found("sampling/createMessage"));
        };
        let cancel = CancellationToken::new();
        self.serving().insert(id.clone(), cancel.clone());
        let (shared, id_) = (Arc::clone(self), id.clone());
        let spawned = std::thread::Builder::new().name("golem-mcp-sample".into()).spawn(move || {
            let note = |text: String| shared.note("warning", text);
            let outcome = sampler.answer(&params, &cancel, &note);
            shared.serving().remove(&id_);
            match outcome {
                Some(Ok(result)) => shared.respond(id_, result),
                Some(Err(error)) => shared.respond_error(id_, error),
                None => {}
            }
        });
        if let Err(error) = spawned {
            self.serving().remove(&id);
            self.note("warning", format!("could not start a thread for a sampling request: {error}"));
            let refusal =
                RpcError { code: -32603, message: "the client could not take the request".into(), data: None };
            self.respond_error(id, refusal);
        }
    }

    fn serving(&self) -> MutexGuard<'_, HashMap<Id, CancellationToken>> {
        self.serving.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stop answering every server request (the client is closing).
    pub(crate) fn cancel_serving(&self) {
        self.serving().drain().for_each(|(_, cancel)| cancel.cancel());
    }

    fn respond(self: &Arc<Self>, id: Id, result: Value) {
        let mut inner = self.lock();
        inner.session.respond(id, result);
        self.pump(inner);
    }

    fn respond_error(self: &Arc<Self>, id: Id, error: RpcError) {
        let mut inner = self.lock();
        inner.session.respond_error(id, error);
        self.pump(inner);
    }

    /// Drain the session: send what it wants sent, then publish answers —
    /// in that order, so a caller who sees an answer knows everything it
    /// caused (`notifications/initialized` after `initialize`) went out.
    pub(crate) fn pump(self: &Arc<Self>, mut inner: MutexGuard<'_, Inner>) {
        let transmits: Vec<Message> = std::iter::from_fn(|| inner.session.poll_transmit()).collect();
        let mut answers = Vec::new();
        let mut logs = Vec::new();
        let mut later = Vec::new();
        while let Some(event) = inner.session.poll_event() {
            match event {
                SessionEvent::Completed { id, result } => answers.push((id, result)),
                SessionEvent::Log(log) => logs.push(log),
                SessionEvent::ToolsChanged => {
                    self.changes.fetch_add(1, Ordering::SeqCst);
                }
                other => later.push(other),
            }
        }
        drop(inner);
        for message in transmits {
            self.transport.send(self, message);
        }
        if !answers.is_empty() {
            self.lock().done.extend(answers);
            self.cond.notify_all();
        }
        if let Some(sink) = &self.handlers.log {
            logs.iter().for_each(|log| sink(log));
        }
        for event in later {
            match event {
                SessionEvent::Progress { token, progress } => self.report_progress(&token, &progress),
                SessionEvent::Request { id, method, params } => match method.as_str() {
                    "sampling/createMessage" => self.sample(id, params),
                    _ => self.elicit(id, params),
                },
                SessionEvent::ResourceUpdated { uri } => self.resource_updated(&uri),
                SessionEvent::ServerCanceled { id } => {
                    if let Some(cancel) = self.serving().remove(&id) {
                        cancel.cancel();
                    }
                }
                _ => {}
            }
        }
    }

    /// Send `method` and wait for its answer, its timeout or `cancel`.
    pub(crate) fn call(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        timeout: Option<Duration>,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, McpError> {
        if cancel.is_some_and(CancellationToken::is_canceled) {
            return Err(McpError::Canceled { method: method.to_string() });
        }
        let (id, message) = {
            let mut inner = self.lock();
            let now = Instant::now();
            match timeout {
                Some(timeout) => inner.session.request_with_timeout(now, method, params, timeout)?,
                None => inner.session.request(now, method, params)?,
            }
        };
        self.transport.send_request(self, id, message);
        self.wait(id, method, cancel)
    }

    /// Wait for the answer to request `id`.
    pub(crate) fn wait(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, McpError> {
        let registration = cancel.map(|token| {
            let shared = Arc::clone(self);
            // Taking the lock before notifying means the wake-up cannot fall
            // between the waiter's check and its wait.
            let key = token.on_cancel(move || {
                let _inner = shared.lock();
                shared.cond.notify_all();
            });
            (token, key)
        });
        let result = self.wait_locked(id, method, cancel);
        if let Some((token, key)) = registration {
            token.forget(key);
        }
        result
    }

    fn wait_locked(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, McpError> {
        let mut inner = self.lock();
        loop {
            if let Some(result) = inner.done.remove(&id) {
                return result;
            }
            if cancel.is_some_and(CancellationToken::is_canceled) {
                inner.session.cancel(id, "canceled by the client");
                self.pump(inner);
                return Err(McpError::Canceled { method: method.to_string() });
            }
            let now = Instant::now();
            let deadline = inner.session.poll_timeout();
            if deadline.is_some_and(|d| d <= now) {
                inner.session.handle_timeout(now);
                self.pump(inner);
                inner = self.lock();
                continue;
            }
            // With nothing pending the answer is being published; look
            // again soon.
            let wait = deadline.map_or(Duration::from_millis(50), |d| d - now).min(Duration::from_secs(1));
            inner = match self.cond.wait_timeout(inner, wait) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

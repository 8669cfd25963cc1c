//! The streamable HTTP transport (SPEC MCP-06): every message is a POST;
//! the answer comes back as JSON, as an SSE stream (with server requests
//! and notifications before it), or not at all (202).
//!
//! Each request runs its exchange on its own thread, so parallel tool calls
//! are not serialized and a caller can give up on a stalled stream. Replies
//! and notifications get a thread each too, except the handshake's
//! `notifications/initialized`, which must arrive before what follows it.
//! After the handshake one more thread listens on the standalone GET stream
//! ([`listen`]).

mod backoff;
mod config;
mod listen;
mod resume;
mod status;
mod stream;

pub(crate) use config::shown_url;
pub use config::HttpConfig;
pub use listen::ListenState;

use super::auth::{Authorizer, Challenge};
use super::error::McpError;
use super::jsonrpc::Message;
use super::shared::{Shared, Transport};
use golem_providers::Secret;
use status::Refusal;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use stream::{read_events, Stream};

/// The largest JSON body accepted (SPEC MCP-05's 32 MiB cap).
pub const MAX_BODY: usize = 32 << 20;

const ACCEPT: &str = "application/json, text/event-stream";
const ACCEPT_SSE: &str = "text/event-stream";
const SESSION_HEADER: &str = "Mcp-Session-Id";
const VERSION_HEADER: &str = "MCP-Protocol-Version";
/// DELETE on close is a courtesy; it must not hold a closing client long.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// A GET stream silent this long is taken for a dead connection and opened
/// again (servers send keep-alive comments far more often: the Python SDK
/// every 15 s).
const LISTEN_IDLE: Duration = Duration::from_secs(300);
/// Scope step-ups one request may make (SPEC MCP-15): a server that keeps
/// asking is refused after this many.
const MAX_STEP_UPS: u32 = 2;

/// The transport; its request threads share the inner part.
pub(crate) struct HttpTransport(Arc<HttpInner>);

struct HttpInner {
    agent: ureq::Agent,
    config: HttpConfig,
    session_id: Mutex<Option<String>>,
    /// One re-initialize at a time; the others wait and reuse its session.
    reinit: Mutex<()>,
    closed: AtomicBool,
    /// The GET stream's own agent: shutting it down on close interrupts
    /// the stream without touching the requests' connections.
    listen_agent: ureq::Agent,
    listen: listen::Control,
    /// The OAuth flow, when configured.
    auth: Option<Authorizer>,
    /// The client's request timeout: also the bound on resuming a stream.
    timeout: Duration,
}

impl HttpTransport {
    /// Fails only for a proxy URL the client cannot use.
    pub(crate) fn new(config: HttpConfig, timeout: Duration) -> Result<Self, McpError> {
        Ok(HttpTransport(Arc::new(HttpInner::new(config, timeout)?)))
    }
}

impl HttpInner {
    fn new(config: HttpConfig, timeout: Duration) -> Result<Self, McpError> {
        // Explicit or none: ureq's default reads HTTP_PROXY and friends.
        let proxy = config.ureq_proxy().map_err(McpError::Http)?;
        let connect = Some(timeout.min(Duration::from_secs(30)));
        let listen_agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(proxy.clone())
            .max_redirects(0)
            .timeout_connect(connect)
            // No overall limit: the stream lives as long as the session.
            .timeout_per_read(Some(LISTEN_IDLE))
            .build()
            .new_agent();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(proxy.clone())
            // A redirect would resend the configured headers elsewhere.
            .max_redirects(0)
            .timeout_connect(connect)
            // The session times requests out; this only bounds a stalled
            // exchange thread after its caller gave up.
            .timeout_global(Some(timeout.saturating_add(Duration::from_secs(5))))
            .build()
            .new_agent();
        let auth = config.oauth.clone().map(|oauth| {
            let agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .proxy(proxy)
                .max_redirects(0)
                .timeout_connect(connect)
                .timeout_global(Some(timeout))
                .build()
                .new_agent();
            Authorizer::new(oauth, shown_url(&config.url), agent)
        });
        Ok(HttpInner {
            agent,
            config,
            session_id: Mutex::new(None),
            reinit: Mutex::new(()),
            closed: AtomicBool::new(false),
            listen_agent,
            listen: listen::Control::new(),
            auth,
            timeout,
        })
    }

    fn session_id(&self) -> Option<String> {
        self.session_id.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_session_id(&self, id: Option<String>) {
        *self.session_id.lock().unwrap_or_else(|p| p.into_inner()) = id;
        // A listener waiting for a new session (its GET got 404) goes on.
        self.listen.wake();
    }

    fn http_error(&self, error: ureq::Error) -> McpError {
        // ureq's messages name the failure, never the request headers.
        McpError::Http(error.to_string())
    }

    /// The token for the next request and its generation (0 without OAuth).
    fn bearer(&self) -> (Option<Secret>, u64) {
        match &self.auth {
            Some(auth) => auth.bearer(),
            None => (self.config.bearer.as_ref().map(|b| Secret::new(b.0.as_str())), 0),
        }
    }

    /// Everything an error excerpt must not show: configured header values,
    /// the bearer token in use.
    fn secrets(&self) -> Vec<String> {
        let mut secrets: Vec<String> = self.config.headers.iter().map(|(_, v)| v.0.clone()).collect();
        let token = match &self.auth {
            Some(auth) => auth.current(),
            None => self.config.bearer.as_ref().map(|b| Secret::new(b.0.as_str())),
        };
        secrets.extend(token.map(|t| t.expose().to_string()));
        secrets
    }

    /// A refused request's error.
    fn refused(&self, refusal: Refusal) -> McpError {
        let secrets = self.secrets();
        let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
        refusal.into_error(self.config.shown_url(), &secrets)
    }

    fn post(
        &self,
        message: &Message,
        session: Option<&str>,
        version: Option<&str>,
        token: Option<&Secret>,
    ) -> Result<ureq::http::Response<ureq::Body>, McpError> {
        let mut request =
            self.agent.post(&self.config.url).header("Content-Type", "application/json").header("Accept", ACCEPT);
        request = self.common_headers(request, session, version, token);
        request.send(&message.to_bytes()[..]).map_err(|e| self.http_error(e))
    }

    fn common_headers<B>(
        &self,
        mut request: ureq::RequestBuilder<B>,
        session: Option<&str>,
        version: Option<&str>,
        token: Option<&Secret>,
    ) -> ureq::RequestBuilder<B> {
        for (name, value) in &self.config.headers {
            request = request.header(name.as_str(), value.0.as_str());
        }
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {}", token.expose()));
        }
        if let Some(session) = session {
            request = request.header(SESSION_HEADER, session);
        }
        if let Some(version) = version {
            request = request.header(VERSION_HEADER, version);
        }
        request
    }

    /// Post `message` and feed whatever answers it into the session; with
    /// `expect`, fail unless request `expect` was answered.
    ///
    /// Refusals are acted on where the protocol says how: a 401 runs the
    /// authorization flow once, a 403 `insufficient_scope` steps up (at
    /// most [`MAX_STEP_UPS`] times), and a forgotten session (404, or 400
    /// saying so) is started again, once, for requests.
    fn exchange(&self, shared: &Arc<Shared>, message: &Message, expect: Option<u64>) -> Result<(), McpError> {
        let is_init = message.method() == Some("initialize");
        let (mut reinitialized, mut authorized, mut step_ups) = (false, false, 0);
        loop {
            let session = if is_init { None } else { self.session_id() };
            let version = if is_init { None } else { shared.protocol_version() };
            let (token, generation) = self.bearer();
            let response = self.post(message, session.as_deref(), version.as_deref(), token.as_ref())?;
            let status = response.status().as_u16();
            if (200..300).contains(&status) {
                if is_init {
                    self.set_session_id(session_header(&response)?);
                }
                return self.read_answer(shared, response, expect, message.method().unwrap_or("response"));
            }
            let refusal = Refusal::read(response);
            if let Some(auth) = &self.auth {
                let challenge = Challenge::parse(refusal.challenge.as_deref().unwrap_or_default());
                if status == 401 && !authorized {
                    authorized = true;
                    auth.unauthorized(generation, &challenge)?;
                    continue;
                }
                if status == 403 && challenge.insufficient_scope() && step_ups < MAX_STEP_UPS {
                    step_ups += 1;
                    if auth.step_up(generation, &challenge)? {
                        continue;
                    }
                }
            }
            // Only requests: a notification sent while re-initializing
            // must not recurse.
            if refusal.session_gone() && session.is_some() && expect.is_some() && !reinitialized {
                reinitialized = true;
                self.reinitialize(shared, session.as_deref())?;
                continue;
            }
            return Err(self.refused(refusal));
        }
    }

    fn reinitialize(&self, shared: &Arc<Shared>, stale: Option<&str>) -> Result<(), McpError> {
        let _one_at_a_time = self.reinit.lock().unwrap_or_else(|p| p.into_inner());
        if self.session_id().as_deref() != stale {
            return Ok(()); // another request already did it
        }
        let (id, message) = shared.lock().session.restart(Instant::now())?;
        if let Err(error) = self.exchange(shared, &message, Some(id)) {
            shared.fail(id, error);
        }
        shared.wait(id, "initialize", None).map(drop)
    }

    fn read_answer(
        &self,
        shared: &Arc<Shared>,
        response: ureq::http::Response<ureq::Body>,
        expect: Option<u64>,
        method: &str,
    ) -> Result<(), McpError> {
        let status = response.status().as_u16();
        let content_type = header(&response, "content-type").unwrap_or_default().to_ascii_lowercase();
        let body = response.into_body().into_reader();
        if status != 202 {
            if content_type.starts_with("text/event-stream") {
                let mut stream = Stream::default();
                // Stop reading once our answer is in (or the caller gave up).
                let answered = || expect.is_some_and(|id| !shared.is_pending(id));
                read_events(shared, body, &mut stream, answered).into_result()?;
                if let Some(id) = expect.filter(|id| shared.is_pending(*id) && stream.resumable()) {
                    return resume::resume(self, shared, id, method, stream);
                }
            } else {
                read_json(shared, body)?;
            }
        }
        match expect {
            Some(id) if shared.is_pending(id) => Err(McpError::NoResponse { method: method.to_string() }),
            _ => Ok(()),
        }
    }
}

/// The session id of an initialize response: visible ASCII only.
fn session_header(response: &ureq::http::Response<ureq::Body>) -> Result<Option<String>, McpError> {
    let Some(value) = response.headers().get(SESSION_HEADER) else { return Ok(None) };
    let bytes = value.as_bytes();
    if bytes.is_empty() || !bytes.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(McpError::InvalidSessionId);
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}

fn header(response: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

fn read_json(shared: &Arc<Shared>, body: impl Read) -> Result<(), McpError> {
    let mut bytes = Vec::new();
    body.take(MAX_BODY as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > MAX_BODY {
        return Err(McpError::BodyTooLarge { limit: MAX_BODY });
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    for message in Message::parse_batch(&bytes)? {
        shared.feed(message);
    }
    Ok(())
}

impl Transport for HttpTransport {
    fn ready(&self, shared: &Arc<Shared>) {
        listen::start(&self.0, shared);
    }

    fn listen_state(&self) -> ListenState {
        self.0.listen.state()
    }

    fn send_request(&self, shared: &Arc<Shared>, id: u64, message: Message) {
        let (shared_, inner) = (Arc::clone(shared), Arc::clone(&self.0));
        let spawned = std::thread::Builder::new().name("golem-mcp-http".into()).spawn(move || {
            if let Err(error) = inner.exchange(&shared_, &message, Some(id)) {
                shared_.fail(id, error);
            }
        });
        if let Err(error) = spawned {
            shared.fail(id, error.into());
        }
    }

    fn send(&self, shared: &Arc<Shared>, message: Message) {
        // `notifications/initialized` must reach the server before any
        // request that follows the handshake, so it goes out here and now.
        // Everything else (pongs, cancellations) goes on its own thread, so
        // a stalled server never holds up a caller who is giving up.
        if message.method() == Some("notifications/initialized") {
            return self.0.post_quietly(shared, &message);
        }
        let (shared_, inner) = (Arc::clone(shared), Arc::clone(&self.0));
        let spawned = std::thread::Builder::new()
            .name("golem-mcp-http".into())
            .spawn(move || inner.post_quietly(&shared_, &message));
        if let Err(error) = spawned {
            shared.note("warning", format!("could not start a thread to send a message: {error}"));
        }
    }

    fn close(&self, shared: &Arc<Shared>) {
        self.0.close(shared);
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        // The listener holds the inner part; it must not outlive us.
        listen::stop(&self.0);
    }
}

impl HttpInner {
    /// Send a reply or notification; a failure is only worth a log line.
    fn post_quietly(&self, shared: &Arc<Shared>, message: &Message) {
        if let Err(error) = self.exchange(shared, message, None) {
            let what = message.method().unwrap_or("a reply");
            shared.note("warning", format!("could not send {what}: {error}"));
        }
    }

    fn close(&self, shared: &Arc<Shared>) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        // First, so the server ending the session cannot look like a stream
        // to reconnect.
        listen::stop(self);
        let Some(session) = self.session_id() else { return };
        let version = shared.protocol_version();
        let request = self.agent.delete(&self.config.url).config().timeout_global(Some(CLOSE_TIMEOUT)).build();
        let token = self.bearer().0;
        let request = self.common_headers(request, Some(&session), version.as_deref(), token.as_ref());
        match request.call() {
            // 405: the server does not let clients end sessions; fine.
            Ok(response) if response.status().is_success() || response.status().as_u16() == 405 => {}
            Ok(response) => shared.note("warning", format!("DELETE on close: HTTP status {}", response.status())),
            Err(error) => shared.note("warning", format!("DELETE on close: {}", self.http_error(error))),
        }
    }
}

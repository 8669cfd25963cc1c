//! One streamable-HTTP endpoint as the transport holds it: its HTTP
//! agents, configuration, session id, token and the listener's control —
//! and the plain requests every exchange, resumption and listener is made
//! of. It imports nothing of the transport above it.

use super::config::{shown_url, HttpConfig};
use super::listen_control::Control;
use super::status::Refusal;
use crate::mcp::auth::Authorizer;
use crate::mcp::error::McpError;
use crate::mcp::jsonrpc::Message;
use golem_providers::Secret;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Duration;

/// The largest JSON body accepted (SPEC MCP-05's 32 MiB cap).
pub const MAX_BODY: usize = 32 << 20;

pub(super) const ACCEPT: &str = "application/json, text/event-stream";
pub(super) const ACCEPT_SSE: &str = "text/event-stream";
const SESSION_HEADER: &str = "Mcp-Session-Id";
const VERSION_HEADER: &str = "MCP-Protocol-Version";
/// A GET stream silent this long is taken for a dead connection and opened
/// again (servers send keep-alive comments far more often: the Python SDK
/// every 15 s).
const LISTEN_IDLE: Duration = Duration::from_secs(300);

pub(crate) struct HttpInner {
    pub(super) agent: ureq::Agent,
    pub(super) config: HttpConfig,
    pub(super) session_id: Mutex<Option<String>>,
    /// One re-initialize at a time; the others wait and reuse its session.
    pub(super) reinit: Mutex<()>,
    pub(super) closed: AtomicBool,
    /// The GET stream's own agent: shutting it down on close interrupts
    /// the stream without touching the requests' connections.
    pub(super) listen_agent: ureq::Agent,
    pub(super) listen: Control,
    /// The OAuth flow, when configured.
    pub(super) auth: Option<Authorizer>,
    /// The client's request timeout: also the bound on resuming a stream.
    pub(super) timeout: Duration,
}

impl HttpInner {
    pub(super) fn new(config: HttpConfig, timeout: Duration) -> Result<Self, McpError> {
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
            listen: Control::new(),
            auth,
            timeout,
        })
    }

    pub(super) fn session_id(&self) -> Option<String> {
        self.session_id.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(super) fn set_session_id(&self, id: Option<String>) {
        *self.session_id.lock().unwrap_or_else(|p| p.into_inner()) = id;
        // A listener waiting for a new session (its GET got 404) goes on.
        self.listen.wake();
    }

    /// A failed request as the client reports it: unreachable (refused,
    /// reset before any response: SPEC MCP-22) or another HTTP failure.
    pub(super) fn http_error(&self, error: ureq::Error) -> McpError {
        super::reach::classify(error, self.config.shown_url())
    }

    /// The token for the next request and its generation (0 without OAuth).
    pub(super) fn bearer(&self) -> (Option<Secret>, u64) {
        match &self.auth {
            Some(auth) => auth.bearer(),
            None => (self.config.bearer.as_ref().map(|b| Secret::new(b.0.as_str())), 0),
        }
    }

    /// Everything an error excerpt must not show: configured header values,
    /// the bearer token in use.
    pub(super) fn secrets(&self) -> Vec<String> {
        let mut secrets: Vec<String> = self.config.headers.iter().map(|(_, v)| v.0.clone()).collect();
        let token = match &self.auth {
            Some(auth) => auth.current(),
            None => self.config.bearer.as_ref().map(|b| Secret::new(b.0.as_str())),
        };
        secrets.extend(token.map(|t| t.expose().to_string()));
        secrets
    }

    /// A refused request's error.
    pub(super) fn refused(&self, refusal: Refusal) -> McpError {
        let secrets = self.secrets();
        let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
        refusal.into_error(self.config.shown_url(), &secrets)
    }

    pub(super) fn post(
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

    pub(super) fn common_headers<B>(
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
}

/// The session id of an initialize response: visible ASCII only.
pub(super) fn session_header(response: &ureq::http::Response<ureq::Body>) -> Result<Option<String>, McpError> {
    let Some(value) = response.headers().get(SESSION_HEADER) else { return Ok(None) };
    let bytes = value.as_bytes();
    if bytes.is_empty() || !bytes.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(McpError::InvalidSessionId);
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}

pub(super) fn header(response: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

//! Sending one message and reading what answers it (SPEC MCP-06, MCP-13,
//! MCP-15): a JSON body, an SSE stream (resumed when it breaks off), or
//! 202; the refusals the protocol says how to act on (401, 403 step-up, a
//! forgotten session) are acted on here. Also the quiet sends and close.

use super::connection::{header, session_header, HttpInner, MAX_BODY};
use super::status::Refusal;
use super::stream::{read_events, Stream};
use crate::mcp::auth::Challenge;
use crate::mcp::error::McpError;
use crate::mcp::jsonrpc::Message;
use crate::mcp::shared::Shared;
use std::io::Read;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// DELETE on close is a courtesy; it must not hold a closing client long.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// Scope step-ups one request may make (SPEC MCP-15): a server that keeps
/// asking is refused after this many.
const MAX_STEP_UPS: u32 = 2;

impl HttpInner {
    /// Post `message` and feed whatever answers it into the session; with
    /// `expect`, fail unless request `expect` was answered.
    ///
    /// Refusals are acted on where the protocol says how: a 401 runs the
    /// authorization flow once, a 403 `insufficient_scope` steps up (at
    /// most [`MAX_STEP_UPS`] times), and a forgotten session (404, or 400
    /// saying so) is started again, once, for requests — which are then
    /// sent again when that is safe ([`safe_to_repeat`]).
    pub(super) fn exchange(
        &self,
        shared: &Arc<Shared>,
        message: &Message,
        expect: Option<u64>,
    ) -> Result<(), McpError> {
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
                let method = message.method().unwrap_or_default();
                if !safe_to_repeat(method) {
                    return Err(McpError::SessionLost { method: method.to_string() });
                }
                continue;
            }
            return Err(self.refused(refusal));
        }
    }

    /// Start a new session in place of `stale` (SPEC MCP-21), unless a
    /// request that found it gone at the same time already did.
    pub(super) fn reinitialize(&self, shared: &Arc<Shared>, stale: Option<&str>) -> Result<(), McpError> {
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
                let outcome = read_events(shared, body, &mut stream, answered).checked()?;
                match expect.filter(|id| shared.is_pending(*id)) {
                    Some(id) if stream.resumable() => {
                        return super::resume::resume(self, shared, id, method, stream, outcome.cut);
                    }
                    // The connection broke and nothing can pick the stream
                    // up: the server is gone as far as this answer goes.
                    Some(_) if outcome.cut => {
                        let reason = format!("the connection broke before it answered {method}");
                        return Err(McpError::Unreachable { url: self.config.shown_url(), reason });
                    }
                    _ => {}
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

/// Requests a client may send again after the server lost their session
/// (SPEC MCP-21): the server refused them before doing anything, and they
/// change nothing. Anything else — `tools/call` above all, and methods this
/// client does not know — fails with [`McpError::SessionLost`] instead, so
/// a tool never runs twice without its caller knowing.
fn safe_to_repeat(method: &str) -> bool {
    matches!(
        method,
        "ping"
            | "tools/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
            | "logging/setLevel"
    )
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

impl HttpInner {
    /// Send a reply or notification; a failure is only worth a log line.
    pub(super) fn post_quietly(&self, shared: &Arc<Shared>, message: &Message) {
        if let Err(error) = self.exchange(shared, message, None) {
            let what = message.method().unwrap_or("a reply");
            shared.note("warning", format!("could not send {what}: {error}"));
        }
    }

    pub(super) fn close(&self, shared: &Arc<Shared>) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        // First, so the server ending the session cannot look like a stream
        // to reconnect.
        super::listen::stop(self);
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

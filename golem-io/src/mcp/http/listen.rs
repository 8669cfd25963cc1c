//! The standalone GET stream ("listening for messages from the server",
//! MCP 2025-06-18 and later): after the handshake the client opens a GET
//! on the endpoint and reads the server's own notifications and requests
//! from it, on a thread of its own, until the client closes.
//!
//! Everything on the stream goes into the session like any other server
//! message: `notifications/tools/list_changed` marks bridges stale, logs go
//! to the sink, `ping` is answered `{}` and other requests −32601 — the
//! replies by POST, as every client message is. A 405 means the server
//! offers no stream, which is fine. A stream that ends is opened again with
//! `Last-Event-ID` after the server's `retry:` ([`Backoff`] has the rules);
//! a 404 means the server forgot the session, so the listener waits for a
//! request to start a new one and follows it there.
//!
//! The thread uses an HTTP agent of its own, so that closing can shut its
//! connection down and interrupt a read that would otherwise wait for the
//! server (`ureq::Agent::shutdown`).

use super::backoff::Backoff;
use super::connection::{header, HttpInner, ACCEPT_SSE};
use super::status::Refusal;
use super::stream::{read_events, Stream};
use crate::mcp::error::McpError;
use crate::mcp::listen_state::ListenState;
use crate::mcp::shared::Shared;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// How long closing waits for the listener thread before leaving it to end
/// on its own (a TCP connect in progress is not interrupted; it ends at the
/// connect timeout and then sees the client is closed).
const JOIN_WAIT: Duration = Duration::from_secs(2);

/// How the listener starts a new session in place of one the server
/// forgot (the exchange's re-initialize, handed down by the transport).
pub(super) type Renew = fn(&HttpInner, &Arc<Shared>, Option<&str>) -> Result<(), McpError>;

/// Start listening, once, if the configuration asks for it.
pub(super) fn start(inner: &Arc<HttpInner>, shared: &Arc<Shared>, renew: Renew) {
    if !inner.config.listen {
        return;
    }
    let mut control = inner.listen.lock();
    if control.stopping || control.thread.is_some() {
        return;
    }
    let (inner_, shared_) = (Arc::clone(inner), Arc::downgrade(shared));
    let spawned = std::thread::Builder::new().name("golem-mcp-listen".into()).spawn(move || {
        run(&inner_, &shared_, renew);
        inner_.listen.finished();
    });
    match spawned {
        Ok(thread) => {
            control.thread = Some(thread);
            control.running = true;
            control.state = ListenState::Connecting;
        }
        Err(error) => {
            control.state = ListenState::Failed;
            drop(control);
            shared.note("warning", format!("could not start the GET stream thread: {error}"));
        }
    }
}

/// Stop listening and wait (briefly) for the thread to end. Idempotent.
pub(super) fn stop(inner: &HttpInner) {
    let thread = {
        let mut control = inner.listen.lock();
        if control.stopping {
            return;
        }
        control.stopping = true;
        if !control.running && control.state != ListenState::Off {
            control.state = ListenState::Closed;
        }
        inner.listen.cond.notify_all();
        control.thread.take()
    };
    // Interrupts a read or a request in flight on the listener's connection.
    inner.listen_agent.clone().shutdown();
    let Some(thread) = thread else { return };
    if thread.thread().id() == std::thread::current().id() {
        return; // closed from the listener's own thread (a log sink): it ends on its way out
    }
    if inner.listen.wait_not_running(Instant::now() + JOIN_WAIT) {
        let _ = thread.join();
    }
}

/// Where to resume: event ids and `retry:` belong to one session.
#[derive(Default)]
struct Resume {
    session: Option<String>,
    stream: Stream,
}

/// How one GET went.
enum Attempt {
    /// 405: no stream on offer.
    Unsupported,
    /// An answer that will not change by asking again.
    Refused(String),
    /// 404 for the session: it is gone.
    Forgotten,
    /// No stream this time.
    Failed(String),
    /// The stream opened, then ended.
    Ended { delivered: bool },
}

fn run(inner: &HttpInner, shared: &Weak<Shared>, renew: Renew) {
    let control = &inner.listen;
    let mut backoff = Backoff::default();
    let mut resume = Resume::default();
    while !control.stopping() {
        let Some(strong) = shared.upgrade() else { return };
        let session = inner.session_id();
        if session != resume.session {
            resume = Resume { session: session.clone(), ..Resume::default() };
        }
        control.set(ListenState::Connecting);
        let attempt = listen_once(inner, &strong, &mut resume, &mut backoff);
        if control.stopping() {
            return;
        }
        match attempt {
            Attempt::Unsupported => return control.set(ListenState::Unsupported),
            Attempt::Refused(reason) => {
                strong.note("warning", format!("the server refused the GET stream: {reason}"));
                return control.set(ListenState::Failed);
            }
            Attempt::Forgotten => {
                control.set(ListenState::Connecting);
                // The server restarted or expired the session: start a new
                // one now (SPEC MCP-21), so the next call finds it ready.
                // Failing that, a request will find the session gone too
                // and start one; the stream follows it there either way.
                if let Err(error) = renew(inner, &strong, session.as_deref()) {
                    strong.note("warning", format!("the server forgot the session; starting a new one: {error}"));
                }
                drop(strong);
                if control.wait_until(None, || inner.session_id() != session) {
                    return;
                }
                continue;
            }
            Attempt::Failed(reason) => {
                backoff.failed();
                strong.note("debug", format!("the GET stream failed: {reason}"));
            }
            Attempt::Ended { delivered } => backoff.ended(delivered),
        }
        drop(strong);
        let Some(delay) = backoff.delay(resume.stream.retry) else {
            if let Some(strong) = shared.upgrade() {
                let note = "the GET stream failed too often; not listening until a new session starts";
                strong.note("warning", note.to_string());
            }
            control.set(ListenState::Failed);
            // The server may come back having forgotten the session: the
            // request that finds out starts a new one, and the stream
            // follows it there with its backoff reset.
            if control.wait_until(None, || inner.session_id() != session) {
                return;
            }
            backoff = Backoff::default();
            continue;
        };
        control.set(ListenState::Connecting);
        if control.wait_until(Some(Instant::now() + delay), || false) {
            return;
        }
    }
}

fn listen_once(inner: &HttpInner, shared: &Arc<Shared>, resume: &mut Resume, backoff: &mut Backoff) -> Attempt {
    let version = shared.protocol_version();
    let mut request = inner.listen_agent.get(&inner.config.url).header("Accept", ACCEPT_SSE);
    let token = inner.bearer().0;
    request = inner.common_headers(request, resume.session.as_deref(), version.as_deref(), token.as_ref());
    if resume.stream.resumable() {
        request = request.header("Last-Event-ID", resume.stream.last_event_id.as_str());
    }
    let response = match request.call() {
        Ok(response) => response,
        Err(error) => return Attempt::Failed(inner.http_error(error).to_string()),
    };
    let status = response.status().as_u16();
    match status {
        405 => return Attempt::Unsupported,
        // The server forgot the session (SPEC MCP-21: 404, or a 400 saying
        // so, as the TypeScript SDK's apps answer).
        400 | 404 if resume.session.is_some() => {
            return match Refusal::read(response).session_gone() {
                true => Attempt::Forgotten,
                false => Attempt::Refused(format!("HTTP status {status}")),
            };
        }
        // With OAuth a request refreshes or re-authorizes; the stream
        // follows with the new token.
        401 | 403 if inner.auth.is_some() => return Attempt::Failed(format!("HTTP status {status}")),
        // Busy (409: the server still holds our previous stream), rate
        // limited, or a server error: worth another try later.
        408 | 409 | 425 | 429 | 500..=599 => return Attempt::Failed(format!("HTTP status {status}")),
        200..=299 => {}
        _ => return Attempt::Refused(format!("HTTP status {status}")),
    }
    let content_type = header(&response, "content-type").unwrap_or_default().to_ascii_lowercase();
    if !content_type.starts_with("text/event-stream") {
        return Attempt::Refused(format!("HTTP status {status} with content type {content_type:?}"));
    }
    backoff.opened();
    inner.listen.set(ListenState::Open);
    let delivered = read_stream(shared, response.into_body().into_reader(), resume);
    Attempt::Ended { delivered }
}

/// Feed the stream's messages until it ends; true when it held any.
fn read_stream(shared: &Arc<Shared>, body: impl std::io::Read, resume: &mut Resume) -> bool {
    let outcome = read_events(shared, body, &mut resume.stream, || false);
    if let Some(reason) = &outcome.broken {
        shared.note("warning", format!("the GET stream broke: {reason}"));
    }
    outcome.delivered
}

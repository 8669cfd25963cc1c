//! Resuming a request's SSE stream that ended without its answer (SPEC
//! MCP-12, the 2025-11-25 transport's "resumability"): a GET on the
//! endpoint with `Last-Event-ID`, after the server's `retry:` (else the
//! listener's backoff), until the answer comes, the caller gives up, the
//! attempts run out, or the request's timeout has passed.
//!
//! A server that named no event ids cannot be resumed; that case never
//! gets here ([`Stream::resumable`]).

use super::backoff::Backoff;
use super::connection::{header, HttpInner, ACCEPT_SSE};
use super::reach::unreachable_cause;
use super::status::Refusal;
use super::stream::{read_events, ReadOutcome, Stream};
use crate::mcp::error::McpError;
use crate::mcp::shared::Shared;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// GETs one request's stream may take before the client gives up on it.
pub(super) const MAX_RESUMES: u32 = 10;

/// How often a waiting resumption looks whether it is still wanted.
const POLL: Duration = Duration::from_millis(10);

/// Resume request `id`'s stream until its answer comes. `cut` says the
/// connection broke under the stream rather than the server ending it:
/// without a `retry:` from the server the first GET then goes at once, and
/// any GET the server refuses to even connect fails the request as
/// [`McpError::Unreachable`] (SPEC MCP-22) — backing off is for a server
/// that is there.
pub(super) fn resume(
    inner: &HttpInner,
    shared: &Arc<Shared>,
    id: u64,
    method: &str,
    mut stream: Stream,
    mut cut: bool,
) -> Result<(), McpError> {
    let deadline = Instant::now() + inner.timeout;
    let mut backoff = Backoff::default();
    let wanted = || shared.is_pending(id) && !inner.closed.load(Ordering::SeqCst);
    for _ in 0..MAX_RESUMES {
        let delay = match (cut, stream.retry) {
            (true, None) => Duration::ZERO,
            _ => match backoff.delay(stream.retry) {
                Some(delay) => delay,
                None => break,
            },
        };
        let resume_at = Instant::now() + delay;
        if resume_at >= deadline {
            break;
        }
        while Instant::now() < resume_at {
            if !wanted() {
                return Ok(());
            }
            std::thread::sleep(POLL.min(resume_at.saturating_duration_since(Instant::now())));
        }
        if !wanted() {
            return Ok(());
        }
        match reconnect(inner, shared, id, method, &mut stream)? {
            Some(outcome) => {
                backoff.opened();
                backoff.ended(outcome.delivered);
                cut = outcome.cut;
            }
            None => {
                backoff.failed();
                cut = false;
            }
        }
        if !shared.is_pending(id) {
            return Ok(());
        }
    }
    if shared.is_pending(id) {
        return Err(McpError::NoResponse { method: method.to_string() });
    }
    Ok(())
}

/// One GET: what the stream held when one opened and ended, `None` when
/// none opened this time (worth another try); an error when resuming
/// cannot work (nothing there to connect to, SPEC MCP-22; 405: the server
/// keeps no streams; a session it forgot, SPEC MCP-21; other refusals).
fn reconnect(
    inner: &HttpInner,
    shared: &Arc<Shared>,
    id: u64,
    method: &str,
    stream: &mut Stream,
) -> Result<Option<ReadOutcome>, McpError> {
    let session = inner.session_id();
    let version = shared.protocol_version();
    let token = inner.bearer().0;
    let request = inner.agent.get(&inner.config.url).header("Accept", ACCEPT_SSE);
    let request = inner
        .common_headers(request, session.as_deref(), version.as_deref(), token.as_ref())
        .header("Last-Event-ID", stream.last_event_id.as_str());
    let response = match request.call() {
        Ok(response) => response,
        Err(error) if unreachable_cause(&error).is_some() => return Err(inner.http_error(error)),
        Err(_) => return Ok(None),
    };
    let status = response.status().as_u16();
    match status {
        200..=299 => {}
        408 | 409 | 425 | 429 | 500..=599 => return Ok(None),
        _ => {
            let refusal = Refusal::read(response);
            if refusal.session_gone() && session.is_some() {
                return Err(McpError::SessionLost { method: method.to_string() });
            }
            return Err(inner.refused(refusal));
        }
    }
    let content_type = header(&response, "content-type").unwrap_or_default().to_ascii_lowercase();
    if !content_type.starts_with("text/event-stream") {
        return Err(McpError::Sse(format!("resuming got {content_type:?}, not an event stream")));
    }
    let body = response.into_body().into_reader();
    let outcome = read_events(shared, body, stream, || !shared.is_pending(id));
    outcome.checked().map(Some)
}

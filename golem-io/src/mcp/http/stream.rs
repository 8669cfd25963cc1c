//! Reading one SSE response into the session, and what a reader must keep
//! to pick the stream up again (SPEC MCP-06, MCP-12): the last event id,
//! the server's `retry:`, and the ids already delivered, so a server that
//! replays more than it should cannot make the client act twice.

use crate::mcp::error::McpError;
use crate::mcp::jsonrpc::Message;
use crate::mcp::shared::Shared;
use crate::mcp::sse;
use std::collections::{HashSet, VecDeque};
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

/// How many delivered event ids a stream remembers.
const SEEN_IDS: usize = 4096;

/// Where a stream stands across its connections.
#[derive(Debug, Default)]
pub(super) struct Stream {
    /// The id of the last event (what a reconnection sends as
    /// `Last-Event-ID`); empty before any.
    pub(super) last_event_id: String,
    /// The server's last `retry:`.
    pub(super) retry: Option<Duration>,
    seen: HashSet<String>,
    order: VecDeque<String>,
}

impl Stream {
    /// True the first time event `id` is seen.
    fn first_sight(&mut self, id: &str) -> bool {
        if self.seen.contains(id) {
            return false;
        }
        if self.order.len() == SEEN_IDS {
            if let Some(old) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
        self.seen.insert(id.to_string());
        self.order.push_back(id.to_string());
        true
    }

    /// True when a reconnection could pick the stream up: the server named
    /// its events.
    pub(super) fn resumable(&self) -> bool {
        !self.last_event_id.is_empty()
    }
}

/// What reading a stream came to.
pub(super) struct ReadOutcome {
    /// Messages were delivered (replays of seen events do not count).
    pub(super) delivered: bool,
    /// The stream broke its format; the reason.
    pub(super) broken: Option<String>,
    /// The connection broke under the stream (reset, or closed before the
    /// body's end) rather than the server ending it: the server may be
    /// gone (SPEC MCP-22).
    pub(super) cut: bool,
}

/// Feed the stream's messages into the session until it ends or `done`
/// says stop (checked after each chunk). I/O errors end the reading like
/// an end of stream — the stream is resumable either way — and mark it
/// [cut](ReadOutcome::cut).
pub(super) fn read_events(
    shared: &Arc<Shared>,
    mut body: impl Read,
    stream: &mut Stream,
    done: impl Fn() -> bool,
) -> ReadOutcome {
    let mut decoder = sse::decoder();
    decoder.set_last_event_id(&stream.last_event_id);
    let mut chunk = vec![0u8; 16 << 10];
    let mut outcome = ReadOutcome { delivered: false, broken: None, cut: false };
    loop {
        let n = match body.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => {
                outcome.cut = true;
                break;
            }
        };
        decoder.feed(&chunk[..n]);
        while let Some(event) = decoder.next() {
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    outcome.broken = Some(error.to_string());
                    return outcome;
                }
            };
            let Some(data) = sse::message(&event) else { continue };
            if event.own_id && event.id.as_deref().is_some_and(|id| !stream.first_sight(id)) {
                continue; // a replay of an event already handled
            }
            match Message::parse_batch(data.as_bytes()) {
                Ok(messages) => {
                    outcome.delivered = true;
                    messages.into_iter().for_each(|m| shared.feed(m));
                }
                Err(error) => shared.note("warning", format!("skipped an SSE event that is not JSON-RPC: {error}")),
            }
        }
        // After each chunk, so a stream cut anywhere resumes where it was.
        stream.last_event_id = decoder.last_event_id().to_string();
        if let Some(retry) = decoder.retry() {
            stream.retry = Some(retry);
        }
        if done() {
            break;
        }
    }
    outcome
}

impl ReadOutcome {
    /// The stream's format error as the request's error; else the outcome.
    pub(super) fn checked(self) -> Result<ReadOutcome, McpError> {
        match self.broken {
            Some(reason) => Err(McpError::Sse(reason)),
            None => Ok(self),
        }
    }
}

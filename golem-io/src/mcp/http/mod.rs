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

//!
//! Its rooms, each importing only those below it: `reach` (which failures
//! mean the server is gone), [`connection`] (the
//! endpoint's state and plain requests), `stream` (reading SSE into the
//! session), `resume` and `listen` (GET streams), `exchange` (one message
//! and its answer), and this file, the transport the client drives.

mod backoff;
mod config;
mod connection;
mod exchange;
mod listen;
mod listen_control;
mod reach;
mod resume;
mod status;
mod stream;

pub use config::HttpConfig;
pub use connection::MAX_BODY;

use super::error::McpError;
use super::jsonrpc::Message;
use super::listen_state::ListenState;
use super::shared::{Shared, Transport};
use connection::HttpInner;
use std::sync::Arc;
use std::time::Duration;

/// The transport; its request threads share the inner part.
pub(crate) struct HttpTransport(Arc<HttpInner>);

impl HttpTransport {
    /// Fails only for a proxy URL the client cannot use.
    pub(crate) fn new(config: HttpConfig, timeout: Duration) -> Result<Self, McpError> {
        Ok(HttpTransport(Arc::new(HttpInner::new(config, timeout)?)))
    }
}

impl Transport for HttpTransport {
    fn ready(&self, shared: &Arc<Shared>) {
        listen::start(&self.0, shared, |inner, shared, stale| inner.reinitialize(shared, stale));
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

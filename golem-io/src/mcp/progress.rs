//! Progress of a long request (SPEC MCP-16): the client puts a
//! `progressToken` in the request's `_meta` only when the caller asks for
//! progress, and routes the server's `notifications/progress` for that
//! token to the caller's callback.

use crate::run::cancel::CancellationToken;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// One `notifications/progress` report.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// How far along; it only grows.
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable note, when given.
    pub message: Option<String>,
}

/// Where a call's progress goes; called on a transport thread.
pub(crate) type ProgressSink = Arc<dyn Fn(&Progress) + Send + Sync>;

/// How one call is made: its timeout, cancellation and progress callback.
///
/// ```no_run
/// use golem_io::mcp::{CallOptions, McpClient};
/// use serde_json::json;
/// use std::time::Duration;
///
/// # fn demo(client: &McpClient) -> Result<(), golem_io::mcp::McpError> {
/// let options = CallOptions::new()
///     .timeout(Duration::from_secs(600))
///     .on_progress(|p| eprintln!("{} of {:?}: {:?}", p.progress, p.total, p.message));
/// let result = client.call_tool_with("index", json!({"path": "/srv"}), &options)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) cancel: Option<CancellationToken>,
    pub(crate) progress: Option<ProgressSink>,
}

impl CallOptions {
    /// The client's timeout, no cancellation, no progress.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// Builder-style: this call's timeout (else the client's).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Builder-style: give up when `cancel` fires (and tell the server).
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Builder-style: send a `progressToken` and hand each of the server's
    /// progress reports for it to `sink`, on a transport thread (keep it
    /// short).
    pub fn on_progress(mut self, sink: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("cancel", &self.cancel.is_some())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

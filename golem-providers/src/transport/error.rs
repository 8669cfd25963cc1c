//! Why moving the bytes failed, and what the run machine makes of it
//! (SPEC PROV-COMMON-04/05).

use golem_core::model::{ModelError, ModelErrorKind};
use std::time::Duration;

/// Which wait ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeoutPhase {
    /// Opening the TCP connection or the TLS session.
    Connect,
    /// Waiting for the next bytes of the response (head or body), or for
    /// the server to take the request.
    Read,
    /// The caller's deadline for the whole exchange
    /// ([`HttpRequest::timeout`](crate::http::HttpRequest::timeout)).
    Deadline,
}

impl std::fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connecting",
            TimeoutPhase::Read => "waiting for the server",
            TimeoutPhase::Deadline => "at the call's deadline",
        })
    }
}

/// A failure to move an HTTP exchange. It names hosts, never URLs with
/// their queries, headers or bodies, so it cannot carry a credential
/// (SPEC ERR-06).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The request cannot be sent as given (a malformed URL or header).
    #[error("invalid HTTP request: {reason}")]
    InvalidRequest {
        /// What is wrong.
        reason: String,
    },
    /// No connection could be opened.
    #[error("cannot connect to {host}: {detail}")]
    Connect {
        /// `host:port`.
        host: String,
        /// The cause.
        detail: String,
    },
    /// The TLS handshake failed, e.g. the certificate is not trusted.
    #[error("TLS failure with {host}: {detail}")]
    Tls {
        /// `host:port`.
        host: String,
        /// The cause.
        detail: String,
    },
    /// A wait ran out.
    #[error("timed out {phase} after {}", crate::transport::error::seconds(*after))]
    Timeout {
        /// Which wait.
        phase: TimeoutPhase,
        /// Its length.
        after: Duration,
    },
    /// The connection closed or was reset before the exchange finished —
    /// including a body cut short after the headers.
    #[error("connection lost: {detail}")]
    Reset {
        /// What was happening.
        detail: String,
    },
    /// The server broke HTTP/1.1 (a garbled head, a bad chunk, …).
    #[error("HTTP protocol error: {detail}")]
    Protocol {
        /// The parser's complaint.
        detail: String,
    },
    /// The body, after decompression, is larger than the configured cap
    /// (SPEC PROV-COMMON-07).
    #[error("the response body exceeds {limit} bytes")]
    BodyTooLarge {
        /// The cap in bytes.
        limit: u64,
    },
}

pub(crate) fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

impl TransportError {
    /// Whether another attempt may succeed (SPEC PROV-COMMON-05):
    /// connection faults, resets, protocol damage and timeouts are; a
    /// malformed request, an untrusted certificate and an oversized body
    /// would fail the same way again.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            TransportError::Connect { .. }
                | TransportError::Timeout { .. }
                | TransportError::Reset { .. }
                | TransportError::Protocol { .. }
        )
    }

    /// The classified model error, this error kept as its source.
    pub fn into_model_error(self) -> ModelError {
        let kind = match self {
            TransportError::Timeout { .. } => ModelErrorKind::Timeout,
            TransportError::InvalidRequest { .. } => ModelErrorKind::Encode,
            _ => ModelErrorKind::Transport,
        };
        let retryable = self.is_retryable();
        ModelError::new(kind, format!("transport: {self}")).with_retryable(retryable).with_source(self)
    }

    pub(crate) fn reset(detail: impl Into<String>) -> Self {
        TransportError::Reset { detail: detail.into() }
    }

    pub(crate) fn protocol(detail: impl std::fmt::Display) -> Self {
        TransportError::Protocol { detail: detail.to_string() }
    }

    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        TransportError::InvalidRequest { reason: reason.into() }
    }
}

impl From<TransportError> for ModelError {
    fn from(error: TransportError) -> Self {
        error.into_model_error()
    }
}

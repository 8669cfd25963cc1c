//! Telling a server that is gone from one that answered badly (SPEC
//! MCP-22): a refused connection, or one reset or closed before any
//! response, means nothing is there to answer — the request fails at once
//! as [`McpError::Unreachable`], with that cause, instead of waiting out
//! resumption backoff or being reported as an answer without a response.
//! Timeouts, TLS and protocol errors stay [`McpError::Http`].

use crate::mcp::error::McpError;
use std::io::ErrorKind;

/// Why `error` means the server cannot be reached, if it does.
pub(super) fn unreachable_cause(error: &ureq::Error) -> Option<&'static str> {
    match error {
        ureq::Error::Io(e) => match e.kind() {
            ErrorKind::ConnectionRefused => Some("connection refused"),
            ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => Some("connection reset before any response"),
            ErrorKind::UnexpectedEof | ErrorKind::BrokenPipe | ErrorKind::NotConnected => {
                Some("connection closed before any response")
            }
            ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable | ErrorKind::NetworkDown => {
                Some("no route to the host")
            }
            ErrorKind::AddrNotAvailable => Some("address not available"),
            _ => None,
        },
        ureq::Error::HostNotFound => Some("host not found"),
        ureq::Error::ConnectionFailed => Some("connection failed"),
        _ => None,
    }
}

/// `error` as the client reports it: [`McpError::Unreachable`] for the
/// causes above, else [`McpError::Http`] with ureq's message (which names
/// the failure, never the request's headers).
pub(super) fn classify(error: ureq::Error, url: String) -> McpError {
    match unreachable_cause(&error) {
        Some(reason) => McpError::Unreachable { url, reason: reason.to_string() },
        None => McpError::Http(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_and_resets_are_unreachable_and_timeouts_are_not() {
        let io = |kind: ErrorKind| ureq::Error::Io(std::io::Error::from(kind));
        let url = || "http://127.0.0.1:9/mcp".to_string();
        for (kind, reason) in [
            (ErrorKind::ConnectionRefused, "connection refused"),
            (ErrorKind::ConnectionReset, "connection reset before any response"),
            (ErrorKind::UnexpectedEof, "connection closed before any response"),
        ] {
            let error = classify(io(kind), url());
            assert!(matches!(&error, McpError::Unreachable { reason: r, .. } if r == reason), "{error:?}");
            assert_eq!(error.to_string(), format!("the MCP server at http://127.0.0.1:9/mcp is unreachable: {reason}"));
        }
        assert!(matches!(classify(ureq::Error::HostNotFound, url()), McpError::Unreachable { .. }));
        let timeout = ureq::Error::Timeout(ureq::Timeout::Connect);
        assert!(matches!(classify(timeout, url()), McpError::Http(_)));
        assert!(matches!(classify(io(ErrorKind::TimedOut), url()), McpError::Http(_)));
    }
}

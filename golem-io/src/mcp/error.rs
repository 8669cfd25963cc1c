//! What can go wrong talking to an MCP server (SPEC MCP-02..09, ERR-06).

use super::jsonrpc::ParseError;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// An MCP client failure. Cheap to clone: one failure (a server exit) fails
/// every request in flight.
///
/// Never carries request headers, so configured secrets cannot leak through
/// it (SPEC ERR-06).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The server answered with a JSON-RPC error.
    #[error("MCP error {code}: {message}")]
    Protocol {
        /// The JSON-RPC error code.
        code: i64,
        /// The server's message.
        message: String,
        /// The server's extra data, if any.
        data: Option<Value>,
    },
    /// The server chose a protocol version this client does not speak.
    #[error("the server chose MCP protocol version {version:?}, which this client does not support")]
    UnsupportedProtocolVersion {
        /// The version the server answered with.
        version: String,
    },
    /// A call was made before the initialize handshake finished.
    #[error("the MCP session is not initialized")]
    NotInitialized,
    /// The server sent something that is not a JSON-RPC message.
    #[error("invalid JSON-RPC message from the server: {0}")]
    Parse(#[from] ParseError),
    /// A result that does not have the shape the method promises.
    #[error("invalid {method} result: {reason}")]
    InvalidResult {
        /// The method whose result it is.
        method: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A listing's pagination went wrong (a repeated cursor, too many
    /// pages); the text names the method.
    #[error("MCP pagination: {0}")]
    Pagination(String),
    /// No answer within the request timeout.
    #[error("{method} timed out after {after:?}")]
    Timeout {
        /// The method called.
        method: String,
        /// The timeout that passed.
        after: Duration,
    },
    /// The caller canceled the request.
    #[error("{method} was canceled")]
    Canceled {
        /// The method called.
        method: String,
    },
    /// The stdio server process ended (or closed its stdout).
    #[error("the MCP server exited ({status}); stderr tail: {stderr_tail:?}")]
    ServerExited {
        /// How it ended, as the OS reports it (`exit status: 1`, `signal: 9`, …).
        status: String,
        /// The last 64 KiB of what it wrote to stderr (lossy UTF-8).
        stderr_tail: String,
    },
    /// The stdio server could not be started.
    #[error("could not start the MCP server {program:?}: {source}")]
    Spawn {
        /// The program that was run.
        program: String,
        /// Why it failed.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A stdout line longer than the cap (the session is closed).
    #[error("the MCP server wrote a line longer than {limit} bytes")]
    LineTooLong {
        /// The cap, in bytes.
        limit: usize,
    },
    /// The stdio server is not reading its stdin and the messages waiting
    /// for it reached the bound (the request was not sent).
    #[error("the MCP server is not reading its input: {limit} bytes of messages are already waiting for it")]
    OutgoingQueueFull {
        /// The bound, in bytes.
        limit: usize,
    },
    /// The stdio server closed its stdin while still running: no request
    /// can reach it any more. Requests that were waiting to be written, and
    /// every later one, fail with this at once; answers to those already
    /// written may still come.
    #[error("the MCP server closed its stdin: no request can reach it any more")]
    StdinClosed,
    /// An HTTP response body larger than the cap.
    #[error("the MCP server sent a body larger than {limit} bytes")]
    BodyTooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// A non-2xx HTTP status (the URL without its query), with what the
    /// server said about it (SPEC MCP-13).
    #[error("HTTP status {status} from {url}{}", shown_body(body))]
    HttpStatus {
        /// The status code.
        status: u16,
        /// The endpoint, query and credentials stripped.
        url: String,
        /// The start of the response body ([`BODY_EXCERPT`] characters at
        /// most, control characters replaced, configured secrets redacted);
        /// empty when there was none.
        body: String,
        /// The `WWW-Authenticate` challenge, when the server sent one (401,
        /// 403): where an application starts an authorization flow.
        challenge: Option<String>,
    },
    /// The authorization flow (SPEC MCP-15) failed at `stage`.
    #[error("MCP authorization failed ({stage}): {reason}")]
    Auth {
        /// Where it failed.
        stage: AuthStage,
        /// Why: one line, bounded, with every credential the flow holds or
        /// sent redacted — even one a hostile server echoed back (SPEC
        /// AUTH-03).
        reason: String,
    },
    /// An `Mcp-Session-Id` header with characters outside visible ASCII.
    #[error("the server sent an invalid Mcp-Session-Id header")]
    InvalidSessionId,
    /// The server forgot the session (it restarted, or expired it) before
    /// answering `method`, a request that is not safe to repeat
    /// (`tools/call`): the client started a new session, so the next call
    /// works, but did not send this one again — whether the tool ran is
    /// unknown (SPEC MCP-21). Idempotent requests are sent again instead.
    #[error("the MCP server lost the session before answering {method}; a new session is started, but {method} was not sent again (it may not be safe to repeat)")]
    SessionLost {
        /// The method called.
        method: String,
    },
    /// The HTTP exchange ended without the answer to the request.
    #[error("the server answered {method} with no JSON-RPC response")]
    NoResponse {
        /// The method called.
        method: String,
    },
    /// Nothing is there to answer (SPEC MCP-22): the connection was refused,
    /// or reset or closed before any response, or a request's stream broke
    /// before its answer and could not be picked up again. Reported at
    /// once, with the cause.
    #[error("the MCP server at {url} is unreachable: {reason}")]
    Unreachable {
        /// The endpoint, query and credentials stripped.
        url: String,
        /// What happened (`connection refused`, …).
        reason: String,
    },
    /// The HTTP request itself failed (TLS, timeout, protocol, …).
    #[error("HTTP transport: {0}")]
    Http(String),
    /// An SSE body that breaks the stream format or its bounds.
    #[error("invalid SSE stream: {0}")]
    Sse(String),
    /// An I/O failure talking to the server.
    #[error("MCP transport I/O: {0}")]
    Io(#[source] Arc<std::io::Error>),
    /// The client did not offer `capability` when it connected (see
    /// [`ClientOptions`](crate::mcp::ClientOptions)), so it cannot change
    /// it now.
    #[error("the MCP client did not offer {capability} when it connected")]
    NotOffered {
        /// The capability (`roots`).
        capability: String,
    },
    /// The client was closed.
    #[error("the MCP client is closed")]
    Closed,
}

/// The longest body excerpt an [`McpError::HttpStatus`] keeps, in characters.
pub const BODY_EXCERPT: usize = 512;

/// The stage of the authorization flow an [`McpError::Auth`] failed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthStage {
    /// Finding the protected-resource or authorization-server metadata.
    Discovery,
    /// The metadata names another resource than the server being reached.
    ResourceMismatch,
    /// The authorization server is not the one expected: its metadata
    /// claims another issuer than it was looked up for (RFC 8414 §3.3), or
    /// it is not the issuer a pre-registered client is pinned to (SPEC
    /// AUTH-02).
    Issuer,
    /// Dynamic client registration.
    Registration,
    /// The application's authorize callback, or the redirect it returned.
    Authorize,
    /// The token endpoint.
    Token,
    /// The server kept refusing after the flow ran (a 401 or 403 again).
    Refused,
}

impl std::fmt::Display for AuthStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AuthStage::Discovery => "discovery",
            AuthStage::ResourceMismatch => "resource mismatch",
            AuthStage::Issuer => "issuer mismatch",
            AuthStage::Registration => "client registration",
            AuthStage::Authorize => "authorization",
            AuthStage::Token => "token request",
            AuthStage::Refused => "access refused",
        })
    }
}

fn shown_body(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

impl McpError {
    /// The JSON-RPC error a server answered with, as the typed variant.
    pub(crate) fn protocol(error: super::jsonrpc::RpcError) -> Self {
        McpError::Protocol { code: error.code, message: error.message, data: error.data }
    }

    pub(crate) fn auth(stage: AuthStage, reason: impl Into<String>) -> Self {
        McpError::Auth { stage, reason: reason.into() }
    }

    /// The HTTP status of an [`HttpStatus`](McpError::HttpStatus) error.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            McpError::HttpStatus { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub(crate) fn invalid_result(method: &str, reason: impl Into<String>) -> Self {
        McpError::InvalidResult { method: method.to_string(), reason: reason.into() }
    }
}

impl From<std::io::Error> for McpError {
    fn from(error: std::io::Error) -> Self {
        McpError::Io(Arc::new(error))
    }
}

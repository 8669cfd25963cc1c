//! What the standalone GET stream of a streamable-HTTP client is doing
//! ([`McpClient::listen_state`](super::McpClient::listen_state)); stdio
//! clients are always [`ListenState::Off`]. Its own room so the transport
//! trait and the HTTP transport can both name it without importing each
//! other.

/// What the standalone GET stream is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListenState {
    /// No stream: a stdio client, [`HttpConfig::listen(false)`], or not
    /// started yet.
    ///
    /// [`HttpConfig::listen(false)`]: super::HttpConfig::listen
    Off,
    /// Connecting, or waiting to connect again (after a stream ended, a
    /// failed attempt, or a 404 until a request starts a new session).
    Connecting,
    /// The server answered with an event stream; the client is reading it.
    Open,
    /// The server offers no stream (405 Method Not Allowed).
    Unsupported,
    /// Given up: too many failed attempts in a row, or an answer that will
    /// not change (401, 403, a body that is not an event stream); the log
    /// sink got the reason.
    Failed,
    /// Stopped because the client closed.
    Closed,
}

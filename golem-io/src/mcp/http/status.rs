//! A non-2xx answer as an error worth reading (SPEC MCP-13): a bounded,
//! secret-free excerpt of its body and its `WWW-Authenticate` challenge —
//! and whether it says the session is gone.

use crate::mcp::error::McpError;
use crate::mcp::redact::{excerpt, scrub};
use serde_json::Value;
use std::io::Read;

/// How much of an error body is read at most; the rest is left unread.
const READ_LIMIT: u64 = 64 << 10;

/// What a refused request got back.
pub(crate) struct Refusal {
    pub(crate) status: u16,
    /// The body as read (at most [`READ_LIMIT`] bytes).
    body: Vec<u8>,
    pub(crate) challenge: Option<String>,
}

impl Refusal {
    /// Read the status, the challenge and the start of the body.
    pub(crate) fn read(response: ureq::http::Response<ureq::Body>) -> Refusal {
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get_all("www-authenticate")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(", ");
        let mut body = Vec::new();
        // A body that breaks off is still worth its start.
        let _ = response.into_body().into_reader().take(READ_LIMIT).read_to_end(&mut body);
        Refusal { status, body, challenge: (!challenge.is_empty()).then_some(challenge) }
    }

    /// True for the answers servers give a session they do not know (SPEC
    /// MCP-21), as they really send them: 404, or a 400 whose message talks
    /// of a missing, invalid or uninitialized session — in a JSON-RPC error
    /// with any `id` or none (the TypeScript SDK's own apps leave it out;
    /// its transport sends `null`, the Python SDK 1.x `"server-error"`), or
    /// as a short plain-text body (the Python SDK before 1.10).
    pub(crate) fn session_gone(&self) -> bool {
        match self.status {
            404 => true,
            400 => refusal_message(&self.body).is_some_and(|message| says_session_gone(&message)),
            _ => false,
        }
    }

    /// The error, its excerpt cleaned of control characters and of every
    /// text in `secrets`.
    pub(crate) fn into_error(self, url: String, secrets: &[&str]) -> McpError {
        McpError::HttpStatus {
            status: self.status,
            url,
            body: excerpt(&self.body, secrets),
            challenge: self.challenge.map(|c| scrub(&c, secrets)),
        }
    }
}

/// The longest plain-text body read as a message: a page of HTML or a
/// stack trace is no answer about a session.
const PLAIN_MESSAGE: usize = 200;

/// What a refusal's body says: the `error.message` of a JSON-RPC error
/// object (whatever its `id`), else a short body of plain text.
fn refusal_message(body: &[u8]) -> Option<String> {
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => {
            let error = value.get("error")?;
            let jsonrpc = value.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
            jsonrpc.then(|| error.get("message")?.as_str().map(str::to_string)).flatten()
        }
        Err(_) => {
            let text = std::str::from_utf8(body).ok()?.trim();
            (text.len() <= PLAIN_MESSAGE && !text.starts_with('<')).then(|| text.to_string())
        }
    }
}

fn says_session_gone(message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    let about_session = message.contains("session")
        && ["invalid", "missing", "no valid", "not found", "unknown", "expired", "terminated"]
            .iter()
            .any(|word| message.contains(word));
    // The TypeScript SDK's transport after a restart: it has no session at
    // all until an initialize comes.
    about_session || message.contains("not initialized")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_errors_are_told_from_other_bad_requests() {
        let refusal = |status: u16, body: &str| Refusal { status, body: body.as_bytes().to_vec(), challenge: None };
        // SPEC MCP-21: the id may be null, a string, or missing altogether.
        let ts = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#;
        assert!(refusal(400, ts).session_gone());
        assert!(refusal(400, &ts.replace("}}", "},\"id\":null}")).session_gone());
        assert!(refusal(
            400,
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#
        )
        .session_gone());
        assert!(refusal(400, "Bad Request: No valid session ID provided").session_gone(), "plain text");
        assert!(refusal(404, "").session_gone());
        let other = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;
        assert!(!refusal(400, other).session_gone());
        assert!(!refusal(400, r#"{"error":{"message":"invalid session"}}"#).session_gone(), "not JSON-RPC");
        assert!(!refusal(400, &format!("<html>invalid session {}</html>", "x".repeat(300))).session_gone());
        assert!(!refusal(400, &format!("invalid session {}", "x".repeat(300))).session_gone(), "too long");
        assert!(!refusal(500, ts).session_gone());
    }
}

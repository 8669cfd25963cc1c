//! The flow's own HTTP: JSON metadata by GET, forms and registrations by
//! POST, on a ureq agent that follows no redirect (one would carry client
//! credentials elsewhere) and reads at most 1 MiB.
//!
//! It also keeps every credential that crosses it — form fields that are
//! secrets, the Basic header, tokens and secrets in answers — so that any
//! error the flow raises can be cleaned of them ([`Wire::redact`], SPEC
//! AUTH-03): a server that echoes a request back cannot get a credential
//! into an error's `Display` or `Debug`.

use crate::mcp::error::McpError;
use crate::mcp::redact::{one_line, scrub};
use golem_providers::Secret;
use serde_json::Value;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Mutex};
use url::form_urlencoded;

/// The largest metadata or token response read.
const MAX_BODY: u64 = 1 << 20;
/// The longest `error` / `error_description` an error repeats.
const MAX_DESCRIPTION: usize = 200;
/// The longest reason an authorization error carries.
const MAX_REASON: usize = 400;
/// How many credentials the wire remembers for redaction (the oldest go).
const HELD: usize = 256;

/// Form fields whose values are credentials.
const SECRET_FIELDS: [&str; 7] =
    ["code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "assertion", "subject_token"];
/// Answer members whose values are credentials.
const SECRET_MEMBERS: [&str; 5] =
    ["access_token", "refresh_token", "id_token", "client_secret", "registration_access_token"];

/// A JSON answer: its status and body (`Null` when not JSON).
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Value,
}

impl Answer {
    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The OAuth error of a refused request (`error`, `error_description`,
    /// each bounded), or its status.
    pub(crate) fn oauth_error(&self) -> String {
        let text = |key: &str| self.body.get(key).and_then(Value::as_str).map(|text| one_line(text, MAX_DESCRIPTION));
        match (text("error"), text("error_description")) {
            (Some(error), Some(description)) => format!("HTTP {}: {error}: {description}", self.status),
            (Some(error), None) => format!("HTTP {}: {error}", self.status),
            _ => format!("HTTP status {}", self.status),
        }
    }
}

#[derive(Clone)]
pub(crate) struct Wire {
    agent: ureq::Agent,
    /// The credentials seen, in each form a server could echo them.
    held: Arc<Mutex<VecDeque<String>>>,
}

impl Wire {
    pub(crate) fn new(agent: ureq::Agent) -> Wire {
        Wire { agent, held: Arc::new(Mutex::new(VecDeque::new())) }
    }

    /// Remember `secret` (raw and form-encoded) for redaction.
    pub(crate) fn hold(&self, secret: &str) {
        if secret.is_empty() {
            return;
        }
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        for form in [secret.to_string(), encode(secret)] {
            if !held.contains(&form) {
                if held.len() == HELD {
                    held.pop_front();
                }
                held.push_back(form);
            }
        }
    }

    /// `error` as the flow reports it: an authorization error's reason
    /// cleaned of every credential held, flattened to one line and bounded.
    pub(crate) fn redact(&self, error: McpError) -> McpError {
        let McpError::Auth { stage, reason } = error else { return error };
        let held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let secrets: Vec<&str> = held.iter().map(String::as_str).collect();
        McpError::Auth { stage, reason: one_line(&scrub(&reason, &secrets), MAX_REASON) }
    }

    /// GET `url` as JSON.
    pub(crate) fn get(&self, url: &str) -> Result<Answer, String> {
        let response = self.agent.get(url).header("Accept", "application/json").call().map_err(describe)?;
        Ok(self.read(response))
    }

    /// POST a form; `basic` adds HTTP Basic authentication with the id and
    /// secret URL-encoded first (RFC 6749 §2.3.1).
    pub(crate) fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<(&str, &Secret)>,
    ) -> Result<Answer, String> {
        for (_, value) in form.iter().filter(|(key, _)| SECRET_FIELDS.contains(key)) {
            self.hold(value);
        }
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut request = self
            .agent
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        if let Some((id, secret)) = basic {
            use base64::Engine as _;
            let pair = format!("{}:{}", encode(id), encode(secret.expose()));
            let credentials = base64::engine::general_purpose::STANDARD.encode(pair);
            self.hold(secret.expose());
            self.hold(&credentials);
            request = request.header("Authorization", format!("Basic {credentials}"));
        }
        request.send(body.as_bytes()).map(|r| self.read(r)).map_err(describe)
    }

    /// POST a JSON document.
    pub(crate) fn post_json(&self, url: &str, body: &Value) -> Result<Answer, String> {
        self.agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .send(body.to_string().as_bytes())
            .map(|r| self.read(r))
            .map_err(describe)
    }

    /// The answer, its credentials held.
    fn read(&self, response: ureq::http::Response<ureq::Body>) -> Answer {
        let status = response.status().as_u16();
        let mut bytes = Vec::new();
        let _ = response.into_body().into_reader().take(MAX_BODY).read_to_end(&mut bytes);
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        for member in SECRET_MEMBERS {
            if let Some(secret) = body.get(member).and_then(Value::as_str) {
                self.hold(secret);
            }
        }
        Answer { status, body }
    }
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// ureq's messages name the failure, never request headers or bodies.
fn describe(error: ureq::Error) -> String {
    error.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::error::AuthStage;
    use serde_json::json;

    #[test]
    fn auth_03_held_credentials_are_redacted_in_every_form_and_reasons_are_bounded() {
        let wire = Wire::new(ureq::Agent::new_with_defaults());
        wire.hold("s3cret+/=value");
        let echoed = "got client_secret=s3cret%2B%2F%3Dvalue and s3cret+/=value\n";
        let error = wire.redact(McpError::auth(AuthStage::Token, format!("{echoed}{}", "x".repeat(1000))));
        let McpError::Auth { reason, .. } = &error else { unreachable!() };
        assert!(!reason.contains("s3cret"), "{reason}");
        assert!(reason.starts_with("got client_secret=[redacted] and [redacted]"), "{reason}");
        assert_eq!(reason.chars().count(), MAX_REASON + 1);
        assert!(!reason.contains('\n'));
        let answer = Answer { status: 400, body: json!({"error": "e", "error_description": "d".repeat(5000)}) };
        assert!(answer.oauth_error().chars().count() < 250);
    }
}

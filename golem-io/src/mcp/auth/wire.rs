//! The flow's own HTTP: JSON metadata by GET, forms and registrations by
//! POST, on a ureq agent that follows no redirect (one would carry client
//! credentials elsewhere) and reads at most 1 MiB.

use golem_providers::Secret;
use serde_json::Value;
use std::io::Read;
use url::form_urlencoded;

/// The largest metadata or token response read.
const MAX_BODY: u64 = 1 << 20;

/// A JSON answer: its status and body (`Null` when not JSON).
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Value,
}

impl Answer {
    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The OAuth error of a refused request (`error`, `error_description`),
    /// or its status.
    pub(crate) fn oauth_error(&self) -> String {
        let text = |key: &str| self.body.get(key).and_then(Value::as_str).map(str::to_string);
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
}

impl Wire {
    pub(crate) fn new(agent: ureq::Agent) -> Wire {
        Wire { agent }
    }

    /// GET `url` as JSON.
    pub(crate) fn get(&self, url: &str) -> Result<Answer, String> {
        let response = self.agent.get(url).header("Accept", "application/json").call().map_err(describe)?;
        Ok(read(response))
    }

    /// POST a form; `basic` adds HTTP Basic authentication with the id and
    /// secret URL-encoded first (RFC 6749 §2.3.1).
    pub(crate) fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<(&str, &Secret)>,
    ) -> Result<Answer, String> {
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut request = self
            .agent
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        if let Some((id, secret)) = basic {
            use base64::Engine as _;
            let pair = format!("{}:{}", encode(id), encode(secret.expose()));
            let value = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair));
            request = request.header("Authorization", value);
        }
        request.send(body.as_bytes()).map(read).map_err(describe)
    }

    /// POST a JSON document.
    pub(crate) fn post_json(&self, url: &str, body: &Value) -> Result<Answer, String> {
        self.agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .send(body.to_string().as_bytes())
            .map(read)
            .map_err(describe)
    }
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn read(response: ureq::http::Response<ureq::Body>) -> Answer {
    let status = response.status().as_u16();
    let mut bytes = Vec::new();
    let _ = response.into_body().into_reader().take(MAX_BODY).read_to_end(&mut bytes);
    Answer { status, body: serde_json::from_slice(&bytes).unwrap_or(Value::Null) }
}

/// ureq's messages name the failure, never request headers or bodies.
fn describe(error: ureq::Error) -> String {
    error.to_string()
}

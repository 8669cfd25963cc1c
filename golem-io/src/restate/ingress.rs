//! A small blocking client of Restate's ingress for the golem workflow:
//! start a durable run, see what it waits on, resolve a call, read the
//! outcome. Any HTTP client does the same; this one spares callers the
//! paths and the JSON.

use super::wire::{DurableOutcome, Resolution, RunRequest, RunStatus};
use super::SERVICE_NAME;
use std::io::Read;
use std::time::{Duration, Instant};

/// The largest ingress answer read: an outcome carries the run's messages
/// and event logs.
const MAX_BODY: u64 = 64 << 20;

/// A failed ingress request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngressError {
    /// The request did not reach Restate or its answer did not arrive.
    #[error("restate ingress unreachable: {0}")]
    Transport(String),
    /// Restate (or the handler) answered with an error status.
    #[error("restate ingress answered {status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// Restate's message (the handler's terminal error, for one).
        message: String,
    },
    /// The answer is not the JSON the handler returns.
    #[error("restate ingress answer does not decode: {0}")]
    Decode(String),
    /// The workflow key is empty or not a plain path segment.
    #[error("workflow key {0:?} must be 1..=128 characters of A-Z a-z 0-9 - _ .")]
    Key(String),
    /// [`Ingress::wait_until_waiting`] ran out of time.
    #[error("the run did not wait on a deferred call within {0:?}")]
    Timeout(Duration),
}

/// A blocking client of one Restate ingress (`http://host:8080`).
///
/// ```no_run
/// use golem_io::restate::{Ingress, Resolution, RunRequest};
///
/// let ingress = Ingress::new("http://127.0.0.1:8080");
/// ingress.start("order-42", &RunRequest::new("support", "refund order 42"))?;
/// let status = ingress.wait_until_waiting("order-42", std::time::Duration::from_secs(30))?;
/// ingress.resolve("order-42", &Resolution::approve(&status.waiting[0].call.call_id))?;
/// let outcome = ingress.outcome("order-42")?;
/// println!("{:?}", outcome.output());
/// # Ok::<(), golem_io::restate::IngressError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Ingress {
    base: String,
    agent: ureq::Agent,
}

impl Ingress {
    /// A client of the ingress at `base` (no trailing path).
    pub fn new(base: impl Into<String>) -> Self {
        let config = ureq::Agent::config_builder().http_status_as_error(false).proxy(None).build();
        Ingress { base: base.into().trim_end_matches('/').to_string(), agent: config.new_agent() }
    }

    /// Start the durable run `key` (not waiting for it). Starting a key
    /// again is refused by Restate while its first run is kept.
    pub fn start(&self, key: &str, request: &RunRequest) -> Result<(), IngressError> {
        let body = serde_json::to_vec(request).map_err(|e| IngressError::Decode(e.to_string()))?;
        self.post(&format!("{}/{SERVICE_NAME}/{}/run/send", self.base, segment(key)?), &body).map(drop)
    }

    /// What run `key` waits on.
    pub fn status(&self, key: &str) -> Result<RunStatus, IngressError> {
        let answer = self.post(&format!("{}/{SERVICE_NAME}/{}/status", self.base, segment(key)?), b"")?;
        serde_json::from_slice(&answer).map_err(|e| IngressError::Decode(e.to_string()))
    }

    /// Resolve one waiting call of run `key`.
    pub fn resolve(&self, key: &str, resolution: &Resolution) -> Result<(), IngressError> {
        let body = serde_json::to_vec(resolution).map_err(|e| IngressError::Decode(e.to_string()))?;
        self.post(&format!("{}/{SERVICE_NAME}/{}/resolve", self.base, segment(key)?), &body).map(drop)
    }

    /// Poll [`status`](Self::status) until run `key` waits on a call.
    pub fn wait_until_waiting(&self, key: &str, timeout: Duration) -> Result<RunStatus, IngressError> {
        let started = Instant::now();
        loop {
            let status = self.status(key)?;
            if !status.waiting.is_empty() {
                return Ok(status);
            }
            if started.elapsed() >= timeout {
                return Err(IngressError::Timeout(timeout));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Wait for run `key` to end and return its outcome (Restate's
    /// workflow attach: it blocks while the run works or waits). A failed
    /// run's error has its `source` again, rebuilt from the outcome's
    /// [`causes`](DurableOutcome::causes) as a
    /// [`JournaledError`](super::JournaledError).
    pub fn outcome(&self, key: &str) -> Result<DurableOutcome, IngressError> {
        let url = format!("{}/restate/workflow/{SERVICE_NAME}/{}/attach", self.base, segment(key)?);
        let response = self.agent.get(&url).call().map_err(|e| IngressError::Transport(e.to_string()))?;
        let answer = read(response)?;
        let outcome: DurableOutcome =
            serde_json::from_slice(&answer).map_err(|e| IngressError::Decode(e.to_string()))?;
        Ok(outcome.with_source())
    }

    fn post(&self, url: &str, body: &[u8]) -> Result<Vec<u8>, IngressError> {
        let request = self.agent.post(url);
        // A handler without input wants no body and no content type.
        let sent = if body.is_empty() {
            request.send_empty()
        } else {
            request.header("Content-Type", "application/json").send(body)
        };
        read(sent.map_err(|e| IngressError::Transport(e.to_string()))?)
    }
}

/// The body of a success, or the status and Restate's message.
fn read(response: ureq::http::Response<ureq::Body>) -> Result<Vec<u8>, IngressError> {
    let status = response.status().as_u16();
    let mut bytes = Vec::new();
    response
        .into_body()
        .into_reader()
        .take(MAX_BODY)
        .read_to_end(&mut bytes)
        .map_err(|e| IngressError::Transport(e.to_string()))?;
    if (200..300).contains(&status) {
        return Ok(bytes);
    }
    // Restate's errors are `{"message": ...}`; anything else verbatim.
    let message = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_string))
        .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned());
    Err(IngressError::Status { status, message })
}

/// `key` as a path segment, refused unless plain.
fn segment(key: &str) -> Result<&str, IngressError> {
    let plain = key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if key.is_empty() || key.len() > 128 || !plain || key == "." || key == ".." {
        return Err(IngressError::Key(key.to_string()));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_must_be_plain_path_segments() {
        for key in ["order-17", "a.b_c", "X"] {
            assert_eq!(segment(key).unwrap(), key);
        }
        let long = "k".repeat(129);
        for key in ["", ".", "..", "a/b", "a b", "ä", "a?b", long.as_str()] {
            assert!(matches!(segment(key), Err(IngressError::Key(_))), "{key:?}");
        }
    }

    #[test]
    fn an_unreachable_ingress_is_a_transport_error() {
        // A port nobody listens on: bound, then released.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let ingress = Ingress::new(format!("http://127.0.0.1:{port}/"));
        let error = ingress.status("run-1").unwrap_err();
        assert!(matches!(error, IngressError::Transport(_)), "{error}");
        assert!(matches!(ingress.start("bad key", &RunRequest::new("a", "p")), Err(IngressError::Key(_))));
    }
}

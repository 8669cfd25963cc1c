//! Registering a deployment with Restate's admin API, so the server knows
//! where the golem workflow is served.

use super::IngressError;
use std::io::Read;
use std::time::{Duration, Instant};

/// Register (or update, `force`) the deployment serving at `deployment`
/// (`http://host:9080`) with the admin API at `admin`
/// (`http://host:9070`): `POST /deployments`. Retries for up to `patience`
/// while the server or the service is still starting.
pub fn register_deployment(admin: &str, deployment: &str, patience: Duration) -> Result<(), IngressError> {
    let agent = ureq::Agent::config_builder().http_status_as_error(false).proxy(None).build().new_agent();
    let url = format!("{}/deployments", admin.trim_end_matches('/'));
    let body = serde_json::json!({ "uri": deployment, "force": true }).to_string();
    let started = Instant::now();
    loop {
        let error = match agent.post(&url).header("Content-Type", "application/json").send(body.as_bytes()) {
            Ok(response) if response.status().is_success() => return Ok(()),
            Ok(response) => {
                let status = response.status().as_u16();
                let mut text = String::new();
                let _ = response.into_body().into_reader().take(64 << 10).read_to_string(&mut text);
                IngressError::Status { status, message: text }
            }
            Err(e) => IngressError::Transport(e.to_string()),
        };
        if started.elapsed() >= patience {
            return Err(error);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

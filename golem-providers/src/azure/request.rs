//! The HTTP request for an Azure deployment (SPEC PROV-AZ-01):
//! `POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version={version}`
//! with deployment and version percent-encoded, the body without `model`
//! (the deployment names it), and `api-key` or a bearer token as a secret
//! header.

use super::config::{Auth, Config};
use crate::chat_completions::request::{encode_body_reusing, EncodeCache};
use crate::http::{HeaderValue, HttpRequest};
use crate::percent;
use crate::secret::Secret;
use golem_core::model::{ModelError, Request};

/// The chat-completions URL of the configured deployment.
pub fn url(config: &Config) -> String {
    format!(
        "{}/openai/deployments/{}/chat/completions?api-version={}",
        config.endpoint(),
        percent::encode(config.deployment()),
        percent::encode(config.api_version())
    )
}

/// Build the HTTP request for `request`, reusing the bytes `cache` holds
/// for the beginning of its history.
pub fn encode(
    config: &Config,
    cache: &EncodeCache,
    request: &Request,
    stream: bool,
) -> Result<HttpRequest, ModelError> {
    let body = encode_body_reusing(request, None, config.tuning(), config.dialect(), stream, cache)?;
    let http = HttpRequest::post_json(url(config), body, stream).with_headers(config.headers());
    Ok(match config.auth() {
        Some(Auth::ApiKey(key)) => http.with_header("api-key", HeaderValue::Secret(key.clone())),
        Some(Auth::Bearer(token)) => {
            http.with_header("authorization", HeaderValue::Secret(Secret::new(format!("Bearer {}", token.expose()))))
        }
        None => http,
    })
}

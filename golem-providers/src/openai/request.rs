//! The HTTP request for an OpenAI-compatible service (SPEC PROV-OAI-01):
//! `POST {base}/chat/completions`, `Authorization: Bearer <key>` as a
//! secret header, none when a local preset has no key.

use super::config::Config;
use crate::chat_completions::request::{encode_body_reusing, EncodeCache};
use crate::http::{HeaderValue, HttpRequest};
use crate::secret::Secret;
use golem_core::model::{ModelError, Request};

/// Build the HTTP request for `request`, reusing the bytes `cache` holds
/// for the beginning of its history.
pub fn encode(
    config: &Config,
    cache: &EncodeCache,
    request: &Request,
    stream: bool,
) -> Result<HttpRequest, ModelError> {
    let body = encode_body_reusing(request, Some(config.model()), config.tuning(), config.dialect(), stream, cache)?;
    let mut http = HttpRequest::post_json(format!("{}/chat/completions", config.base_url()), body, stream);
    if let Some(key) = config.api_key() {
        let bearer = Secret::new(format!("Bearer {}", key.expose()));
        http = http.with_header("authorization", HeaderValue::Secret(bearer));
    }
    for (name, value) in config.headers() {
        http = http.with_header(name.to_ascii_lowercase(), value.clone());
    }
    Ok(http)
}

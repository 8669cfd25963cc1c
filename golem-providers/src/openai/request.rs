//! The HTTP request for an OpenAI-compatible service (SPEC PROV-OAI-01):
//! `POST {base}/chat/completions`, `Authorization: Bearer <key>` as a
//! secret header, none when a local preset has no key.

use super::config::Config;
use crate::chat_completions::request::{encode_body_reusing, EncodeCache};
use crate::http::{HeaderValue, HttpRequest};
use crate::secret::Secret;
use golem_core::model::{ModelError, Request};

/// The parts of every request that depend on the configuration alone,
/// built once per codec rather than formatted per request.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fixed {
    url: String,
    /// `Bearer <key>`, shared by every request's header.
    bearer: Option<Secret>,
}

impl Fixed {
    pub(crate) fn of(config: &Config) -> Fixed {
        Fixed {
            url: format!("{}/chat/completions", config.base_url()),
            bearer: config.api_key().map(|key| Secret::new(format!("Bearer {}", key.expose()))),
        }
    }
}

/// Build the HTTP request for `request`, reusing the bytes `cache` holds
/// for the beginning of its history.
pub(crate) fn encode(
    config: &Config,
    fixed: &Fixed,
    cache: &EncodeCache,
    request: &Request,
    stream: bool,
) -> Result<HttpRequest, ModelError> {
    let body = encode_body_reusing(request, Some(config.model()), config.tuning(), config.dialect(), stream, cache)?;
    let mut http = HttpRequest::post_json(fixed.url.clone(), body, stream);
    if let Some(bearer) = &fixed.bearer {
        http = http.with_header("authorization", HeaderValue::Secret(bearer.clone()));
    }
    Ok(http.with_headers(config.headers()))
}

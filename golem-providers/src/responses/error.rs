//! Errors (SPEC PROV-RESP-04, PROV-COMMON-04/05, ERR-06): the Responses API reports
//! them as Chat Completions does — `{"error": {"message", "type", "param",
//! "code"}}` on a non-2xx response, classified by
//! [`crate::chat_completions::error`] (429 with its Retry-After, 5xx,
//! quota and context length) — and besides, inside a 200: a response whose
//! `status` is `failed` carries its `error`, and a stream may end with an
//! `error` event or `response.failed`. Those have no status to go by, so
//! their code decides: server errors and rate limits are worth another
//! attempt, anything else is not.

use crate::chat_completions::error::{self, ErrorBody};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::model::ModelError;
use serde_json::Value;

/// The classified error for a non-2xx response.
///
/// ```
/// use golem_providers::http::HttpResponseHead;
/// use golem_providers::responses::error_from_response;
///
/// let body = br#"{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}"#;
/// let head = HttpResponseHead::new(429, vec![("retry-after".into(), "2".into())]);
/// let error = error_from_response(&head, body, None);
/// assert!(error.retryable);
/// assert_eq!(error.code, "rate_limit_exceeded");
/// ```
pub fn error_from_response(head: &HttpResponseHead, body: &[u8], key: Option<&Secret>) -> ModelError {
    error::from_response(head, body, key)
}

/// The error a failed response, an `error` event or `response.failed`
/// (`value`: the response or the event) reports inside a 200.
pub(crate) fn in_band(head: &HttpResponseHead, value: &Value, key: Option<&Secret>) -> ModelError {
    let body = ErrorBody::from_value(value).unwrap_or_default();
    error::in_band(head, &body, key)
}

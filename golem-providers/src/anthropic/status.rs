//! Error bodies (SPEC PROV-ANT-07, PROV-COMMON-04/05, RETRY-03, ERR-06).
//!
//! Anthropic reports failures as `{"type": "error", "error": {"type":
//! "overloaded_error", "message": "Overloaded"}}` — as the body of a
//! non-2xx response, or as an `error` event of a stream that already
//! began with 200. The error's code is its `type`. A `retry-after` header
//! is read as for every provider; in a stream there is no status, so the
//! type stands in for one: overload (529), rate limit (429) and API
//! errors (500) stay retryable, an invalid request (400) does not.

use crate::classify::{api_error, unrecognised_body};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::model::ModelError;
use serde_json::Value;

/// The classified error for a non-2xx response: 401/403 → auth; 408,
/// 429, 529 and other 5xx retryable; `retry-after` as the hint.
///
/// ```
/// use golem_providers::anthropic::error_from_response;
/// use golem_providers::http::HttpResponseHead;
/// use std::time::Duration;
///
/// let body = br#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
/// let head = HttpResponseHead::new(529, vec![("retry-after".into(), "7".into())]);
/// let error = error_from_response(&head, body, None);
/// assert!(error.retryable);
/// assert_eq!((error.code.as_str(), error.message.as_str()), ("overloaded_error", "Overloaded"));
/// assert_eq!(error.retry_after, Some(Duration::from_secs(7)));
/// ```
pub fn error_from_response(head: &HttpResponseHead, body: &[u8], key: Option<&Secret>) -> ModelError {
    let value = serde_json::from_slice::<Value>(body).ok();
    match value.as_ref().and_then(|v| v.get("error")).filter(|e| e.is_object()) {
        Some(error) => {
            let text = |field: &str| error.get(field).and_then(Value::as_str).unwrap_or_default();
            api_error(head, text("message"), text("type"), key)
        }
        None => unrecognised_body(head, body, key),
    }
}

/// An `error` object met inside a 200 stream: the HTTP status the API
/// gives its type stands in for the missing one.
pub(crate) fn in_band(head: &HttpResponseHead, error: &Value, key: Option<&Secret>) -> ModelError {
    let text = |field: &str| error.get(field).and_then(Value::as_str).unwrap_or_default();
    let status = type_status(text("type"));
    api_error(&HttpResponseHead { status, ..head.clone() }, text("message"), text("type"), key)
}

/// The HTTP status Anthropic documents for each error type; an unknown
/// type counts as a server fault (500), worth another attempt.
fn type_status(kind: &str) -> u16 {
    match kind {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    }
}

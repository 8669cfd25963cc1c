//! Error bodies (SPEC PROV-GEM-08, PROV-COMMON-04/05, RETRY-03, ERR-06).
//!
//! Gemini reports failures as a `google.rpc.Status` under `error`:
//! `{"error": {"code": 429, "message": "…", "status": "RESOURCE_EXHAUSTED",
//! "details": [...]}}` — as the body of a non-2xx response, as a chunk of
//! a stream that already began, or wrapped in a one-element array when
//! the stream was JSON-array framed. The error's code is the `status`
//! name. A `RetryInfo` detail's `retryDelay` is the wait the server asks
//! for and reaches the run machine as the Retry-After hint does; a
//! `Retry-After` header, where a gateway adds one, is read first.

use crate::classify::{api_error, unrecognised_body};
use crate::http::HttpResponseHead;
use crate::retry_after;
use crate::secret::Secret;
use golem_core::model::{ModelError, ModelErrorKind};
use serde_json::Value;
use std::time::Duration;

const RETRY_INFO: &str = "type.googleapis.com/google.rpc.RetryInfo";
const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// The classified error for a non-2xx response: 401/403 (and a 400 whose
/// `ErrorInfo` says the key is invalid) → auth; 408, 429 and 5xx
/// retryable; the `RetryInfo` delay as the Retry-After hint.
///
/// ```
/// use golem_providers::gemini::error_from_response;
/// use golem_providers::http::HttpResponseHead;
/// use std::time::Duration;
///
/// let body = br#"{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED",
///   "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}]}}"#;
/// let error = error_from_response(&HttpResponseHead::new(429, vec![]), body, None);
/// assert!(error.retryable);
/// assert_eq!(error.code, "RESOURCE_EXHAUSTED");
/// assert_eq!(error.retry_after, Some(Duration::from_secs(13)));
/// ```
pub fn error_from_response(head: &HttpResponseHead, body: &[u8], key: Option<&Secret>) -> ModelError {
    let value = serde_json::from_slice::<Value>(body).ok();
    let error = value.as_ref().map(unwrap_array).and_then(|v| v.get("error")).filter(|e| e.is_object());
    match error {
        Some(error) => classified(head, error, key),
        None => unrecognised_body(head, body, key),
    }
}

/// An `error` object met inside a 2xx response (a stream chunk): its
/// numeric `code`, else its `status` name, stands in for the HTTP status.
pub(crate) fn in_band(head: &HttpResponseHead, error: &Value, key: Option<&Secret>) -> ModelError {
    let code = error.get("code").and_then(Value::as_u64).and_then(|c| u16::try_from(c).ok());
    let status = code
        .filter(|c| (400..600).contains(c))
        .or_else(|| error.get("status").and_then(Value::as_str).and_then(http_status))
        .unwrap_or(500);
    classified(&HttpResponseHead { status, ..head.clone() }, error, key)
}

/// The wait a `RetryInfo` detail asks for, if `details` holds one.
///
/// ```
/// use golem_providers::gemini::retry_info;
/// use std::time::Duration;
///
/// let details = serde_json::json!([{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.5s"}]);
/// assert_eq!(retry_info(&details), Some(Duration::from_millis(500)));
/// ```
pub fn retry_info(details: &Value) -> Option<Duration> {
    detail(details, RETRY_INFO)?.get("retryDelay").and_then(Value::as_str).and_then(retry_after::from_seconds)
}

fn classified(head: &HttpResponseHead, error: &Value, key: Option<&Secret>) -> ModelError {
    let text = |field: &str| error.get(field).and_then(Value::as_str).unwrap_or_default();
    let details = error.get("details").unwrap_or(&Value::Null);
    let mut classified = api_error(head, text("message"), text("status"), key);
    if classified.retry_after.is_none() {
        classified.retry_after = retry_info(details);
    }
    let invalid_key = detail(details, ERROR_INFO)
        .and_then(|info| info.get("reason"))
        .is_some_and(|reason| reason == "API_KEY_INVALID");
    if invalid_key {
        classified.kind = ModelErrorKind::Auth;
    }
    classified
}

fn detail<'a>(details: &'a Value, kind: &str) -> Option<&'a Value> {
    details.as_array()?.iter().find(|d| d.get("@type").and_then(Value::as_str) == Some(kind))
}

/// A JSON-array framed reply holds its error in its first element.
fn unwrap_array(value: &Value) -> &Value {
    match value {
        Value::Array(items) => items.first().unwrap_or(value),
        other => other,
    }
}

/// The HTTP status Google maps a `google.rpc.Code` name to.
fn http_status(name: &str) -> Option<u16> {
    Some(match name {
        "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "OUT_OF_RANGE" => 400,
        "UNAUTHENTICATED" => 401,
        "PERMISSION_DENIED" => 403,
        "NOT_FOUND" => 404,
        "ABORTED" | "ALREADY_EXISTS" => 409,
        "RESOURCE_EXHAUSTED" => 429,
        "CANCELLED" => 499,
        "INTERNAL" | "UNKNOWN" | "DATA_LOSS" => 500,
        "UNIMPLEMENTED" => 501,
        "UNAVAILABLE" => 503,
        "DEADLINE_EXCEEDED" => 504,
        _ => return None,
    })
}

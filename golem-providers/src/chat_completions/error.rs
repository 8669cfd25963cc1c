//! Error bodies (SPEC PROV-OAI-05): `{"error": {"message", "type", "code",
//! "param"}}`, where `code` is a string, a number or null.
//!
//! Compatible services vary — `{"error": "text"}`, a top-level `message`
//! (vLLM), a FastAPI `detail` — so each shape is tried before falling back
//! to quoting the body.

use crate::classify::{api_error, in_band_error, unrecognised_body};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::model::ModelError;
use serde_json::Value;

/// The parts of an error body the classification needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorBody {
    /// The human-readable message (with `param` appended when given).
    pub message: String,
    /// `code` as text (a number is written in decimal), empty when absent.
    pub code: String,
    /// `type`, empty when absent.
    pub kind: String,
}

impl ErrorBody {
    /// Read an error out of a JSON value; `None` when it has no recognisable
    /// error shape.
    pub fn from_value(value: &Value) -> Option<ErrorBody> {
        let fields = match value.get("error") {
            Some(Value::Object(error)) => error,
            Some(Value::String(message)) => {
                return Some(ErrorBody { message: message.clone(), ..ErrorBody::default() })
            }
            _ => match value {
                Value::Object(top) if top.get("message").is_some_and(Value::is_string) => top,
                Value::Object(top) => {
                    let detail = top.get("detail").and_then(Value::as_str)?;
                    return Some(ErrorBody { message: detail.to_string(), ..ErrorBody::default() });
                }
                _ => return None,
            },
        };
        let mut message = fields.get("message").and_then(Value::as_str).unwrap_or_default().to_string();
        if let Some(param) = fields.get("param").and_then(Value::as_str).filter(|p| !p.is_empty()) {
            message.push_str(&format!(" (param: {param})"));
        }
        Some(ErrorBody { message, code: text(fields.get("code")), kind: text(fields.get("type")) })
    }

    /// The code the error reports: `code`, else `type`.
    pub fn code_or_kind(&self) -> &str {
        if self.code.is_empty() {
            &self.kind
        } else {
            &self.code
        }
    }
}

/// The classified error for a non-2xx response (SPEC PROV-COMMON-04/05).
pub fn from_response(head: &HttpResponseHead, body: &[u8], key: Option<&Secret>) -> ModelError {
    let parsed = serde_json::from_slice::<Value>(body).ok().and_then(|v| ErrorBody::from_value(&v));
    match parsed {
        Some(error) => api_error(head, &error.message, error.code_or_kind(), key),
        None => unrecognised_body(head, body, key),
    }
}

/// The classified error for an `{"error": …}` object inside a 2xx response
/// or stream (SPEC PROV-OAI-07): retryable when its code or type says rate
/// limit, overload or server fault.
pub fn in_band(head: &HttpResponseHead, error: &ErrorBody, key: Option<&Secret>) -> ModelError {
    in_band_error(head, &error.message, &error.code, &error.kind, key)
}

fn text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

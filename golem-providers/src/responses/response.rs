//! Whole response bodies (SPEC PROV-COMMON-03, STREAM-05, USAGE-02).
//!
//! The output items go through the same [`Items`] a stream's do, and the
//! core assembler builds the message from their deltas, so a plain and a
//! streamed turn of one answer cannot drift apart.

use super::error::{error_from_response, in_band};
use super::items::Items;
use super::FAMILY;
use crate::classify::decode_error;
use crate::decoder::{Book, Outcome};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::message::Usage;
use golem_core::model::{ModelError, Response};
use serde_json::Value;

/// Decode a whole Responses body: a non-2xx status is the classified
/// error; undecodable JSON a retryable decode error; a `failed` response
/// its error; a body without `output` a fatal decode error. `turn`
/// numbers the ids of calls that came without one; `key` is scrubbed from
/// errors.
///
/// ```
/// use golem_providers::http::HttpResponseHead;
/// use golem_providers::responses::decode_body;
/// use golem_core::FinishReason;
///
/// let body = br#"{"status": "completed", "output": [{"type": "message", "role": "assistant",
///                  "content": [{"type": "output_text", "text": "Hi!", "annotations": []}]}],
///                 "usage": {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 8},
///                           "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 27}}}"#;
/// let response = decode_body(&HttpResponseHead::new(200, vec![]), body, 1, None).unwrap();
/// assert_eq!(response.message.content, "Hi!");
/// assert_eq!(response.finish_reason, FinishReason::Stop);
/// assert_eq!((response.usage.cache_read_tokens, response.usage.reasoning_tokens), (8, 27));
/// ```
pub fn decode_body(
    head: &HttpResponseHead,
    body: &[u8],
    turn: usize,
    key: Option<&Secret>,
) -> Result<Response, ModelError> {
    decode(head, body, turn, key).map(|(response, _)| response)
}

/// [`decode_body`], and the response's id.
pub(crate) fn decode(
    head: &HttpResponseHead,
    body: &[u8],
    turn: usize,
    key: Option<&Secret>,
) -> Result<(Response, Option<String>), ModelError> {
    if !head.is_success() {
        return Err(error_from_response(head, body, key));
    }
    let book = Book::new(head, FAMILY, key.cloned());
    let value: Value = book.json(body)?;
    let fail = |error: ModelError| book.stamp(error);
    if !value.is_object() {
        return Err(fail(decode_error("response body", "the body is not a JSON object", false, key)));
    }
    if failed(&value) {
        return Err(fail(in_band(head, &value, key)));
    }
    let Some(output) = value.get("output").and_then(Value::as_array) else {
        return Err(fail(decode_error("response body", "the response has no output", false, key)));
    };
    let mut items = Items::new(turn, key.cloned());
    let mut deltas = Vec::new();
    for (at, item) in output.iter().enumerate() {
        items.done(u64::try_from(at).unwrap_or(u64::MAX), item, &mut deltas).map_err(fail)?;
    }
    items.close(None, &mut deltas).map_err(fail)?;
    let outcome = Outcome { usage: usage(value.get("usage")), finish_reason: items.finish_reason(&value) };
    let id = value.get("id").and_then(Value::as_str).map(str::to_string);
    Ok((book.whole(deltas, outcome)?, id))
}

/// A response that failed, or an error object in place of one.
pub(crate) fn failed(response: &Value) -> bool {
    response.get("status").and_then(Value::as_str) == Some("failed")
        || (response.get("output").is_none() && response.get("error").is_some_and(|e| !e.is_null()))
}

/// The usage in golem's convention (SPEC USAGE-02): cached tokens are
/// part of the input, reasoning tokens of the output — as the API counts.
pub(crate) fn usage(usage: Option<&Value>) -> Usage {
    let count = |pointer: &str| usage.and_then(|u| u.pointer(pointer)).and_then(Value::as_u64).unwrap_or(0);
    Usage::new(count("/input_tokens"), count("/output_tokens"))
        .with_cache_read_tokens(count("/input_tokens_details/cached_tokens"))
        .with_reasoning_tokens(count("/output_tokens_details/reasoning_tokens"))
}

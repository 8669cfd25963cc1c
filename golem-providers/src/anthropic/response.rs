//! Messages response bodies (SPEC PROV-ANT-05, PROV-COMMON-03,
//! STREAM-05, USAGE-02).
//!
//! A whole response is the blocks a stream would build: each goes through
//! the same [`Answer`] as a streamed block does, and the core assembler
//! builds the message from the deltas, so a plain and a streamed turn of
//! the same answer cannot drift apart. Tool inputs are kept as the exact
//! JSON text the API sent (SPEC MSG-02).

use super::answer::Answer;
use super::status::error_from_response;
use super::FAMILY;
use crate::classify::decode_error;
use crate::decoder::{Book, Outcome};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::model::{ModelError, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

#[derive(Deserialize)]
struct Body<'a> {
    #[serde(borrow, default)]
    content: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct ToolInput<'a> {
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
}

/// Decode a whole Messages response: a non-2xx status is the classified
/// error; undecodable JSON is a retryable decode error; a 200 body that
/// is an `error` object is the API's error; a body without `content` is
/// a fatal decode error. `turn` numbers synthesized call ids; `key` is
/// scrubbed from errors.
///
/// ```
/// use golem_providers::anthropic::decode_body;
/// use golem_providers::http::HttpResponseHead;
/// use golem_core::FinishReason;
///
/// let body = br#"{"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hi!"}],
///                 "stop_reason": "end_turn",
///                 "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 2}}"#;
/// let response = decode_body(&HttpResponseHead::new(200, vec![]), body, 1, None).unwrap();
/// assert_eq!(response.message.content, "Hi!");
/// assert_eq!(response.finish_reason, FinishReason::Stop);
/// assert_eq!((response.usage.input_tokens, response.usage.cache_read_tokens), (105, 100));
/// ```
pub fn decode_body(
    head: &HttpResponseHead,
    body: &[u8],
    turn: usize,
    key: Option<&Secret>,
) -> Result<Response, ModelError> {
    if !head.is_success() {
        return Err(error_from_response(head, body, key));
    }
    let book = Book::new(head, FAMILY, key.cloned());
    let fail = |error: ModelError| book.stamp(error);
    let value: Value = book.json(body)?;
    if !value.is_object() {
        return Err(fail(decode_error("response body", "the body is not a JSON object", false, key)));
    }
    if value.get("type").and_then(Value::as_str) == Some("error") {
        if let Some(error) = value.get("error").filter(|e| e.is_object()) {
            return Err(fail(super::status::in_band(head, error, key)));
        }
    }
    let raw: Body<'_> = book.json(body)?;
    let Some(content) = raw.content else {
        return Err(fail(decode_error("response body", "the message has no content", false, key)));
    };
    let mut answer = Answer::new(turn);
    answer.started = true;
    answer.stopped = true;
    if let Some(usage) = value.get("usage") {
        answer.usage_from(usage);
    }
    answer.stop_reason = value.get("stop_reason").and_then(Value::as_str).map(str::to_string);
    let mut deltas = Vec::new();
    for (index, block) in content.iter().enumerate() {
        let parsed: Value = book.json(block.get().as_bytes())?;
        let input = match parsed.get("type").and_then(Value::as_str) {
            Some("tool_use") => book.json::<ToolInput<'_>>(block.get().as_bytes())?.input,
            _ => None,
        };
        let index = u64::try_from(index).unwrap_or(u64::MAX);
        answer.start(index, &parsed, input.map(RawValue::get), key, &mut deltas).map_err(fail)?;
        answer.stop(index, key, &mut deltas).map_err(fail)?;
    }
    answer.container_from(value.get("container"));
    answer.finish(&mut deltas);
    let outcome = Outcome { usage: answer.usage(), finish_reason: answer.finish_reason() };
    book.whole(deltas, outcome)
}

//! `generateContent` response bodies (SPEC PROV-GEM-06, PROV-COMMON-03,
//! STREAM-05, USAGE-02).
//!
//! A whole response is one chunk of what a stream would carry: its first
//! candidate's parts become the deltas a stream yields ([`super::answer`])
//! and the core assembler builds the message from them, so a plain and a
//! streamed turn of the same answer cannot drift apart.

use super::answer::{blocked, no_candidates, Answer};
use super::status::error_from_response;
use super::FAMILY;
use crate::classify::decode_error;
use crate::decoder::{Book, Outcome};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::model::{ModelError, Response};
use serde_json::Value;

/// Decode a whole `generateContent` response: a non-2xx status is the
/// classified error; undecodable JSON is a retryable decode error; a body
/// without candidates is a fatal one naming the prompt's block reason.
/// `turn` numbers synthesized call ids; `key` is scrubbed from errors.
///
/// ```
/// use golem_providers::gemini::decode_body;
/// use golem_providers::http::HttpResponseHead;
/// use golem_core::FinishReason;
///
/// let body = br#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi!"}]}, "finishReason": "STOP"}],
///                 "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2, "thoughtsTokenCount": 3}}"#;
/// let response = decode_body(&HttpResponseHead::new(200, vec![]), body, 1, None).unwrap();
/// assert_eq!(response.message.content, "Hi!");
/// assert_eq!(response.finish_reason, FinishReason::Stop);
/// assert_eq!((response.usage.output_tokens, response.usage.reasoning_tokens), (5, 3));
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
    let value: Value = book.json(body)?;
    let mut answer = Answer::new(turn);
    let mut deltas = Vec::new();
    answer.chunk(&value, head, key, &mut deltas).map_err(|e| book.stamp(e))?;
    if !answer.answered {
        return Err(book.stamp(decode_error("response body", &no_candidates(blocked(&value).as_deref()), false, key)));
    }
    book.whole(deltas, Outcome { usage: answer.usage, finish_reason: answer.finish_reason() })
}

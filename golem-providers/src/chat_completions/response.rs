//! Response bodies (SPEC PROV-OAI-05/06, PROV-COMMON-03, STREAM-05).
//!
//! A whole response means what a stream of it would: on the lenient path
//! the first choice's message becomes the delta sequence a stream would have
//! carried ([`message_deltas`]), and the core assembler builds the message
//! from it, so `decode(body) == assemble(deltas_of(body))` holds by
//! construction. The typed fast path builds the same message without the
//! deltas (issue 37), from the same rules (`meaning`), and
//! `fuzzing::chat_response` checks it against the lenient path on every
//! body it accepts.

use super::envelope;
use super::error::{self, ErrorBody};
use super::meaning::{finish_reason_of, usage_of, DeltaSink};
use super::FAMILY;
use crate::classify::{decode_error, with_request_id};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::message::{FinishReason, Message, Usage};
use golem_core::model::{Delta, ModelError, Request, Response};
use golem_core::stream::StreamAssembler;
use serde_json::Value;

/// What decoding needs besides the bytes.
#[derive(Clone, Copy, Debug)]
pub struct DecodeContext<'a> {
    /// The turn number for synthesized call ids: assistant messages in the
    /// request plus one (SPEC PROV-COMMON-06).
    pub turn: usize,
    /// The configured key, scrubbed from every error message (SPEC ERR-06).
    pub key: Option<&'a Secret>,
}

impl<'a> DecodeContext<'a> {
    /// The context for the response to `request`.
    pub fn for_request(request: &Request, key: Option<&'a Secret>) -> Self {
        DecodeContext { turn: super::ids::response_turn(&request.messages), key }
    }
}

/// Decode a whole response: a non-2xx status or an `{"error": …}` body is
/// the classified error; undecodable JSON is a retryable decode error; a
/// body without choices is a fatal one.
///
/// ```
/// use golem_providers::chat_completions::{decode_body, DecodeContext};
/// use golem_providers::http::HttpResponseHead;
/// use golem_core::FinishReason;
///
/// let body = br#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},
///                  "finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;
/// let ctx = DecodeContext { turn: 1, key: None };
/// let response = decode_body(&HttpResponseHead::new(200, vec![]), body, &ctx).unwrap();
/// assert_eq!(response.message.content, "Hi!");
/// assert_eq!(response.finish_reason, FinishReason::Stop);
/// assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (5, 2));
/// ```
pub fn decode_body(head: &HttpResponseHead, body: &[u8], ctx: &DecodeContext<'_>) -> Result<Response, ModelError> {
    if !head.is_success() {
        return Err(error::from_response(head, body, ctx.key));
    }
    // The typed view decodes the common body without a `Value` tree; a body
    // it does not fit goes the lenient way, which defines the meaning.
    match decode_typed(head, body, ctx) {
        Some(decoded) => decoded,
        None => decode_value(head, body, ctx),
    }
}

/// [`decode_body`] of a 2xx body through the typed view, or `None` when the
/// body does not fit it.
pub(crate) fn decode_typed(
    head: &HttpResponseHead,
    body: &[u8],
    ctx: &DecodeContext<'_>,
) -> Option<Result<Response, ModelError>> {
    let decoded = envelope::decode(body, ctx.turn)?;
    Some(
        decoded
            .message
            .map_err(|e| with_request_id(decode_error("response body", &e.to_string(), false, ctx.key), head, ctx.key))
            .map(|message| Response::new(message).with_usage(decoded.usage).with_finish_reason(decoded.finish)),
    )
}

/// [`decode_body`] of a 2xx body through a `serde_json::Value`: the lenient
/// definition the typed fast path must agree with.
pub(crate) fn decode_value(
    head: &HttpResponseHead,
    body: &[u8],
    ctx: &DecodeContext<'_>,
) -> Result<Response, ModelError> {
    let value: Value = crate::codec::json::parse_json(body).map_err(|e| {
        with_request_id(decode_error("response body", &format!("invalid JSON: {e}"), true, ctx.key), head, ctx.key)
    })?;
    let Some(choice) = value.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
        if let Some(error) = value.get("error").and_then(|_| ErrorBody::from_value(&value)) {
            return Err(error::in_band(head, &error, ctx.key));
        }
        return Err(with_request_id(
            decode_error("response body", "the response has no choices", false, ctx.key),
            head,
            ctx.key,
        ));
    };
    let message = choice.get("message").unwrap_or(&Value::Null);
    let assembled = assemble(head, message_deltas(message, ctx.turn), ctx)?;
    let refused = message.get("refusal").and_then(Value::as_str).is_some_and(|r| !r.is_empty());
    let finish = if refused { FinishReason::ContentFilter } else { finish_reason(choice.get("finish_reason")) };
    Ok(Response::new(assembled)
        .with_usage(value.get("usage").map(usage).unwrap_or_default())
        .with_finish_reason(finish))
}

/// The message a whole response's deltas assemble to.
fn assemble(head: &HttpResponseHead, deltas: Vec<Delta>, ctx: &DecodeContext<'_>) -> Result<Message, ModelError> {
    let mut assembler = StreamAssembler::new().with_provider(FAMILY);
    for delta in deltas {
        assembler.push_owned(delta).map_err(|e| {
            with_request_id(decode_error("response body", &e.to_string(), false, ctx.key), head, ctx.key)
        })?;
    }
    Ok(assembler.finish())
}

/// The deltas a stream of this response message would carry, in stream
/// order: reasoning (thinking block 0), content, refusal, annotations (a
/// metadata provider part), then each tool call whole. Calls without an id get `call_<turn>_<n>`; empty arguments
/// become `{}` (SPEC PROV-COMMON-03); non-function calls are skipped.
pub fn message_deltas(message: &Value, turn: usize) -> Vec<Delta> {
    let mut sink = DeltaSink::new(turn);
    if let Some(text) = reasoning(message) {
        sink.thinking(text);
    }
    content_texts(message.get("content"), |text| sink.text(text));
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
        sink.text(refusal);
    }
    sink.annotations(message.get("annotations"));
    let legacy = message.get("function_call").filter(|f| f.is_object());
    let calls = message.get("tool_calls").and_then(Value::as_array).into_iter().flatten();
    let functions = calls
        .filter(|call| call.get("type").and_then(Value::as_str).is_none_or(|t| t == "function"))
        .filter_map(|call| Some((call.get("id"), call.get("function").filter(|f| f.is_object())?)))
        .chain(legacy.map(|f| (None, f)));
    for (id, function) in functions {
        let id = id.and_then(Value::as_str).map(str::to_string);
        let name = function.get("name").and_then(Value::as_str).unwrap_or_default();
        sink.call(id, name, arguments(function.get("arguments")));
    }
    sink.finish()
}

/// `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter,
/// Ollama) when non-empty (SPEC THINK-03).
pub(crate) fn reasoning(object: &Value) -> Option<&str> {
    ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|field| object.get(*field).and_then(Value::as_str).filter(|t| !t.is_empty()))
}

/// Each text of a `content` value: the string itself, or the `text` of
/// every text part of an array (SPEC PROV-OAI-05); other parts are skipped.
pub(crate) fn content_texts<'v>(content: Option<&'v Value>, mut each: impl FnMut(&'v str)) {
    match content {
        Some(Value::String(text)) if !text.is_empty() => each(text),
        Some(Value::Array(parts)) => {
            for part in parts {
                let is_text = part.get("type").and_then(Value::as_str).is_none_or(|t| t == "text");
                if let Some(text) = part.get("text").and_then(Value::as_str).filter(|t| is_text && !t.is_empty()) {
                    each(text);
                }
            }
        }
        _ => {}
    }
}

/// Argument text: the JSON string's contents (stringified JSON → raw
/// JSON); services that send an object get its JSON text.
pub(crate) fn arguments(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The finish reason (SPEC PROV-OAI-05): null or absent → unknown.
pub fn finish_reason(value: Option<&Value>) -> FinishReason {
    finish_reason_of(value.and_then(Value::as_str))
}

/// Usage (SPEC PROV-OAI-06); missing or malformed counts are zero. DeepSeek
/// reports cache hits as `prompt_cache_hit_tokens` instead of the details
/// object.
pub fn usage(value: &Value) -> Usage {
    let count = |v: Option<&Value>| v.and_then(Value::as_u64);
    let cached = value.pointer("/prompt_tokens_details/cached_tokens").or_else(|| value.get("prompt_cache_hit_tokens"));
    usage_of(
        count(value.get("prompt_tokens")),
        count(value.get("completion_tokens")),
        count(cached),
        count(value.pointer("/completion_tokens_details/reasoning_tokens")),
    )
}

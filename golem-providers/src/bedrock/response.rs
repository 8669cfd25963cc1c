//! Converse response bodies and error bodies (SPEC PROV-BR-04/06,
//! PROV-COMMON-03/04, STREAM-05).
//!
//! A whole response is decoded the way a stream is: its content blocks
//! become the deltas a stream would have carried ([`content_deltas`]) and
//! the core assembler builds the message from them, so a plain and a
//! streamed turn of the same answer cannot drift apart.

use super::FAMILY;
use crate::classify::{api_error, decode_error, quote_body, scrub_error};
use crate::decoder::{Book, Outcome};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use crate::sigv4::Credentials;
use golem_core::message::{FinishReason, Usage};
use golem_core::model::{Delta, ModelError, Response};
use serde_json::Value;

/// Decode a whole Converse response: a non-2xx status is the classified
/// error; undecodable JSON is a retryable decode error; a body without
/// `output.message` is a fatal one. `turn` numbers synthesized call ids.
///
/// ```
/// use golem_providers::bedrock::decode_body;
/// use golem_providers::http::HttpResponseHead;
/// use golem_core::FinishReason;
///
/// let body = br#"{"output":{"message":{"role":"assistant","content":[{"text":"Hi!"}]}},
///                 "stopReason":"end_turn","usage":{"inputTokens":5,"outputTokens":2,"totalTokens":7}}"#;
/// let response = decode_body(&HttpResponseHead::new(200, vec![]), body, 1, None).unwrap();
/// assert_eq!(response.message.content, "Hi!");
/// assert_eq!(response.finish_reason, FinishReason::Stop);
/// assert_eq!(response.usage.total_tokens(), 7);
/// ```
pub fn decode_body(
    head: &HttpResponseHead,
    body: &[u8],
    turn: usize,
    credentials: Option<&Credentials>,
) -> Result<Response, ModelError> {
    if !head.is_success() {
        return Err(error_from_response(head, body, credentials));
    }
    let book = Book::new(head, FAMILY, secrets(credentials));
    let value: Value = book.json(body)?;
    let Some(content) = value.pointer("/output/message/content").and_then(Value::as_array) else {
        return Err(book.stamp(decode_error(
            "response body",
            "the response has no output.message.content",
            false,
            None,
        )));
    };
    let usage = value.get("usage").map(usage).unwrap_or_default();
    let finish_reason = finish_reason(value.get("stopReason").and_then(Value::as_str));
    book.whole(content_deltas(content, turn), Outcome { usage, finish_reason })
}

/// The deltas a stream of these content blocks would carry, in block
/// order: reasoning as thinking blocks (text, then the signature whole;
/// or the redacted data), text, and each tool call whole. Calls without
/// an id get `call_<turn>_<n>`; a Nova system tool's call and result are
/// provider parts, grounding citations a metadata part; unknown blocks are
/// skipped (SPEC PROV-COMMON-03).
pub fn content_deltas(content: &[Value], turn: usize) -> Vec<Delta> {
    let mut out = Vec::new();
    let (mut thinking, mut calls) = (0u32, 0u32);
    for block in content {
        if let Some(kind) = super::builtin::server_kind(block) {
            out.push(super::builtin::part(kind, block));
        } else if let Some(text) = block.get("text").and_then(Value::as_str) {
            if !text.is_empty() {
                out.push(Delta::text(text));
            }
        } else if let Some(cited) = block.get("citationsContent") {
            // Generated text a citation block holds stays text (Nova's is
            // empty: its text comes in the text blocks around).
            let content = cited.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
            out.extend(
                content
                    .iter()
                    .filter_map(|c| c.get("text").and_then(Value::as_str))
                    .filter(|t| !t.is_empty())
                    .map(Delta::text),
            );
            let list = cited.get("citations").and_then(Value::as_array).cloned().unwrap_or_default();
            out.extend(super::builtin::citations(list));
        } else if let Some(reasoning) = block.get("reasoningContent") {
            let (text, signature, redacted) = if let Some(redacted) = reasoning.get("redactedContent") {
                (String::new(), String::new(), blob(redacted))
            } else {
                let text_block = reasoning.get("reasoningText").unwrap_or(&Value::Null);
                (string(text_block.get("text")), string(text_block.get("signature")), String::new())
            };
            if redacted.is_empty() && text.is_empty() && signature.is_empty() {
                continue;
            }
            out.push(Delta::Thinking { index: thinking, text, signature: String::new(), redacted });
            if !signature.is_empty() {
                out.push(Delta::Thinking { index: thinking, text: String::new(), signature, redacted: String::new() });
            }
            thinking += 1;
        } else if let Some(tool) = block.get("toolUse") {
            calls += 1;
            let id = string(tool.get("toolUseId"));
            let args = match tool.get("input") {
                None | Some(Value::Null) => "{}".to_string(),
                Some(Value::String(text)) if text.trim().is_empty() => "{}".to_string(),
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
            };
            out.push(Delta::ToolCall {
                index: calls - 1,
                id: if id.is_empty() { super::call_id(turn, usize::try_from(calls).unwrap_or(usize::MAX)) } else { id },
                name: string(tool.get("name")),
                args,
                signature: String::new(),
            });
        }
    }
    out
}

/// stopReason → finish reason (SPEC PROV-BR-04); absent → unknown.
pub fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("max_tokens") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolCall,
        Some("guardrail_intervened" | "content_filtered") => FinishReason::ContentFilter,
        Some(_) => FinishReason::Other,
        None => FinishReason::Unknown,
    }
}

/// Usage (SPEC PROV-BR-04, USAGE-02): Bedrock counts cache reads and
/// writes apart from `inputTokens`, so they are added to golem's input,
/// which includes cached tokens. Missing or malformed counts are zero.
pub fn usage(value: &Value) -> Usage {
    let count = |field: &str| value.get(field).and_then(Value::as_u64).unwrap_or(0);
    let mut usage = Usage::new(
        count("inputTokens")
            .saturating_add(count("cacheReadInputTokens"))
            .saturating_add(count("cacheWriteInputTokens")),
        count("outputTokens"),
    );
    usage.cache_read_tokens = count("cacheReadInputTokens");
    usage.cache_write_tokens = count("cacheWriteInputTokens");
    usage
}

/// The classified error for a non-2xx response (SPEC PROV-BR-06): the code
/// from `x-amzn-errortype` cut at the first `:` (else the body's
/// `__type`), the message from the body's `message` or `Message`.
pub fn error_from_response(head: &HttpResponseHead, body: &[u8], credentials: Option<&Credentials>) -> ModelError {
    let value = serde_json::from_slice::<Value>(body).ok();
    let field = |name: &str| value.as_ref().and_then(|v| v.get(name)).and_then(Value::as_str).map(str::to_string);
    let code = head
        .header("x-amzn-errortype")
        .map(str::to_string)
        .or_else(|| field("__type"))
        .map(|code| error_code(&code))
        .unwrap_or_default();
    let message = field("message").or_else(|| field("Message")).unwrap_or_else(|| {
        let quoted = quote_body(body, None);
        if quoted.is_empty() {
            format!("HTTP status {}", head.status)
        } else {
            format!("HTTP status {}: {quoted}", head.status)
        }
    });
    scrubbed(api_error(head, &message, &code, None), credentials)
}

/// `ValidationException:http://internal.amazon.com/…` → `ValidationException`;
/// a namespaced `__type` (`com.amazon#ThrottlingException`) loses its namespace.
fn error_code(raw: &str) -> String {
    let code = raw.split(':').next().unwrap_or_default();
    code.rsplit('#').next().unwrap_or_default().trim().to_string()
}

/// Every part of `credentials`, as secrets no error may show.
pub(crate) fn secrets(credentials: Option<&Credentials>) -> Vec<Secret> {
    let parts =
        credentials.iter().flat_map(|c| [Some(c.access_key_id()), Some(c.secret_access_key()), c.session_token()]);
    parts.flatten().cloned().collect()
}

/// `error` with every part of `credentials` redacted from its texts —
/// message, code and request id alike, since the last two come from
/// headers a server controls (ERR-06).
pub(crate) fn scrubbed(error: ModelError, credentials: Option<&Credentials>) -> ModelError {
    match credentials {
        Some(credentials) => scrub_error(error, |text| credentials.scrub(text)),
        None => error,
    }
}

fn string(value: Option<&Value>) -> String {
    value.and_then(Value::as_str).unwrap_or_default().to_string()
}

/// A JSON blob (base64 text, kept as received so it replays unchanged).
fn blob(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

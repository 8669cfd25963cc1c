//! Failure classification shared by every codec (SPEC PROV-COMMON-04/05,
//! ERR-06).
//!
//! Providers differ in where they put the message and code of an error; what
//! the run machine needs from every one of them is the same: a kind, whether
//! another attempt may succeed, the Retry-After hint, the request id, and a
//! message that never holds the configured key. Codecs extract the
//! provider-specific parts and call these helpers for the rest.

use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::model::{ModelError, ModelErrorKind};

/// Bodies that are not the provider's error format (an HTML page from a
/// proxy, say) are quoted up to this many bytes; enough to recognise them.
pub const MAX_QUOTED_BODY: usize = 256;

/// An error for a non-2xx response: 401/403 → auth, 408/429/5xx retryable,
/// other statuses fatal; Retry-After and the request id taken from `head`.
/// A 429 that says the account is out of quota (OpenAI's
/// `insufficient_quota`, see [`ModelError::is_quota_exhausted`]) is not
/// retryable: waiting does not refill an account, and a retry policy
/// should not spend its attempts finding that out.
///
/// `message` and `code` are the provider's, already extracted from the body;
/// both are scrubbed of `key`.
///
/// ```
/// use golem_providers::classify::api_error;
/// use golem_providers::http::HttpResponseHead;
/// use golem_core::model::ModelErrorKind;
///
/// let head = HttpResponseHead::new(429, vec![("retry-after".into(), "3".into())]);
/// let err = api_error(&head, "slow down", "rate_limit_exceeded", None);
/// assert!(err.retryable);
/// assert_eq!(err.retry_after, Some(std::time::Duration::from_secs(3)));
/// assert_eq!(err.kind, ModelErrorKind::Api);
/// ```
pub fn api_error(head: &HttpResponseHead, message: &str, code: &str, key: Option<&Secret>) -> ModelError {
    let message = if message.trim().is_empty() { format!("HTTP status {}", head.status) } else { message.to_string() };
    let mut error = ModelError::api(head.status, scrub(&message, key)).with_code(scrub(code, key));
    error.retry_after = head.retry_after();
    error.request_id = request_id(head, key);
    not_retryable_when_out_of_quota(error)
}

/// An error for a non-2xx response whose body is not in the provider's
/// error format (an HTML page from a proxy, say): the status, and the body
/// quoted (see [`quote_body`]) when there is one.
///
/// ```
/// use golem_providers::classify::unrecognised_body;
/// use golem_providers::http::HttpResponseHead;
///
/// let err = unrecognised_body(&HttpResponseHead::new(502, vec![]), b"<html>Bad Gateway</html>", None);
/// assert_eq!((err.message.as_str(), err.retryable), ("HTTP status 502: <html>Bad Gateway</html>", true));
/// ```
pub fn unrecognised_body(head: &HttpResponseHead, body: &[u8], key: Option<&Secret>) -> ModelError {
    let quoted = quote_body(body, key);
    let message = if quoted.is_empty() {
        format!("HTTP status {}", head.status)
    } else {
        format!("HTTP status {}: {quoted}", head.status)
    };
    api_error(head, &message, "", key)
}

/// An error reported inside a successful response (an `{"error": …}` stream
/// chunk or body). There is no status to go by, so a numeric `code` in the
/// HTTP range is read as one; otherwise retryability follows the provider's
/// code and type — rate limits, overload and server faults are worth another
/// attempt (SPEC PROV-COMMON-05), anything else is not. The error's code is
/// `code`, else `kind`.
pub fn in_band_error(
    head: &HttpResponseHead,
    message: &str,
    code: &str,
    kind: &str,
    key: Option<&Secret>,
) -> ModelError {
    let reported = if code.is_empty() { kind } else { code };
    if let Some(status) = code.trim().parse::<u16>().ok().filter(|s| (400..600).contains(s)) {
        return api_error(&HttpResponseHead { status, ..head.clone() }, message, reported, key);
    }
    let lowered = format!("{code} {kind}").to_ascii_lowercase();
    let retryable = ["rate_limit", "overload", "server_error", "internal", "unavailable", "timeout", "api_error"]
        .iter()
        .any(|marker| lowered.contains(marker));
    let message = if message.trim().is_empty() { "the provider reported an error" } else { message };
    let mut error = ModelError::new(ModelErrorKind::Api, scrub(message, key))
        .with_code(scrub(reported, key))
        .with_retryable(retryable);
    error.request_id = request_id(head, key);
    not_retryable_when_out_of_quota(error)
}

/// The response's request id, scrubbed of `key` like a body: a server (or
/// a proxy) may reflect anything into a header, the key included (ERR-06).
///
/// ```
/// use golem_providers::classify::request_id;
/// use golem_providers::http::HttpResponseHead;
/// use golem_providers::Secret;
///
/// let key = Secret::new("sk-reflected-1234");
/// let head = HttpResponseHead::new(500, vec![("x-request-id".into(), "req-1 sk-reflected-1234".into())]);
/// assert_eq!(request_id(&head, Some(&key)), "req-1 [redacted]");
/// ```
pub fn request_id(head: &HttpResponseHead, key: Option<&Secret>) -> String {
    scrub(head.request_id().unwrap_or_default(), key)
}

/// `error` with its request id set from `head` when it has none yet,
/// scrubbed of `key`. Only the provider codecs build errors from a response.
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
pub(crate) fn with_request_id(mut error: ModelError, head: &HttpResponseHead, key: Option<&Secret>) -> ModelError {
    if error.request_id.is_empty() {
        error.request_id = request_id(head, key);
    }
    error
}

/// `error` with every text that came from the provider — message, code,
/// request id — passed through `scrub`: for codecs holding more than one
/// secret (AWS credentials), after the error is built.
pub fn scrub_error(mut error: ModelError, scrub: impl Fn(&str) -> String) -> ModelError {
    error.message = scrub(&error.message);
    error.code = scrub(&error.code);
    error.request_id = scrub(&error.request_id);
    error
}

/// Quota and context-window errors fail the same way however often they
/// are retried (SPEC PROV-COMMON-05).
fn not_retryable_when_out_of_quota(error: ModelError) -> ModelError {
    if error.is_quota_exhausted() || error.is_context_overflow() {
        error.with_retryable(false)
    } else {
        error
    }
}

/// A response that could not be decoded. `retryable` is true for damage a
/// new attempt may not repeat (undecodable JSON, a malformed stream: the
/// issue treats them like a reset) and false for well-formed answers that
/// make no sense.
///
/// One rule for every family, plain and streamed (issue 32): a reply that
/// arrived whole — a complete body, or a stream up to its end marker —
/// with no choice or candidate in it is not retried. Nothing was lost on
/// the way: the provider answered with nothing (a blocked prompt, a
/// server or proxy that drops them), and asking again spends an attempt
/// on the same answer. What a cut or garbled transfer lost is retried;
/// what the provider decided is not.
pub fn decode_error(stage: &str, detail: &str, retryable: bool, key: Option<&Secret>) -> ModelError {
    ModelError::new(ModelErrorKind::Decode, scrub(&format!("decode error ({stage}): {detail}"), key))
        .with_retryable(retryable)
}

/// A request that could not be encoded (never retried).
pub fn encode_error(what: &str) -> ModelError {
    ModelError::new(ModelErrorKind::Encode, format!("cannot encode the request: {what}"))
}

/// Content this provider cannot take, naming the part and how to fix it
/// (SPEC MM-01; never retried).
pub fn unsupported(what: &str, hint: &str) -> ModelError {
    ModelError::new(ModelErrorKind::Unsupported, format!("{what} is not supported: {hint}"))
}

/// `body` quoted for an error message: scrubbed of `key`, then cut to at
/// most [`MAX_QUOTED_BODY`] characters with control characters flattened.
pub fn quote_body(body: &[u8], key: Option<&Secret>) -> String {
    let text = scrub(&String::from_utf8_lossy(body), key);
    let mut out: String = text.chars().take(MAX_QUOTED_BODY).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if text.chars().nth(MAX_QUOTED_BODY).is_some() {
        out.push('…');
    }
    out.trim().to_string()
}

fn scrub(text: &str, key: Option<&Secret>) -> String {
    match key {
        Some(key) => key.scrub(text),
        None => text.to_string(),
    }
}

//! What a candidate and a response say about themselves: the finish reason
//! and the usage metadata (SPEC PROV-GEM-06, USAGE-02), read the same way by
//! the whole-body decoder and the stream's answer.

use golem_core::message::{FinishReason, Usage};
use serde_json::Value;

/// finishReason → finish reason (SPEC PROV-GEM-06); absent → unknown.
/// (A candidate with function calls reports `tool_call`; the decoders
/// apply that on top.)
pub fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("STOP") => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII") => FinishReason::ContentFilter,
        Some(_) => FinishReason::Other,
        None => FinishReason::Unknown,
    }
}

/// `usageMetadata` (SPEC PROV-GEM-06, USAGE-02): input is
/// `promptTokenCount`, cached tokens inside it; output is
/// `candidatesTokenCount` plus `thoughtsTokenCount`, reasoning the
/// latter. Missing or malformed counts are zero.
pub fn usage(value: &Value) -> Usage {
    let count = |field: &str| value.get(field).and_then(Value::as_u64).unwrap_or(0);
    let thoughts = count("thoughtsTokenCount");
    Usage::new(count("promptTokenCount"), count("candidatesTokenCount").saturating_add(thoughts))
        .with_cache_read_tokens(count("cachedContentTokenCount"))
        .with_reasoning_tokens(thoughts)
}

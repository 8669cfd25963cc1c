//! Usage-limit checks at the points SPEC USAGE-04 names.

use crate::config::UsageLimits;
use crate::error::UsageLimitError;
use crate::message::Usage;

fn crossed(kind: &str, limit: Option<u64>, actual: u64) -> Option<UsageLimitError> {
    match limit {
        Some(limit) if actual > limit => Some(UsageLimitError { kind: kind.to_string(), limit, actual }),
        _ => None,
    }
}

/// After a model response: tokens, in the order input, output, total, then
/// the estimated cost (SPEC USAGE-05) in micro-dollars, rounded to the
/// nearest (so float noise in a sum of prices cannot tip a bound).
pub(crate) fn after_response(limits: &UsageLimits, usage: &Usage, cost: Option<f64>) -> Option<UsageLimitError> {
    crossed("input token", limits.input_tokens, usage.input_tokens)
        .or_else(|| crossed("output token", limits.output_tokens, usage.output_tokens))
        .or_else(|| crossed("total token", limits.total_tokens, usage.total_tokens()))
        .or_else(|| {
            // A validated configuration prices every member, so `cost` is
            // known whenever a cost bound is set.
            let micro = cost.map_or(0, |usd| (usd * 1e6).round() as u64);
            crossed("cost (micro-USD)", limits.cost_micro_usd, micro)
        })
}

/// After requests were made elsewhere (a sub-run): has the count crossed?
pub(crate) fn crossed_requests(limits: &UsageLimits, requests: u64) -> Option<UsageLimitError> {
    crossed("request", limits.requests, requests)
}

/// After tool calls were made elsewhere (a sub-run): has the count crossed?
pub(crate) fn crossed_tool_calls(limits: &UsageLimits, tool_calls: u64) -> Option<UsageLimitError> {
    crossed("tool call", limits.tool_calls, tool_calls)
}

/// Before a request: would one more cross the bound?
pub(crate) fn before_request(limits: &UsageLimits, requests: u64) -> Option<UsageLimitError> {
    crossed("request", limits.requests, requests.saturating_add(1))
}

/// Before a batch: would `more` dispatches cross the bound? A batch that
/// only partly fits is refused whole.
pub(crate) fn before_batch(limits: &UsageLimits, tool_calls: u64, more: u64) -> Option<UsageLimitError> {
    crossed("tool call", limits.tool_calls, tool_calls.saturating_add(more))
}

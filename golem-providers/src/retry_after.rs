//! Retry-After hints (SPEC RETRY-03): the codec extracts the provider's
//! wish; the run machine decides how long to actually wait.
//!
//! Read in order of precision: `retry-after-ms` (milliseconds, OpenAI),
//! then `retry-after` as delta-seconds or as an HTTP-date. A date is taken
//! relative to the response's own `Date` header — both clocks are the
//! server's, so client clock skew cancels out — else relative to the
//! caller's clock; a date in the past means "now" (zero). Garbage is
//! ignored: a hint that cannot be read is no hint.

use crate::http_date;
use std::time::Duration;

/// Hints are capped here so arithmetic on them cannot overflow; anything
/// this long means "not soon" and the machine's own cap applies far below.
pub const MAX_HINT: Duration = Duration::from_secs(u32::MAX as u64);

/// The hint carried by a response's headers, looked up through `header`
/// (which should match names case-insensitively).
///
/// ```
/// use golem_providers::retry_after::from_headers;
/// use std::time::Duration;
///
/// let headers = [("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"), ("date", "Wed, 21 Oct 2015 07:28:00 GMT")];
/// let lookup = |name: &str| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
/// assert_eq!(from_headers(lookup, None), Some(Duration::from_secs(30)));
/// ```
pub fn from_headers<'a>(header: impl Fn(&str) -> Option<&'a str>, now_unix: Option<u64>) -> Option<Duration> {
    if let Some(ms) = header("retry-after-ms").and_then(non_negative_number) {
        return Some(from_secs_f64(ms / 1000.0));
    }
    let value = header("retry-after")?;
    if let Some(secs) = non_negative_number(value) {
        return Some(from_secs_f64(secs));
    }
    let at = http_date::parse(value)?;
    let now = match header("date").and_then(http_date::parse) {
        Some(date) => date,
        None => i64::try_from(now_unix?).ok()?,
    };
    let wait = at.saturating_sub(now).max(0);
    Some(Duration::from_secs(u64::try_from(wait).unwrap_or(0)).min(MAX_HINT))
}

/// A delay written in a response body as a non-negative decimal number
/// of seconds, optionally with an `s` unit: `"13"`, `"13s"`, `"0.5s"` —
/// the JSON form of a protobuf `Duration`, in which some APIs put their
/// retry delay. Garbage, like a garbled header, is no hint.
///
/// ```
/// use golem_providers::retry_after::from_seconds;
/// use std::time::Duration;
///
/// assert_eq!(from_seconds("13s"), Some(Duration::from_secs(13)));
/// assert_eq!(from_seconds("0.5s"), Some(Duration::from_millis(500)));
/// assert_eq!(from_seconds("-1s"), None);
/// ```
pub fn from_seconds(text: &str) -> Option<Duration> {
    let text = text.trim();
    non_negative_number(text.strip_suffix('s').unwrap_or(text)).map(from_secs_f64)
}

/// A plain non-negative decimal (`120`, `1.5`): no sign, no exponent, at
/// most one dot — RFC 9110 allows only digits, but fractional values are
/// seen in the wild and their meaning is clear.
fn non_negative_number(text: &str) -> Option<f64> {
    let text = text.trim();
    let valid = !text.is_empty()
        && text.len() <= 32
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().filter(|b| *b == b'.').count() <= 1
        && text.bytes().any(|b| b.is_ascii_digit());
    if !valid {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

fn from_secs_f64(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs).unwrap_or(MAX_HINT).min(MAX_HINT)
}

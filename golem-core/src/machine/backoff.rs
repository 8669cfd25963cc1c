//! The wait before a retried model call (SPEC RETRY-02, RETRY-03, TIME-02).

use crate::config::{Backoff, RetryPolicy};
use crate::jitter::Source;
use std::time::Duration;

/// The wait before the next attempt, and whether the provider's hint set
/// it: a wait the provider asked for is never cut short by golem, so one
/// that would outlast the run is not waited at all (SPEC TIME-02).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Delay {
    pub(crate) wait: Duration,
    pub(crate) hinted: bool,
}

/// The wait after failed attempt `attempt` (1-based), given the provider's
/// Retry-After `hint`. `draw` numbers the retries of the run so each gets
/// its own jitter, from the run's jitter source `source` (see [`crate::jitter`]).
pub(crate) fn delay(policy: &RetryPolicy, source: Source, draw: u64, attempt: u32, hint: Option<Duration>) -> Delay {
    let (base, hint_counts) = match &policy.backoff {
        Backoff::Exponential => (Backoff::exponential(attempt), true),
        Backoff::Table { delays } => {
            let idx = usize::try_from(attempt.saturating_sub(1)).unwrap_or(usize::MAX);
            let d = delays.get(idx).or(delays.last()).copied().unwrap_or(Duration::ZERO);
            (d, policy.honor_retry_after)
        }
    };
    let base = if policy.jitter && !base.is_zero() {
        // ±25 %: factor in [0.75, 1.25).
        base.mul_f64(0.75 + source.unit(draw) * 0.5)
    } else {
        base
    };
    match hint {
        // A hint above the ceiling is never slept: wait the ceiling
        // (SPEC RETRY-03, TIME-02).
        Some(h) if hint_counts && h > policy.max_retry_after => Delay { wait: policy.max_retry_after, hinted: true },
        Some(h) if hint_counts && h >= base => Delay { wait: h, hinted: true },
        _ => Delay { wait: base, hinted: false },
    }
}

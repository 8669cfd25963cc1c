//! The wait before a retried model call (SPEC RETRY-02, RETRY-03).

use crate::config::{Backoff, RetryPolicy};
use crate::jitter;
use std::time::Duration;

/// The wait after failed attempt `attempt` (1-based), given the provider's
/// Retry-After `hint`. `draw` numbers the retries of the run so each gets
/// its own jitter; `seed` and `phase` are the run's (see [`jitter`]).
pub(crate) fn delay(
    policy: &RetryPolicy,
    seed: u64,
    phase: Option<u64>,
    draw: u64,
    attempt: u32,
    hint: Option<Duration>,
) -> Duration {
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
        base.mul_f64(0.75 + jitter::unit(seed, phase, draw) * 0.5)
    } else {
        base
    };
    match hint {
        // A hint above the maximum is never slept: wait the maximum.
        Some(h) if hint_counts && h > policy.max_retry_after => policy.max_retry_after,
        Some(h) if hint_counts => base.max(h),
        _ => base,
    }
}

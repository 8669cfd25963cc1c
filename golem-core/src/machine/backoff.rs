//! The wait before a retried model call (SPEC RETRY-02, RETRY-03).

use crate::config::{Backoff, RetryPolicy};
use std::time::Duration;

/// SplitMix64: a few lines of well-known mixing, enough for jitter. The seed
/// comes from the config so a replayed run waits exactly as long.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The wait after failed attempt `attempt` (1-based), given the provider's
/// Retry-After `hint`. `draw` numbers the retries of the run so each gets
/// its own jitter.
pub(crate) fn delay(policy: &RetryPolicy, seed: u64, draw: u64, attempt: u32, hint: Option<Duration>) -> Duration {
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
        let r = mix(seed ^ mix(draw)) >> 11; // 53 random bits
        let unit = r as f64 / (1u64 << 53) as f64;
        base.mul_f64(0.75 + unit * 0.5)
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

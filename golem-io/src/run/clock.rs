//! Where a driver gets `now` from (SPEC DRV-01).
//!
//! The machine never reads a clock: the driver stamps every input with a
//! [`Moment`] from a [`Clock`]. Injecting the clock lets tests fix time.

use golem_core::Moment;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A source of [`Moment`]s on one monotonic timeline.
pub trait Clock: Send + Sync {
    /// The current moment. Must never go backwards.
    fn now(&self) -> Moment;
}

/// The real monotonic clock: moments count from the clock's creation.
#[derive(Clone, Copy, Debug)]
pub struct SystemClock {
    epoch: Instant,
}

impl SystemClock {
    /// A clock whose epoch is now.
    pub fn new() -> Self {
        SystemClock { epoch: Instant::now() }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Moment {
        // u64 nanoseconds last 584 years; saturate rather than wrap past that.
        let nanos = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        Moment::from_nanos(nanos)
    }
}

/// A clock that moves only when told to, for deterministic tests.
///
/// The driver still blocks in real time while work is in flight, so a run
/// whose deadlines must fire needs a test that advances this clock (or the
/// [`SystemClock`]); without deadlines every input carries the same moment.
#[derive(Debug, Default)]
pub struct ManualClock {
    nanos: AtomicU64,
}

impl ManualClock {
    /// A clock at the epoch.
    pub fn new() -> Self {
        ManualClock::default()
    }

    /// Move the clock forward by `by` (saturating).
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        // fetch_update never fails with a closure that always returns Some.
        let _ = self.nanos.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| Some(n.saturating_add(by)));
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Moment {
        Moment::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

/// A clock that continues another timeline: it reads `to` when `inner`
/// reads `from`, and moves with `inner` after that. A crash resume runs on
/// one, so the resumed run's time continues where its log stopped and the
/// downtime counts as zero (SPEC LOG-05).
#[derive(Clone)]
pub struct ShiftedClock {
    inner: std::sync::Arc<dyn Clock>,
    from: Moment,
    to: Moment,
}

impl ShiftedClock {
    /// Continue at `to` from now on `inner`.
    pub fn continuing(inner: std::sync::Arc<dyn Clock>, to: Moment) -> Self {
        let from = inner.now();
        ShiftedClock { inner, from, to }
    }
}

impl std::fmt::Debug for ShiftedClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShiftedClock").field("from", &self.from).field("to", &self.to).finish()
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> Moment {
        self.to.saturating_add(self.inner.now().saturating_duration_since(self.from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_advanced() {
        let clock = ManualClock::new();
        assert_eq!(clock.now(), Moment::ZERO);
        clock.advance(Duration::from_millis(5));
        assert_eq!(clock.now(), Moment::from_millis(5));
    }

    #[test]
    fn system_clock_is_monotonic() {
        let clock = SystemClock::new();
        let a = clock.now();
        let b = clock.now();
        assert!(b >= a);
    }
}

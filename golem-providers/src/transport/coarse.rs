//! Socket timeouts that change only when they must.
//!
//! A request with a deadline gives ureq a global timeout, and before every
//! socket read and write ureq hands the transport the time left until it.
//! That figure is a little smaller each time, and ureq's TCP transport
//! re-arms the socket (`setsockopt`) whenever the figure differs from the
//! one it last set: a system call per read and per write, on every request
//! a deadline-carrying caller (every golem model call) makes.
//!
//! This connector wraps each connection so the time left is rounded *up*
//! to a coarse grid before it reaches the socket. Consecutive reads and
//! writes then ask for the same timeout, which the socket already has, and
//! the system call is skipped. The price is bounded lateness, never
//! earliness: a read that stalls may wait at most [`STEP`] past the
//! deadline (and never past 1% of the time that was left), and a deadline
//! that has passed still fails the very next read or write. Time left
//! under [`COARSE_FROM`] is passed on exactly, so short deadlines keep
//! their precision.

use std::time::Duration as StdDuration;
use ureq::unversioned::transport::time::Duration;
use ureq::unversioned::transport::{Buffers, ConnectionDetails, Connector, NextTimeout, Transport};
use ureq::Timeout;

/// The grid the time left is rounded up to.
pub(super) const STEP: StdDuration = StdDuration::from_millis(10);

/// Below this much time left the timeout is passed on unrounded: rounding
/// would cost more than 1% of it.
pub(super) const COARSE_FROM: StdDuration = StdDuration::from_secs(1);

/// Wraps the connections another connector makes in [`Coarse`].
#[derive(Debug)]
pub(super) struct CoarseTimeouts<C>(pub(super) C);

impl<C: Connector<(), Out = Box<dyn Transport>>> Connector<()> for CoarseTimeouts<C> {
    type Out = Box<dyn Transport>;

    fn connect(&self, details: &ConnectionDetails<'_>, chained: Option<()>) -> Result<Option<Self::Out>, ureq::Error> {
        let connection = self.0.connect(details, chained)?;
        Ok(connection.map(|inner| Box::new(Coarse { inner }) as Box<dyn Transport>))
    }
}

/// A connection whose deadline timeouts are rounded up to the grid.
#[derive(Debug)]
pub(super) struct Coarse {
    inner: Box<dyn Transport>,
}

impl Transport for Coarse {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let per_write = timeout.per_write;
        self.inner.transmit_output(amount, coarse(timeout, per_write))
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        let per_read = timeout.per_read;
        self.inner.await_input(coarse(timeout, per_read))
    }

    fn is_open(&mut self) -> bool {
        self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}

/// `timeout` with the time left to the request's deadline rounded up to
/// the grid. `per_io` is the per-read or per-write timeout the socket will
/// be capped by: when rounding would cross it, the cap itself is used (it
/// is constant, so it is as good for skipping the system call), so the
/// reason reported stays the deadline's.
pub(super) fn coarse(mut timeout: NextTimeout, per_io: Option<Duration>) -> NextTimeout {
    // Only the deadline moves between calls; the per-read and per-write
    // budgets start afresh each time and never need rounding.
    if timeout.reason != Timeout::Global {
        return timeout;
    }
    let Duration::Exact(left) = timeout.after else { return timeout };
    if left < COARSE_FROM {
        return timeout;
    }
    let mut rounded = round_up(left);
    if let Some(Duration::Exact(cap)) = per_io {
        if left <= cap && cap < rounded {
            rounded = cap;
        }
    }
    timeout.after = Duration::Exact(rounded);
    timeout
}

/// The smallest multiple of [`STEP`] at or above `left`.
fn round_up(left: StdDuration) -> StdDuration {
    let step = STEP.as_nanos();
    let rounded = left.as_nanos().div_ceil(step) * step;
    // A deadline beyond `u64` seconds is never reached: keep it as it is.
    match u64::try_from(rounded / 1_000_000_000) {
        Ok(secs) => StdDuration::new(secs, (rounded % 1_000_000_000) as u32),
        Err(_) => left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deadline(left: StdDuration) -> NextTimeout {
        NextTimeout {
            after: Duration::Exact(left),
            reason: Timeout::Global,
            per_read: Some(Duration::from_secs(300)),
            per_write: Some(Duration::from_secs(300)),
        }
    }

    fn after(timeout: NextTimeout) -> StdDuration {
        match timeout.after {
            Duration::Exact(d) => d,
            Duration::NotHappening => panic!("expected a finite timeout"),
        }
    }

    #[test]
    fn time_left_is_rounded_up_by_at_most_a_step() {
        for nanos in [1_000_000_000u64, 1_000_000_001, 1_234_567_890, 59_999_999_999, 299_999_987_654] {
            let left = StdDuration::from_nanos(nanos);
            let rounded = after(coarse(deadline(left), None));
            assert!(rounded >= left, "{left:?} became {rounded:?}: earlier than the deadline");
            assert!(rounded - left < STEP, "{left:?} became {rounded:?}: more than a step late");
            assert_eq!(rounded.as_nanos() % STEP.as_nanos(), 0, "{rounded:?} is not on the grid");
        }
    }

    #[test]
    fn reads_moments_apart_ask_for_the_same_socket_timeout() {
        // What skips the system call: the time left shrinks a few
        // microseconds per read, the timeout asked for does not.
        let per_read = Some(Duration::from_secs(600));
        let first = coarse(deadline(StdDuration::from_millis(299_995)), per_read);
        for micros in [1, 20, 300, 4_000] {
            let later = deadline(StdDuration::from_millis(299_995) - StdDuration::from_micros(micros));
            assert_eq!(coarse(later, per_read), first, "{micros} µs later");
        }
    }

    #[test]
    fn a_passed_deadline_and_short_deadlines_are_passed_on_exactly() {
        for left in [StdDuration::ZERO, StdDuration::from_nanos(1), StdDuration::from_millis(250), COARSE_FROM / 2] {
            assert_eq!(coarse(deadline(left), None), deadline(left));
        }
    }

    #[test]
    fn other_budgets_and_no_deadline_are_untouched() {
        let mut read = deadline(StdDuration::from_millis(1_234_567));
        read.reason = Timeout::PerRead;
        assert_eq!(coarse(read, None), read);
        let mut none = deadline(StdDuration::ZERO);
        none.after = Duration::NotHappening;
        assert_eq!(coarse(none, None), none);
    }

    #[test]
    fn rounding_stops_at_the_per_io_cap_so_the_deadline_is_still_reported() {
        // Defaults: a 300 s deadline and a 300 s read timeout. Rounding
        // 299.995 s up to 300 s lands on the cap, which is kept.
        let cap = StdDuration::from_millis(300_001);
        let rounded = coarse(deadline(StdDuration::from_millis(299_995)), Some(Duration::Exact(cap)));
        assert_eq!(after(rounded), StdDuration::from_millis(300_000));
        let cap = StdDuration::from_micros(299_997_500);
        let rounded = coarse(deadline(StdDuration::from_millis(299_995)), Some(Duration::Exact(cap)));
        assert_eq!(after(rounded), cap);
        assert_eq!(rounded.reason, Timeout::Global);
        // A cap below the time left is the socket's anyway: rounding stands.
        let rounded = coarse(deadline(StdDuration::from_millis(299_995)), Some(Duration::from_secs(60)));
        assert_eq!(after(rounded), StdDuration::from_millis(300_000));
    }
}

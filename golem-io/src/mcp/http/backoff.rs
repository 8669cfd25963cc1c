//! When the standalone GET stream tries again (MCP-06 `[ours]`): pure
//! arithmetic, so the policy is tested without a clock.
//!
//! Two kinds of trouble, told apart on purpose. An attempt that gets no
//! stream at all (refused, 5xx, 409, …) is a *failure*: they back off
//! exponentially and, after [`MAX_FAILURES`] in a row, the client gives up.
//! A stream that opened and later ended is normal (servers close idle
//! streams, SDKs poll that way), so the client always reconnects — after
//! the server's `retry:` or a second — but a stream that ended without
//! delivering a message counts as *quiet* and doubles the wait, so a server
//! that closes at once is asked at most every [`MAX_DELAY`].

use std::time::Duration;

/// The wait when the server named none.
pub(crate) const DEFAULT_DELAY: Duration = Duration::from_secs(1);
/// The shortest wait, whatever `retry:` says.
pub(crate) const MIN_DELAY: Duration = Duration::from_millis(10);
/// The longest wait the doubling reaches.
pub(crate) const MAX_DELAY: Duration = Duration::from_secs(30);
/// The longest `retry:` honoured as is.
pub(crate) const MAX_RETRY: Duration = Duration::from_secs(300);
/// Failed attempts in a row before giving up.
pub(crate) const MAX_FAILURES: u32 = 6;

/// The reconnection state of one listener.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Backoff {
    failures: u32,
    quiet: u32,
}

impl Backoff {
    /// An attempt got no stream.
    pub(crate) fn failed(&mut self) {
        self.failures = self.failures.saturating_add(1);
    }

    /// A stream opened: the server is there.
    pub(crate) fn opened(&mut self) {
        self.failures = 0;
    }

    /// An open stream ended, having delivered a message or not.
    pub(crate) fn ended(&mut self, delivered: bool) {
        self.quiet = if delivered { 0 } else { self.quiet.saturating_add(1) };
    }

    /// How long to wait before the next attempt, given the server's last
    /// `retry:`; `None` once the failures say stop.
    pub(crate) fn delay(&self, retry: Option<Duration>) -> Option<Duration> {
        if self.failures >= MAX_FAILURES {
            return None;
        }
        let base = retry.unwrap_or(DEFAULT_DELAY).clamp(MIN_DELAY, MAX_RETRY);
        let doublings = self.failures.saturating_add(self.quiet).min(16);
        if doublings == 0 {
            return Some(base);
        }
        // Doubling never shortens a long `retry:`, and never passes the cap.
        Some(base.saturating_mul(1 << doublings).min(MAX_DELAY.max(base)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_stream_that_delivered_reconnects_after_the_servers_retry() {
        let mut backoff = Backoff::default();
        backoff.opened();
        backoff.ended(true);
        assert_eq!(backoff.delay(None), Some(DEFAULT_DELAY));
        assert_eq!(backoff.delay(Some(250 * MS)), Some(250 * MS));
        assert_eq!(backoff.delay(Some(Duration::ZERO)), Some(MIN_DELAY));
        assert_eq!(backoff.delay(Some(Duration::from_secs(3600))), Some(MAX_RETRY));
    }

    #[test]
    fn quiet_streams_back_off_but_never_give_up() {
        let mut backoff = Backoff::default();
        for _ in 0..40 {
            backoff.opened();
            backoff.ended(false);
        }
        assert_eq!(backoff.delay(Some(10 * MS)), Some(MAX_DELAY));
        assert_eq!(backoff.delay(Some(Duration::from_secs(60))), Some(Duration::from_secs(60)));
        backoff.ended(true);
        assert_eq!(backoff.delay(Some(10 * MS)), Some(10 * MS));
    }

    #[test]
    fn failures_double_the_wait_and_end_in_giving_up() {
        let mut backoff = Backoff::default();
        let mut delays = Vec::new();
        while let Some(delay) = backoff.delay(None) {
            delays.push(delay.as_secs());
            backoff.failed();
        }
        assert_eq!(delays, [1, 2, 4, 8, 16, 30]);
        backoff.opened();
        assert_eq!(backoff.delay(None), Some(DEFAULT_DELAY), "a stream that opens resets the failures");
    }
}

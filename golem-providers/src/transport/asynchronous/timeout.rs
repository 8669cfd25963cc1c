//! Deadlines as async-io timers raced against the work.
//!
//! A request with its own timeout has a deadline for the whole exchange.
//! Rather than a timer of its own beside each wait's (the connect and read
//! timeouts), every wait races a single timer set for whichever comes
//! first: arming an async-io timer notifies the reactor, so a second timer
//! per request was a reactor wake-up per request that a request without a
//! deadline never paid (issue 37).

use super::super::error::{TimeoutPhase, TransportError};
use async_io::Timer;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

/// A request's own deadline: when the exchange must be over, and the
/// timeout it was given (for the error).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    pub(crate) ends: Instant,
    pub(crate) after: Duration,
}

impl Deadline {
    /// The deadline of a request given `limit`, from now.
    pub(crate) fn after(limit: Duration) -> Self {
        Deadline { ends: Instant::now() + limit, after: limit }
    }

    fn error(self) -> TransportError {
        TransportError::Timeout { phase: TimeoutPhase::Deadline, after: self.after }
    }
}

/// Run `work`, failing with a `phase` timeout if it takes longer than
/// `limit` — or with the deadline's error if `deadline` comes first. The
/// timer is made only if the work has to wait.
///
/// Written as one poll function rather than racing the work against an
/// `async` block: that block kept room for its error, its deadline and a
/// timer per branch, 336 bytes around every wait, and every request's
/// future holds several waits (issue 37).
pub(crate) async fn with_timeout<T>(
    limit: Duration,
    phase: TimeoutPhase,
    deadline: Option<Deadline>,
    work: impl Future<Output = Result<T, TransportError>>,
) -> Result<T, TransportError> {
    let mut work = std::pin::pin!(work);
    // The timer, and whether it is the request's deadline's.
    let mut timer: Option<(Timer, bool)> = None;
    std::future::poll_fn(|cx| {
        if let Poll::Ready(done) = work.as_mut().poll(cx) {
            return Poll::Ready(done);
        }
        let (timer, by_deadline) = timer.get_or_insert_with(|| {
            let own = Instant::now() + limit;
            match deadline {
                Some(deadline) if deadline.ends < own => (Timer::at(deadline.ends), true),
                _ => (Timer::at(own), false),
            }
        });
        if Pin::new(timer).poll(cx).is_pending() {
            return Poll::Pending;
        }
        Poll::Ready(Err(match deadline {
            Some(deadline) if *by_deadline => deadline.error(),
            _ => TransportError::Timeout { phase, after: limit },
        }))
    })
    .await
}

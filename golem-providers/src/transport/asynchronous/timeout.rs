//! Deadlines as async-io timers raced against the work.
//!
//! A request with its own timeout has a deadline for the whole exchange.
//! Rather than a timer of its own beside each wait's (the connect and read
//! timeouts), every wait races a single timer set for whichever comes
//! first: arming an async-io timer notifies the reactor, so a second timer
//! per request was a reactor wake-up per request that a request without a
//! deadline never paid (issue 37).

use super::super::config::TransportConfig;
use super::super::error::{TimeoutPhase, TransportError};
use async_io::Timer;
use std::future::Future;
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

/// Run `work`, failing with `error` if it takes longer than `limit` — or
/// with the deadline's error if `deadline` comes first. The timer is made
/// only if the work has to wait.
pub(crate) async fn with_timeout<T>(
    limit: Duration,
    error: TransportError,
    deadline: Option<Deadline>,
    work: impl Future<Output = Result<T, TransportError>>,
) -> Result<T, TransportError> {
    futures_lite::future::or(work, async move {
        let own = Instant::now() + limit;
        match deadline {
            Some(deadline) if deadline.ends < own => {
                Timer::at(deadline.ends).await;
                Err(deadline.error())
            }
            _ => {
                Timer::at(own).await;
                Err(error)
            }
        }
    })
    .await
}

/// The error of a read or write that waited longer than the read timeout.
pub(crate) fn read_timeout(config: &TransportConfig) -> TransportError {
    TransportError::Timeout { phase: TimeoutPhase::Read, after: config.read_timeout }
}

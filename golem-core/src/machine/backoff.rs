//! The wait before a retried model call (SPEC RETRY-02, RETRY-03, TIME-02).

use crate::config::RetryPolicy;
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
    // The rule itself lives on the policy, where the embedding clients
    // (which retry outside any run) reach it too.
    let (wait, hinted) = policy.delay_in_run(source, draw, attempt, hint);
    Delay { wait, hinted }
}

//! Unwrapping a run's outcome, and reading its retry waits, in tests: the
//! several machine test files share these instead of each keeping a copy.

use golem_core::machine::{Outcome, RunSummary};
use golem_core::RunError;

/// The summary of a completed run; any other outcome fails the test.
pub fn completed(outcome: Outcome) -> RunSummary {
    match outcome {
        Outcome::Completed { summary, .. } => summary,
        other => panic!("expected a completed run, got {other:#?}"),
    }
}

/// The error of a failed run; any other outcome fails the test.
pub fn failed(outcome: Outcome) -> RunError {
    match outcome {
        Outcome::Failed(error) => error,
        other => panic!("expected a failed run, got {other:#?}"),
    }
}

/// The waits a run's `retrying` events announced, in order.
pub fn retry_waits(events: &[golem_core::RunEvent]) -> Vec<std::time::Duration> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            golem_core::EventKind::Retrying { delay, .. } => Some(*delay),
            _ => None,
        })
        .collect()
}

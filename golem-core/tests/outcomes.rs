//! Unwrapping a run's outcome in tests: the several machine test files
//! share these instead of each keeping a copy.

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

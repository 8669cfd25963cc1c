//! What the driver keeps beside the machine (SPEC MACH-02): decoded values
//! and original error objects, keyed by input id, re-attached to the
//! result or to `RunError::source` when the run ends.

use crate::agent::decode::{DecodeError, Decoder};
use crate::results::result::{PausedRun, RunOutcome, RunResult};
use crate::run::contain::Panicked;
use crate::run::context::RunContext;
use crate::Error;
use golem_core::error::ToolFailureKind;
use golem_core::machine::{DecodeId, Outcome, ToolCallId, Verdict};
use golem_core::model::BoxError;
use golem_core::{Cause, Response, RunError};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Kept in vectors: a run accepts one answer and fails at most once, so
/// these hold one entry or none, and a map's node and code were a cost of
/// every run (issue 37).
pub(crate) struct Attachments<O> {
    decoded: Vec<(DecodeId, O)>,
    decode_errors: Vec<BoxError>,
    tool_errors: Vec<(ToolCallId, BoxError)>,
}

impl<O> Attachments<O> {
    pub(crate) fn new() -> Self {
        Attachments { decoded: Vec::new(), decode_errors: Vec::new(), tool_errors: Vec::new() }
    }

    /// Run the decoder; keep the value or the error, return the verdict.
    pub(crate) fn decode<Deps>(
        &mut self,
        decoder: &dyn Decoder<O, Deps>,
        ctx: &RunContext<Deps>,
        id: DecodeId,
        response: &Response,
    ) -> Verdict {
        let decoded = catch_unwind(AssertUnwindSafe(|| decoder.decode(ctx, response)))
            .unwrap_or_else(|p| Err(DecodeError::fatal(Panicked::new("the decoder", p))));
        match decoded {
            Ok(value) => {
                keep(&mut self.decoded, id, value);
                Verdict::Accepted
            }
            Err(DecodeError::Retry(reason)) => Verdict::Rejected { reason },
            Err(DecodeError::Fatal(error)) => {
                let message = error.to_string();
                self.decode_errors.push(error);
                Verdict::Fatal { message }
            }
        }
    }

    pub(crate) fn tool_error(&mut self, id: ToolCallId, error: BoxError) {
        keep(&mut self.tool_errors, id, error);
    }

    /// The run's outcome, or its error with the original error attached.
    pub(crate) fn finish(mut self, outcome: Option<Outcome>) -> Result<RunOutcome<O>, Error> {
        match outcome {
            None => Err(Error::NoOutcome("the machine is done but reports no outcome")),
            Some(Outcome::Completed { summary, decode }) => {
                let value =
                    take(&mut self.decoded, decode).ok_or(Error::NoOutcome("the accepted answer has no value"))?;
                Ok(RunOutcome::Completed(RunResult::new(value, summary)))
            }
            Some(Outcome::Paused { summary, deferred }) => Ok(RunOutcome::Paused(PausedRun::new(deferred, summary))),
            Some(Outcome::Failed(mut error)) => {
                error.source = self.source_for(&error).map(Arc::from);
                Err(Error::from(error))
            }
        }
    }

    fn source_for(&mut self, error: &RunError) -> Option<BoxError> {
        match &error.cause {
            Cause::Tool(failure)
                if matches!(failure.failure, ToolFailureKind::Fatal { .. } | ToolFailureKind::ApprovedRerun { .. }) =>
            {
                take(&mut self.tool_errors, ToolCallId(failure.id?))
            }
            Cause::Decode(failure) if failure.fatal => self.decode_errors.pop(),
            _ => None,
        }
    }
}

/// Keep `value` under `id`, replacing what an earlier answer to the same
/// id left (a decode issued again after a recovery), as a map would.
fn keep<K: PartialEq, V>(kept: &mut Vec<(K, V)>, id: K, value: V) {
    match kept.iter_mut().find(|(k, _)| *k == id) {
        Some(slot) => slot.1 = value,
        None => kept.push((id, value)),
    }
}

/// The value kept under `id`.
fn take<K: PartialEq, V>(kept: &mut Vec<(K, V)>, id: K) -> Option<V> {
    let at = kept.iter().position(|(k, _)| *k == id)?;
    Some(kept.swap_remove(at).1)
}

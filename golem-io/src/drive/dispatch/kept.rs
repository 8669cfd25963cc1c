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
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

pub(crate) struct Attachments<O> {
    decoded: BTreeMap<DecodeId, O>,
    decode_errors: Vec<BoxError>,
    tool_errors: BTreeMap<ToolCallId, BoxError>,
}

impl<O> Attachments<O> {
    pub(crate) fn new() -> Self {
        Attachments { decoded: BTreeMap::new(), decode_errors: Vec::new(), tool_errors: BTreeMap::new() }
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
                self.decoded.insert(id, value);
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
        self.tool_errors.insert(id, error);
    }

    /// The run's outcome, or its error with the original error attached.
    pub(crate) fn finish(mut self, outcome: Option<Outcome>) -> Result<RunOutcome<O>, Error> {
        match outcome {
            None => Err(Error::NoOutcome("the machine is done but reports no outcome")),
            Some(Outcome::Completed { summary, decode }) => {
                let value = self.decoded.remove(&decode).ok_or(Error::NoOutcome("the accepted answer has no value"))?;
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
                self.tool_errors.remove(&ToolCallId(failure.id?))
            }
            Cause::Decode(failure) if failure.fatal => self.decode_errors.pop(),
            _ => None,
        }
    }
}

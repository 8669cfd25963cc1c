//! What a run returns: the outcome and the whole evidence (SPEC RUN-08..10).

use golem_core::machine::RunSummary;
use golem_core::{DeferredRequests, FinishReason, Message, Usage};
use serde::{Deserialize, Serialize};

/// How a run that did not fail ended. A pause is its own variant, so it can
/// never be mistaken for a completed run with an empty output (SPEC RUN-09).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutput<O> {
    /// The decoder accepted the final answer.
    Completed(O),
    /// Deferred tool calls wait for resolution; resume with
    /// [`RunBuilder::resume`](crate::RunBuilder::resume).
    Paused(DeferredRequests),
}

/// A finished run: its output and the evidence that produced it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunResult<O> {
    /// The output, or the calls the run paused on.
    pub output: RunOutput<O>,
    /// The whole conversation, ready to continue with
    /// [`RunBuilder::history`](crate::RunBuilder::history).
    pub messages: Vec<Message>,
    /// Usage summed over every turn.
    pub usage: Usage,
    /// The final turn's finish reason.
    pub finish_reason: FinishReason,
    /// Provider calls, failed attempts included.
    pub requests: u64,
    /// Tool dispatches.
    pub tool_calls: u64,
    /// This run's id (SPEC EXTRA-01), as stamped on the messages it added.
    /// Empty only for a run replayed from a log written before runs had ids.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// The conversation's id (SPEC EXTRA-01): pass the messages to the
    /// next run and it continues this conversation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub conversation_id: String,
}

impl<O> RunResult<O> {
    pub(crate) fn new(output: RunOutput<O>, summary: RunSummary) -> Self {
        RunResult {
            output,
            messages: summary.messages,
            usage: summary.usage,
            finish_reason: summary.finish_reason,
            requests: summary.requests,
            tool_calls: summary.tool_calls,
            run_id: summary.run_id,
            conversation_id: summary.conversation_id,
        }
    }

    /// This run's id (SPEC EXTRA-01).
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The conversation's id (SPEC EXTRA-01).
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// The output of a completed run; `None` when it paused.
    pub fn output(&self) -> Option<&O> {
        match &self.output {
            RunOutput::Completed(o) => Some(o),
            RunOutput::Paused(_) => None,
        }
    }

    /// The output of a completed run, by value; `None` when it paused.
    pub fn into_output(self) -> Option<O> {
        match self.output {
            RunOutput::Completed(o) => Some(o),
            RunOutput::Paused(_) => None,
        }
    }

    /// The calls a paused run waits on; `None` when it completed.
    pub fn deferred(&self) -> Option<&DeferredRequests> {
        match &self.output {
            RunOutput::Paused(d) => Some(d),
            RunOutput::Completed(_) => None,
        }
    }

    /// True when the run paused on deferred calls.
    pub fn is_paused(&self) -> bool {
        matches!(self.output, RunOutput::Paused(_))
    }
}

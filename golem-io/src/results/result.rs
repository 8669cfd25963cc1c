//! What a run returns: the outcome and the whole evidence (SPEC RUN-08..10).
//!
//! The common path needs no unwrap: [`RunBuilder::call`] (and every `run…`
//! shortcut) returns a [`RunResult`] whose `output` *is* the output. A run
//! that pauses on deferred tool calls is no completed run, so there it is an
//! error, [`Error::Paused`](crate::Error::Paused), carrying the whole
//! [`PausedRun`] — never a zero-valued output (SPEC RUN-09). Agents whose
//! tools defer call [`RunBuilder::call_pausable`] instead and get a
//! [`RunOutcome`]: completed or paused, as an enum.
//!
//! [`RunBuilder::call`]: crate::RunBuilder::call
//! [`RunBuilder::call_pausable`]: crate::RunBuilder::call_pausable

use golem_core::machine::RunSummary;
use golem_core::{DeferredRequests, FinishReason, Message, SubRunShare, Usage};
use serde::{Deserialize, Serialize};

/// A completed run: its output and the evidence that produced it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunResult<O> {
    /// The output the decoder accepted.
    pub output: O,
    /// The whole conversation, ready to continue with
    /// [`RunBuilder::history`](crate::RunBuilder::history).
    pub messages: Vec<Message>,
    /// Usage summed over every turn.
    pub usage: Usage,
    /// The estimated cost in US dollars (SPEC OBS-05): present when the
    /// agent prices every model the run used
    /// ([`ModelInfo::with_price`](crate::observe::ModelInfo::with_price)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// The final turn's finish reason.
    pub finish_reason: FinishReason,
    /// Provider calls, failed attempts included.
    pub requests: u64,
    /// Tool dispatches.
    pub tool_calls: u64,
    /// What each delegated sub-run spent, per delegating call, in the order
    /// they finished. `usage`, `cost`, `requests` and `tool_calls` already
    /// include it: they are the whole tree's (issue 31).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_runs: Vec<SubRunShare>,
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
    pub(crate) fn new(output: O, summary: RunSummary) -> Self {
        RunResult {
            output,
            messages: summary.messages,
            usage: summary.usage,
            cost: summary.cost,
            finish_reason: summary.finish_reason,
            requests: summary.requests,
            tool_calls: summary.tool_calls,
            sub_runs: summary.sub_runs,
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

    /// The output, by value.
    pub fn into_output(self) -> O {
        self.output
    }
}

/// A run that paused on deferred tool calls (SPEC DEFER-01, RUN-09): what
/// they wait for and the evidence so far. Resume it with
/// [`RunBuilder::resume`](crate::RunBuilder::resume) on its `messages`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PausedRun {
    /// The calls waiting for approval or an external result.
    pub deferred: DeferredRequests,
    /// The whole conversation, the deferred calls still open.
    pub messages: Vec<Message>,
    /// Usage summed over every turn.
    pub usage: Usage,
    /// The final turn's finish reason.
    pub finish_reason: FinishReason,
    /// Provider calls, failed attempts included.
    pub requests: u64,
    /// Tool dispatches.
    pub tool_calls: u64,
    /// This run's id (SPEC EXTRA-01).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// The conversation's id (SPEC EXTRA-01); the resumed run keeps it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub conversation_id: String,
}

impl PausedRun {
    pub(crate) fn new(deferred: DeferredRequests, summary: RunSummary) -> Self {
        PausedRun {
            deferred,
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

    /// Deferred calls waiting: approvals plus external results.
    pub fn pending(&self) -> usize {
        self.deferred.approvals.len() + self.deferred.external.len()
    }
}

/// How a run that may pause ended — what
/// [`RunBuilder::call_pausable`](crate::RunBuilder::call_pausable) returns.
/// A pause is its own variant, so it can never be mistaken for a completed
/// run (SPEC RUN-09).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome<O> {
    /// The decoder accepted the final answer.
    Completed(RunResult<O>),
    /// Deferred tool calls wait for resolution.
    Paused(PausedRun),
}

impl<O> RunOutcome<O> {
    /// The completed run; `None` when it paused.
    pub fn completed(self) -> Option<RunResult<O>> {
        match self {
            RunOutcome::Completed(result) => Some(result),
            RunOutcome::Paused(_) => None,
        }
    }

    /// The paused run; `None` when it completed.
    pub fn paused(self) -> Option<PausedRun> {
        match self {
            RunOutcome::Paused(paused) => Some(paused),
            RunOutcome::Completed(_) => None,
        }
    }

    /// True when the run paused on deferred calls.
    pub fn is_paused(&self) -> bool {
        matches!(self, RunOutcome::Paused(_))
    }

    /// The whole conversation, whichever way the run ended.
    pub fn messages(&self) -> &[Message] {
        match self {
            RunOutcome::Completed(result) => &result.messages,
            RunOutcome::Paused(paused) => &paused.messages,
        }
    }

    /// The completed run, or the pause as an [`Error::Paused`](crate::Error::Paused).
    pub(crate) fn into_result(self) -> Result<RunResult<O>, crate::Error> {
        match self {
            RunOutcome::Completed(result) => Ok(result),
            RunOutcome::Paused(paused) => Err(crate::Error::Paused(Box::new(paused))),
        }
    }
}

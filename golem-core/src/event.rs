//! Run events: the observation stream (SPEC EVT).
//!
//! The machine emits events in a fixed order, so every driver delivers the
//! same sequence. Events are advisory; the outcome is the canonical record.

use crate::deferral::DeferKind;
use crate::error::{CancelReason, CauseRecord};
use crate::id::Id;
use crate::message::{FinishReason, ToolArgs, Usage};
use crate::model::{Delta, ModelError};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One observation of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunEvent {
    /// Position in the run's event sequence, gap-free from 0.
    pub seq: u64,
    /// The run that emitted it (SPEC EXTRA-01); empty when it has no id.
    #[serde(default, skip_serializing_if = "Id::is_empty")]
    pub run_id: Id,
    /// The conversation of that run (SPEC EXTRA-01); empty when it has none.
    #[serde(default, skip_serializing_if = "Id::is_empty")]
    pub conversation_id: Id,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

impl RunEvent {
    /// Event `seq` of a run without ids.
    pub fn new(seq: u64, kind: EventKind) -> Self {
        RunEvent { seq, run_id: Id::default(), conversation_id: Id::default(), kind }
    }

    /// Builder-style: the run and conversation ids (SPEC EXTRA-01).
    pub fn with_ids(mut self, run_id: impl Into<Id>, conversation_id: impl Into<Id>) -> Self {
        self.run_id = run_id.into();
        self.conversation_id = conversation_id.into();
        self
    }
}

/// What a [`RunEvent`] reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "event")]
#[non_exhaustive]
pub enum EventKind {
    /// One provider call is about to be made.
    ModelStart {
        /// Turn within the correction round, from 0.
        turn: u32,
        /// Attempt, from 1.
        attempt: u32,
        /// Fallback member, from 0.
        member: u32,
    },
    /// One provider call ended.
    ModelEnd {
        /// Turn within the round.
        turn: u32,
        /// Attempt, from 1.
        attempt: u32,
        /// Fallback member.
        member: u32,
        /// Usage the call reported (zero on failure).
        usage: Usage,
        /// Finish reason of a successful call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        finish_reason: Option<FinishReason>,
        /// The failure, if the call failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ModelError>,
    },
    /// A tool execution is starting.
    ToolStart {
        /// The turn (within the round) whose response requested the call;
        /// 0 for an approved re-run, which runs before the resumed run's
        /// first turn.
        turn: u32,
        /// Provider call id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Model-produced arguments.
        args: ToolArgs,
        /// An approved re-run of a deferred call.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        approved: bool,
    },
    /// A tool execution ended.
    ToolEnd {
        /// The turn of the matching `tool_start`.
        turn: u32,
        /// Provider call id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// How it ended: a result, a correctable rejection, a failed result,
        /// a fatal error, …
        outcome: ToolEndOutcome,
        /// An approved re-run of a deferred call.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        approved: bool,
    },
    /// A delegation tool's sub-run finished; what it spent is now in the
    /// run's totals (SPEC DELEG-04, issue 31).
    SubRunSpent {
        /// The turn of the delegating call.
        turn: u32,
        /// Provider call id of the delegating call.
        call_id: String,
        /// The delegating tool's name.
        tool: String,
        /// What the sub-run spent.
        spent: crate::sub_run::SubRunUsage,
    },
    /// The decoder rejected the answer; a correction round follows.
    OutputRejected {
        /// The round that follows, from 1.
        round: u32,
        /// The decoder's reason.
        reason: String,
    },
    /// A tool deferred instead of executing; replaces its tool_end.
    Deferred {
        /// The turn of the matching `tool_start`.
        turn: u32,
        /// Provider call id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// What it waits for.
        kind: DeferKind,
        /// The tool's explanation.
        reason: String,
    },
    /// A failed model call will be retried after `delay`.
    Retrying {
        /// Turn within the round.
        turn: u32,
        /// The attempt that follows.
        attempt: u32,
        /// The wait before it.
        #[serde(with = "crate::time::duration_ms")]
        delay: Duration,
        /// Why the previous attempt failed.
        cause: ModelError,
    },
    /// A streamed turn failed retryably after fragments of it reached the
    /// caller, and is retried or handed to the next fallback member anyway
    /// (SPEC RETRY-06, opt-in): everything streamed for this turn, attempt
    /// and member is void — a UI clears what it showed. Follows the failed
    /// call's `model_end`; the retry's `retrying` / `model_start` follow.
    TurnDiscarded {
        /// Turn within the round.
        turn: u32,
        /// The attempt whose fragments are void.
        attempt: u32,
        /// The fallback member that streamed them.
        member: u32,
    },
    /// A retryable failure was not retried although the policy had attempts
    /// or fallback members left (SPEC RETRY-06); the run fails next, its
    /// error carrying the same reason.
    RetryDeclined {
        /// Turn within the round.
        turn: u32,
        /// The attempt that failed.
        attempt: u32,
        /// The fallback member that failed.
        member: u32,
        /// Why no retry.
        reason: crate::error::DeclineReason,
    },
    /// The run was stopped.
    Canceled {
        /// By whom.
        reason: CancelReason,
    },
    /// An answer arrived for work already canceled or timed out; dropped.
    LateResult {
        /// What answered (`model`, `tool` or `decode`) and its machine id.
        what: String,
        /// The machine id.
        id: u64,
    },
    /// A crash resume found a call with no recorded result (SPEC LOG-06).
    Recovered {
        /// Provider call id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Whether the call had started before the crash.
        started: bool,
        /// What the run does about it.
        decision: crate::tool::UnknownOutcome,
    },
    /// A streamed fragment of the current turn.
    Delta {
        /// Turn within the round.
        turn: u32,
        /// The fragment.
        delta: Delta,
    },
}

/// How a tool execution ended, as a `tool_end` event reports it (SPEC
/// EVT-01, TOOL-02): the tool's own answer, or what the run did to the call.
/// Serialised with a `type` tag, e.g. `{"type":"rejected","reason":"…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "type")]
#[non_exhaustive]
pub enum ToolEndOutcome {
    /// A result for the model.
    Output {
        /// The text the model reads.
        content: String,
    },
    /// A correctable rejection: the model is asked to fix its call (the
    /// reference's `ModelRetry`), while the correction budget lasts.
    Rejected {
        /// What to fix.
        reason: String,
    },
    /// A definitive failure shown to the model (flagged `failed`); no budget
    /// is charged.
    Failed {
        /// What failed: the text the model read.
        reason: String,
        /// The error behind it, with its `source()` chain, when the tool
        /// failed on one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cause: Option<CauseRecord>,
    },
    /// The tool stopped the whole run (canceled stage).
    CanceledRun {
        /// Why.
        reason: String,
    },
    /// A fatal error: the run fails at the tool stage.
    Fatal {
        /// The error's kind tag (e.g. `error`, `panic`, `invalid_part`).
        kind: String,
        /// Its display text.
        message: String,
    },
    /// An approved re-run deferred again (which fails the resumed run).
    Deferred {
        /// What it waits for.
        kind: DeferKind,
        /// The tool's explanation.
        reason: String,
    },
    /// The call overran its deadline and was canceled; its tool's timeout
    /// policy decides whether the run fails or the model sees a failed
    /// result.
    TimedOut {
        /// The deadline that passed.
        #[serde(with = "crate::time::duration_ms")]
        after: Duration,
    },
    /// The call never answered: the run stopped it.
    Interrupted {
        /// Why it was stopped.
        cause: Interruption,
    },
}

/// Why a tool call was stopped before it answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Interruption {
    /// The run was canceled while the call was in flight.
    RunStopped,
    /// A sibling call of its parallel group failed fatally.
    SiblingFailed,
    /// The call was queued but never started.
    NotStarted,
}

impl ToolEndOutcome {
    /// The result text, when the tool produced a result.
    pub fn output(&self) -> Option<&str> {
        match self {
            ToolEndOutcome::Output { content } => Some(content),
            _ => None,
        }
    }

    /// True for a correctable rejection.
    pub fn is_rejected(&self) -> bool {
        matches!(self, ToolEndOutcome::Rejected { .. })
    }

    /// The rejection, failure or error text — everything but a result.
    pub fn error_text(&self) -> Option<String> {
        Some(match self {
            ToolEndOutcome::Output { .. } => return None,
            ToolEndOutcome::Rejected { reason }
            | ToolEndOutcome::Failed { reason, .. }
            | ToolEndOutcome::CanceledRun { reason }
            | ToolEndOutcome::Deferred { reason, .. } => reason.clone(),
            ToolEndOutcome::Fatal { message, .. } => message.clone(),
            ToolEndOutcome::TimedOut { after } => {
                format!("the tool call exceeded its deadline of {} ms", after.as_millis())
            }
            ToolEndOutcome::Interrupted { cause: Interruption::RunStopped } => {
                "canceled: the run was stopped".to_string()
            }
            ToolEndOutcome::Interrupted { cause: Interruption::SiblingFailed } => {
                "canceled after a sibling call failed".to_string()
            }
            ToolEndOutcome::Interrupted { cause: Interruption::NotStarted } => "not started".to_string(),
        })
    }
}

//! Run events: the observation stream (SPEC EVT).
//!
//! The machine emits events in a fixed order, so every driver delivers the
//! same sequence. Events are advisory; the outcome is the canonical record.

use crate::deferral::DeferKind;
use crate::error::CancelReason;
use crate::message::{FinishReason, ToolArgs, Usage};
use crate::model::{Delta, ModelError};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One observation of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunEvent {
    /// Position in the run's event sequence, gap-free from 0.
    pub seq: u64,
    /// The run that emitted it (SPEC EXTRA-01); empty when it has no id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// The conversation of that run (SPEC EXTRA-01); empty when it has none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub conversation_id: String,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
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
        /// Provider call id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// The result shown to the model, on success.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<String>,
        /// Rejection, failure or error text otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// An approved re-run of a deferred call.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        approved: bool,
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
    /// The run was stopped.
    Canceled {
        /// By whom.
        reason: CancelReason,
    },
    /// An answer arrived for work already cancelled or timed out; dropped.
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

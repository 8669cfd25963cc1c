//! Run failures and their evidence (SPEC ERR).

use crate::message::{Message, Usage};
use crate::model::ModelError;
use serde::{Deserialize, Serialize};
use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The run phase that failed (SPEC ERR-01).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The model could not produce a response.
    Model,
    /// A response could not become the declared output.
    Decode,
    /// A tool failed and the run aborted.
    Tool,
    /// The model-turn limit was exceeded.
    Loop,
    /// A usage bound was crossed.
    Usage,
    /// The run was deliberately stopped.
    Canceled,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Model => "model",
            Stage::Decode => "decode",
            Stage::Tool => "tool",
            Stage::Loop => "loop",
            Stage::Usage => "usage",
            Stage::Canceled => "canceled",
        })
    }
}

/// A usage bound crossed by a run (SPEC USAGE-05).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("run exceeded the {kind} limit of {limit} (used {actual})")]
#[non_exhaustive]
pub struct UsageLimitError {
    /// The crossed dimension, e.g. `total token`.
    pub kind: String,
    /// The configured bound.
    pub limit: u64,
    /// The value reached, or that would have been.
    pub actual: u64,
}

impl UsageLimitError {
    /// The bound `limit` of dimension `kind` crossed at `actual`.
    pub fn new(kind: impl Into<String>, limit: u64, actual: u64) -> Self {
        UsageLimitError { kind: kind.into(), limit, actual }
    }
}

/// Who stopped a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    /// The caller's cancel handle.
    Caller,
    /// The run deadline passed.
    Deadline,
    /// A tool asked to stop the run.
    Tool,
}

/// A serialisable record of an error kept by the driver (SPEC MACH-02):
/// the kind names its type, the message is its display text, and the
/// display texts of its `source()` chain follow, outermost first — what a
/// log or an event keeps of an error object that cannot be serialised.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CauseRecord {
    /// The error's kind (its type name, or a short tag).
    pub kind: String,
    /// Its display text.
    pub message: String,
    /// The display texts of the errors in its `source()` chain, outermost
    /// first (empty when it has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

/// How deep a recorded `source()` chain goes: a cyclic or absurdly deep
/// chain (hand-written `source()`s can be either) must not grow a record
/// without bound.
const MAX_SOURCES: usize = 16;

impl CauseRecord {
    /// A record of `kind` with `message` and no sources.
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        CauseRecord { kind: kind.into(), message: message.into(), sources: Vec::new() }
    }

    /// A record of `error`: its display text and those of its `source()`
    /// chain (at most 16 deep).
    ///
    /// ```
    /// use golem_core::CauseRecord;
    ///
    /// let io = std::io::Error::other("disk full");
    /// let record = CauseRecord::of("error", &io);
    /// assert_eq!((record.message.as_str(), record.sources.len()), ("disk full", 0));
    /// ```
    pub fn of(kind: impl Into<String>, error: &(dyn std::error::Error + 'static)) -> Self {
        let mut sources = Vec::new();
        let mut next = error.source();
        while let Some(source) = next {
            if sources.len() == MAX_SOURCES {
                break;
            }
            sources.push(source.to_string());
            next = source.source();
        }
        CauseRecord { kind: kind.into(), message: error.to_string(), sources }
    }
}

impl fmt::Display for CauseRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a tool failed the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "kind")]
#[non_exhaustive]
pub enum ToolFailureKind {
    /// The tool returned a fatal error.
    Fatal {
        /// The error record.
        cause: CauseRecord,
    },
    /// Correctable rejections outran the budget.
    Rejected {
        /// The last rejection reason.
        reason: String,
        /// Rejections charged (corrections + 1).
        attempts: u32,
    },
    /// The call overran its deadline.
    Timeout {
        /// The deadline that passed.
        #[serde(with = "crate::time::duration_ms")]
        after: Duration,
    },
    /// An approved re-run did not produce a result.
    ApprovedRerun {
        /// What happened instead.
        detail: String,
    },
}

/// A tool's failure of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolFailure {
    /// The machine id of the failing execution, when it ran, so the driver
    /// can attach the original error object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The tool name.
    pub tool: String,
    /// The provider call id.
    pub call_id: String,
    /// What went wrong.
    pub failure: ToolFailureKind,
}

impl ToolFailure {
    /// The failure of tool `tool`'s call `call_id`.
    pub fn new(tool: impl Into<String>, call_id: impl Into<String>, failure: ToolFailureKind) -> Self {
        ToolFailure { id: None, tool: tool.into(), call_id: call_id.into(), failure }
    }
}

impl fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            ToolFailureKind::Fatal { cause } => {
                write!(f, "tool {} failed: {}", self.tool, cause.message)
            }
            ToolFailureKind::Rejected { reason, attempts } if *attempts > 1 => {
                write!(f, "tool {} rejected the call after {attempts} attempts: {reason}", self.tool)
            }
            ToolFailureKind::Rejected { reason, .. } => {
                write!(f, "tool {} rejected the call: {reason}", self.tool)
            }
            ToolFailureKind::Timeout { after } => {
                write!(f, "tool {} exceeded its deadline of {} ms", self.tool, after.as_millis())
            }
            ToolFailureKind::ApprovedRerun { detail } => {
                write!(f, "approved re-run of tool {} failed: {detail}", self.tool)
            }
        }
    }
}

/// Why the decoder failed the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DecodeFailure {
    /// The decoder's message.
    pub message: String,
    /// Decodes tried (corrections + 1); 1 for a fatal verdict.
    pub attempts: u32,
    /// True when the decoder returned a fatal (not correctable) error.
    pub fatal: bool,
}

impl DecodeFailure {
    /// A decode failure after `attempts` decodes; `fatal` when the decoder
    /// said it cannot be corrected.
    pub fn new(message: impl Into<String>, attempts: u32, fatal: bool) -> Self {
        DecodeFailure { message: message.into(), attempts, fatal }
    }
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.attempts > 1 {
            write!(f, "output rejected after {} attempts: {}", self.attempts, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

/// The typed cause of a failed run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "type")]
#[non_exhaustive]
pub enum Cause {
    /// A model call failed.
    Model(ModelError),
    /// A tool failed.
    Tool(ToolFailure),
    /// The decoder failed.
    Decode(DecodeFailure),
    /// A usage bound was crossed.
    Usage(UsageLimitError),
    /// The model-turn limit was exceeded.
    Loop {
        /// The configured limit.
        turns: u32,
    },
    /// The run was stopped.
    Canceled {
        /// By whom.
        reason: CancelReason,
        /// A tool's or caller's explanation.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        message: String,
    },
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Model(e) => e.fmt(f),
            Cause::Tool(t) => t.fmt(f),
            Cause::Decode(d) => d.fmt(f),
            Cause::Usage(u) => u.fmt(f),
            Cause::Loop { turns } => write!(f, "run exceeded the limit of {turns} model turns"),
            Cause::Canceled { reason: CancelReason::Caller, .. } => f.write_str("run canceled by the caller"),
            Cause::Canceled { reason: CancelReason::Deadline, .. } => f.write_str("run deadline exceeded"),
            Cause::Canceled { reason: CancelReason::Tool, message } => write!(f, "a tool canceled the run: {message}"),
        }
    }
}

impl StdError for Cause {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Cause::Model(e) => Some(e),
            Cause::Usage(u) => Some(u),
            _ => None,
        }
    }
}

/// The evidence a failed run gathered (SPEC ERR-03).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PartialResult {
    /// The conversation through the last completed turn.
    pub messages: Vec<Message>,
    /// Usage of completed turns.
    pub usage: Usage,
    /// Provider calls made, failed ones included.
    pub requests: u64,
    /// Tool dispatches.
    pub tool_calls: u64,
    /// The streamed turn the run lost after fragments of it had reached the
    /// caller: the text, thinking and tool-call fragments forwarded, as one
    /// assistant message (SPEC RETRY-06, ERR-05). **Incomplete**: its tool
    /// calls may have cut-off arguments and it never ran, so it is kept
    /// apart from `messages` — feeding `messages` to a new run continues
    /// the conversation without it. Boxed: it is rare, and errors travel
    /// in `Result`s that should stay small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Box<Message>>,
    /// What each delegated sub-run spent; already in `usage`, `requests`
    /// and `tool_calls`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_runs: Vec<crate::sub_run::SubRunShare>,
}

impl PartialResult {
    /// Evidence of `messages`, `usage`, `requests` and `tool_calls`, with no
    /// incomplete turn.
    pub fn new(messages: Vec<Message>, usage: Usage, requests: u64, tool_calls: u64) -> Self {
        PartialResult { messages, usage, requests, tool_calls, incomplete: None, sub_runs: Vec::new() }
    }
}

/// Why a run failed without the retry its policy allowed (SPEC RETRY-06,
/// TIME-02).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeclineReason {
    /// Fragments of the failed streamed turn had already reached the caller,
    /// and the policy does not discard and retry
    /// ([`RetryPolicy::discard_and_retry`](crate::RetryPolicy::discard_and_retry)).
    /// Retrying the whole run would repeat what it already did — its tools
    /// included; continue from the partial evidence instead.
    FragmentsForwarded,
    /// The provider's Retry-After hint asked for a wait that would end at or
    /// past the run's deadline (SPEC TIME-02): the run fails at once with
    /// the provider's error, its hint in the cause, rather than sleep into
    /// the deadline.
    RetryAfterPastDeadline,
}

impl fmt::Display for DeclineReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeclineReason::FragmentsForwarded => "fragments of the streamed turn had reached the caller",
            DeclineReason::RetryAfterPastDeadline => "the provider's Retry-After wait would outlast the run's deadline",
        })
    }
}

/// A failed run: its stage, typed cause and evidence.
///
/// `Display` reads `"<stage> stage: <cause>"`. `source()` yields the original
/// error the driver kept (a tool's error, a decoder's error, a stream sink's
/// error), else the typed cause.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunError {
    /// Where the run failed.
    pub stage: Stage,
    /// Why.
    pub cause: Cause,
    /// The evidence; `None` iff this run completed no turn, reported no
    /// usage and ran no tool (SPEC ERR-05).
    pub partial: Option<PartialResult>,
    /// Provider calls made, failed ones included (always present).
    pub requests: u64,
    /// The failed run's id (SPEC EXTRA-01), with or without `partial`;
    /// empty when it had none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// The failed run's conversation id (SPEC EXTRA-01); empty when it had none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub conversation_id: String,
    /// Set when the model error was retryable and the policy had attempts
    /// (or fallback members) left, but the run did not retry, and why
    /// (SPEC RETRY-06). The cause keeps its `retryable` flag: the fault was
    /// transient, but this run had gone too far to repeat the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_declined: Option<DeclineReason>,
    /// The original error object, attached by the driver.
    #[serde(skip)]
    pub source: Option<Arc<dyn StdError + Send + Sync + 'static>>,
}

impl RunError {
    /// A failure at `stage` for `cause`, with no evidence, no requests and
    /// no ids (set the public fields for more).
    pub fn new(stage: Stage, cause: Cause) -> Self {
        RunError {
            stage,
            cause,
            partial: None,
            requests: 0,
            run_id: String::new(),
            conversation_id: String::new(),
            retry_declined: None,
            source: None,
        }
    }

    /// True when the caller's cancellation or the run deadline ended the run.
    pub fn is_canceled(&self) -> bool {
        matches!(self.cause, Cause::Canceled { reason: CancelReason::Caller | CancelReason::Deadline, .. })
    }

    /// The usage bound that was crossed, if that is why the run failed.
    pub fn usage_limit(&self) -> Option<&UsageLimitError> {
        match &self.cause {
            Cause::Usage(u) => Some(u),
            _ => None,
        }
    }

    /// The failed run's id (SPEC EXTRA-01); empty when it had none.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The failed run's conversation id (SPEC EXTRA-01); empty when it had none.
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// The model error, if a model call is why the run failed.
    pub fn model_error(&self) -> Option<&ModelError> {
        match &self.cause {
            Cause::Model(e) => Some(e),
            _ => None,
        }
    }

    /// Why a retry the policy allowed was not made, if one was declined
    /// (SPEC RETRY-06).
    pub fn retry_declined(&self) -> Option<DeclineReason> {
        self.retry_declined
    }
}

impl PartialEq for RunError {
    fn eq(&self, other: &Self) -> bool {
        self.stage == other.stage
            && self.cause == other.cause
            && self.partial == other.partial
            && self.requests == other.requests
            && self.run_id == other.run_id
            && self.conversation_id == other.conversation_id
            && self.retry_declined == other.retry_declined
    }
}

impl fmt::Debug for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunError")
            .field("stage", &self.stage)
            .field("cause", &self.cause)
            .field("partial", &self.partial)
            .field("requests", &self.requests)
            .field("run_id", &self.run_id)
            .field("conversation_id", &self.conversation_id)
            .field("retry_declined", &self.retry_declined)
            .field("source", &self.source.as_ref().map(|s| s.to_string()))
            .finish()
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} stage: {}", self.stage, self.cause)
    }
}

impl StdError for RunError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.source {
            Some(s) => Some(s.as_ref() as &(dyn StdError + 'static)),
            None => Some(&self.cause),
        }
    }
}

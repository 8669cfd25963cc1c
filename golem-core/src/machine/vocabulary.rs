//! The machine's vocabulary: the commands it emits, the inputs it takes,
//! the ids correlating them and the outcome it ends with (DESIGN.md). Named
//! for what it holds: the crate does no I/O.

use crate::deferral::{DeferKind, DeferredRequests, DeferredResults};
use crate::error::{CancelReason, CauseRecord, RunError};
use crate::event::RunEvent;
use crate::id::Id;
use crate::message::{FinishReason, Message, Part, ToolCall, Usage};
use crate::model::{Delta, ModelError, Request, Response};
use crate::time::Moment;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! machine_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

machine_id!(
    /// Correlates a `CallModel` command with its answer.
    ModelCallId
);
machine_id!(
    /// Correlates an `ExecuteTool` command with its answer.
    ToolCallId
);
machine_id!(
    /// Correlates a `Decode` command with its verdict.
    DecodeId
);

/// The user's turn that opens a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    /// The prompt text.
    #[serde(default)]
    pub text: String,
    /// Parts following the text (images, documents, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
}

impl Prompt {
    /// A text prompt.
    pub fn text(text: impl Into<String>) -> Self {
        Prompt { text: text.into(), parts: Vec::new() }
    }

    /// Builder-style: parts following the text.
    pub fn with_parts(mut self, parts: Vec<Part>) -> Self {
        self.parts = parts;
        self
    }
}

/// How a run begins: what the driver resolved before the machine exists
/// (history processor already applied, instructions already evaluated).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Start {
    /// Earlier conversation, exactly as processed.
    #[serde(default)]
    pub history: Vec<Message>,
    /// This run's resolved instructions (empty: none).
    #[serde(default)]
    pub instructions: String,
    /// The user's prompt. `None` only on a deferred resume without one.
    #[serde(default)]
    pub prompt: Option<Prompt>,
    /// Resolutions of the paused run whose history this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<DeferredResults>,
    /// Stream model turns (deltas become events).
    #[serde(default)]
    pub stream: bool,
    /// This run's id (SPEC EXTRA-01), minted by the driver or given by the
    /// caller: stamped on every message the run adds and on every event.
    /// Empty: the run has none (a log written before ids existed).
    #[serde(default, skip_serializing_if = "Id::is_empty")]
    pub run_id: Id,
    /// The conversation this run continues or opens (SPEC EXTRA-01),
    /// stamped like the run id. Empty: none.
    #[serde(default, skip_serializing_if = "Id::is_empty")]
    pub conversation_id: Id,
    /// This run's jitter seed (SPEC RETRY-02, JIT-01): 64 random bits the
    /// driver draws from the OS for each run, since the machine has no
    /// randomness. Every retry's jitter hashes it with the config seed and
    /// the retry's number ([`jitter::run_unit`](crate::jitter::run_unit)),
    /// and the event log records it (in the header's `start`), so a replay
    /// waits exactly as the recording did. Ignored under a fixed seed
    /// ([`RunConfig::fixed_seed`](crate::RunConfig::fixed_seed)). `None`: the
    /// jitter phase below, else the config seed alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter_seed: Option<u64>,
    /// The jitter phase of logs written before run seeds (SPEC LOG-03):
    /// such a log replays with the golden-ratio formula it was recorded
    /// with ([`jitter::phase_unit`](crate::jitter::phase_unit)). Drivers set
    /// [`jitter_seed`](Self::jitter_seed) instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter_phase: Option<u64>,
    /// Bounds inherited from the run that delegated this one: what its
    /// limits left when it started this sub-run (issue 31). The run keeps
    /// within them as well as within its configuration's limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<crate::config::UsageLimits>,
}

impl Start {
    /// A fresh run on `prompt`.
    pub fn prompt(prompt: impl Into<String>) -> Self {
        Start { prompt: Some(Prompt::text(prompt)), ..Start::default() }
    }

    /// Builder-style: the earlier conversation.
    pub fn with_history(mut self, history: Vec<Message>) -> Self {
        self.history = history;
        self
    }

    /// Builder-style: the run's instructions.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = instructions.into();
        self
    }

    /// Builder-style: the user's prompt (`None`: a deferred resume without one).
    pub fn with_prompt(mut self, prompt: Option<Prompt>) -> Self {
        self.prompt = prompt;
        self
    }

    /// Builder-style: resolutions of the paused run whose history this is.
    pub fn with_resume(mut self, results: DeferredResults) -> Self {
        self.resume = Some(results);
        self
    }

    /// Builder-style: stream model turns.
    pub fn with_stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Builder-style: the run and conversation ids (SPEC EXTRA-01). The
    /// machine never mints ids — it has no clock and no randomness — so
    /// the driver passes them in.
    pub fn with_ids(mut self, run_id: impl Into<Id>, conversation_id: impl Into<Id>) -> Self {
        self.run_id = run_id.into();
        self.conversation_id = conversation_id.into();
        self
    }

    /// Builder-style: this run's jitter seed (SPEC JIT-01). Drivers draw one
    /// per run from the OS; a fixed one is for tests.
    pub fn with_jitter_seed(mut self, seed: u64) -> Self {
        self.jitter_seed = Some(seed);
        self
    }

    /// Builder-style: a jitter phase, as logs written before run seeds
    /// recorded (SPEC LOG-03); for tests of those logs.
    pub fn with_jitter_phase(mut self, phase: u64) -> Self {
        self.jitter_phase = Some(phase);
        self
    }
}

/// How a tool call ended (SPEC TOOL-02/03).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
#[non_exhaustive]
pub enum ToolOutcome {
    /// A result for the model.
    Output {
        /// Text content.
        content: String,
        /// Media parts.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<Part>,
    },
    /// Correctable: the model should fix its call.
    Reject {
        /// What to fix.
        reason: String,
    },
    /// A definitive failure shown to the model; no budget charged.
    Failed {
        /// What failed: the text the model reads.
        reason: String,
        /// The error behind it, when the tool failed on one (`?` in its
        /// body): kept for the run's events and log with its `source()`
        /// chain; the model sees only `reason`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cause: Option<CauseRecord>,
    },
    /// Pause the run for approval or an external result.
    Defer {
        /// What it waits for.
        kind: DeferKind,
        /// Explanation for whoever resolves it.
        reason: String,
    },
    /// Stop the run deliberately (canceled stage).
    CancelRun {
        /// Why.
        reason: String,
    },
    /// Any other error: the run fails at the tool stage.
    Fatal {
        /// The error's record.
        cause: CauseRecord,
    },
}

impl ToolOutcome {
    /// A text result.
    pub fn output(content: impl Into<String>) -> Self {
        ToolOutcome::Output { content: content.into(), parts: Vec::new() }
    }

    /// A failed result with `reason` and no error behind it.
    pub fn failed(reason: impl Into<String>) -> Self {
        ToolOutcome::Failed { reason: reason.into(), cause: None }
    }
}

/// The decoder's verdict on a final response (SPEC OUT-01).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "verdict")]
pub enum Verdict {
    /// The driver holds the decoded value.
    Accepted,
    /// Correctable: the model should answer again.
    Rejected {
        /// Why.
        reason: String,
    },
    /// Not correctable: the run fails at the decode stage.
    Fatal {
        /// Why.
        message: String,
    },
}

/// How a cancellation takes effect (SPEC MACH-07).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelMode {
    /// Cancel in-flight work and end now.
    Immediate,
    /// Let the current turn and its batch finish, then end.
    AfterTurn,
}

/// Everything that can happen to a run (the machine's only door in).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
#[non_exhaustive]
pub enum Input {
    /// A model call finished.
    ModelFinished {
        /// The call.
        id: ModelCallId,
        /// Its result. The response is boxed (issue 37): inline, its 256
        /// bytes made every input 264 bytes, moved at each step of every
        /// run; the log's JSON is the same either way.
        result: Result<Box<Response>, ModelError>,
    },
    /// A streamed fragment of a model call.
    ModelDelta {
        /// The call.
        id: ModelCallId,
        /// The fragment.
        delta: Delta,
    },
    /// A tool body is about to run (write-ahead ledger, SPEC LOG-06).
    ToolStarted {
        /// The call.
        id: ToolCallId,
    },
    /// A tool call finished.
    ToolFinished {
        /// The call.
        id: ToolCallId,
        /// How it ended.
        outcome: ToolOutcome,
    },
    /// What the sub-run of tool call `id` spent (a delegation tool), fed
    /// before the call's `ToolFinished`: rolled into the run's totals and
    /// checked against its limits (SPEC DELEG-04, issue 31).
    SubRunSpent {
        /// The delegating call.
        id: ToolCallId,
        /// What its sub-run spent.
        spent: crate::sub_run::SubRunUsage,
    },
    /// The decoder's verdict.
    Decoded {
        /// The decode request.
        id: DecodeId,
        /// The verdict.
        verdict: Verdict,
    },
    /// Time passed; deadlines up to `now` fire.
    Tick,
    /// The driver restarted after a crash: everything in flight is lost.
    /// Model calls and decodes are issued again; tool calls that never
    /// started run; started ones follow their tool's `UnknownOutcome`.
    Recover,
    /// Stop the run.
    Cancel {
        /// Who stops it.
        reason: CancelReason,
        /// How.
        mode: CancelMode,
    },
}

/// Work the driver must do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
#[non_exhaustive]
pub enum Command {
    /// Call fallback member `member` with `request`.
    CallModel {
        /// Quote it in the answer.
        id: ModelCallId,
        /// Which model of the fallback chain (0 = primary).
        member: u32,
        /// The request.
        request: Request,
        /// When the call times out.
        deadline: Option<Moment>,
        /// Stream the call.
        stream: bool,
    },
    /// Abandon a model call.
    CancelModel {
        /// The call.
        id: ModelCallId,
    },
    /// Run a tool.
    ExecuteTool {
        /// Quote it in the answer.
        id: ToolCallId,
        /// The model's call.
        call: ToolCall,
        /// When the tool must have answered.
        deadline: Option<Moment>,
        /// An approved re-run of a deferred call.
        approved: bool,
    },
    /// Abandon a tool call.
    CancelTool {
        /// The call.
        id: ToolCallId,
    },
    /// Run the decoder on a final response.
    Decode {
        /// Quote it in the verdict.
        id: DecodeId,
        /// The response; in tool mode its content is the output call's
        /// args. Boxed, as in [`Input::ModelFinished`].
        response: Box<Response>,
    },
}

/// Why the machine is waiting (SPEC MACH-04).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitReason {
    /// Work is in flight; no deadline applies.
    InFlight,
    /// Backing off before a retry.
    Backoff,
    /// A tool's deadline.
    ToolDeadline,
    /// A model call's deadline.
    ModelDeadline,
    /// A model call's first chunk, or its next one, is due (SPEC TIME-01).
    ModelChunk,
    /// The run deadline.
    RunDeadline,
}

/// What the machine has for the driver (the only door out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Output {
    /// Do this.
    Command(Command),
    /// Tell observers this.
    Event(RunEvent),
    /// Nothing to do until an input arrives or `deadline` passes.
    Wait {
        /// Feed `Input::Tick` at or after this moment.
        deadline: Option<Moment>,
        /// Why.
        reason: WaitReason,
    },
    /// The run is over; see [`crate::RunMachine::outcome`].
    Done,
}

/// The evidence of a run that ended without failing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunSummary {
    /// The whole conversation.
    pub messages: Vec<Message>,
    /// Summed usage.
    pub usage: Usage,
    /// The estimated cost in US dollars (SPEC USAGE-07, OBS-05): present
    /// when the configuration prices every model the run used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// The final turn's finish reason.
    pub finish_reason: FinishReason,
    /// Provider calls, failed attempts included.
    pub requests: u64,
    /// Tool dispatches.
    pub tool_calls: u64,
    /// What each delegated sub-run spent, in the order they finished; their
    /// sums are already in `usage`, `requests`, `tool_calls` and `cost`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_runs: Vec<crate::sub_run::SubRunShare>,
    /// The run's id (SPEC EXTRA-01); empty when it had none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// The conversation's id (SPEC EXTRA-01); empty when it had none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub conversation_id: String,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Outcome {
    /// The decoder accepted the answer of `decode`.
    Completed {
        /// The evidence.
        summary: RunSummary,
        /// The decode whose value is the output.
        decode: DecodeId,
    },
    /// The run paused on deferred calls.
    Paused {
        /// The evidence.
        summary: RunSummary,
        /// What must be resolved to resume.
        deferred: DeferredRequests,
    },
    /// The run failed.
    Failed(RunError),
}

/// A driver broke the machine's contract (distinct from run failures).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ApiMisuse {
    /// An answer quotes an id the machine never issued.
    #[error("answer for unknown {what} id {id}")]
    UnknownId {
        /// `model`, `tool` or `decode`.
        what: &'static str,
        /// The id.
        id: u64,
    },
    /// A second answer for one id.
    #[error("second answer for {what} id {id}")]
    DuplicateAnswer {
        /// `model`, `tool` or `decode`.
        what: &'static str,
        /// The id.
        id: u64,
    },
    /// `now` is earlier than a previous `now`.
    #[error("time went backwards: {now:?} is before {last:?}")]
    TimeWentBackwards {
        /// The latest time seen.
        last: Moment,
        /// The offending time.
        now: Moment,
    },
    /// A delta for a call that is not streaming.
    #[error("delta for model call {0} which is not streaming")]
    UnexpectedDelta(u64),
    /// `ToolStarted` after the call already reported starting.
    #[error("tool call {0} reported starting twice")]
    DuplicateStart(u64),
    /// The machine refused an earlier input as misuse and stays failed.
    #[error("the machine was poisoned by an earlier misuse: {0}")]
    Poisoned(String),
}

/// A run could not start (SPEC RUN-03): no stage, no evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetupError {
    /// The configuration broke a build rule.
    Config(crate::config::BuildError),
    /// A prompt part is malformed.
    InvalidPart {
        /// Its index.
        index: usize,
        /// What is wrong.
        error: crate::message::PartError,
    },
    /// The history is invalid.
    History(crate::history::HistoryError),
    /// The deferred resolutions were refused.
    Resolution(crate::deferral::ResolutionError),
    /// A streamed run on a model without streaming.
    StreamingUnsupported,
    /// The history processor failed (or panicked); its error is the
    /// `source()`.
    Processor(AppError),
    /// The instructions function panicked; the panic is the `source()`.
    Instructions(AppError),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Config(e) => e.fmt(f),
            SetupError::InvalidPart { index, error } => write!(f, "prompt part {index} is invalid: {error}"),
            SetupError::History(e) => e.fmt(f),
            SetupError::Resolution(e) => e.fmt(f),
            SetupError::StreamingUnsupported => f.write_str("the model does not support streaming"),
            SetupError::Processor(e) => write!(f, "history processor failed: {e}"),
            SetupError::Instructions(e) => write!(f, "instructions function failed: {e}"),
        }
    }
}

impl std::error::Error for SetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Transparent, as before: their own sources.
            SetupError::Config(e) => e.source(),
            SetupError::History(e) => e.source(),
            SetupError::Resolution(e) => e.source(),
            SetupError::InvalidPart { .. } | SetupError::StreamingUnsupported => None,
            // The application's error object itself, so it downcasts.
            SetupError::Processor(e) | SetupError::Instructions(e) => Some(e.get_ref()),
        }
    }
}

impl From<crate::config::BuildError> for SetupError {
    fn from(error: crate::config::BuildError) -> Self {
        SetupError::Config(error)
    }
}

impl From<crate::history::HistoryError> for SetupError {
    fn from(error: crate::history::HistoryError) -> Self {
        SetupError::History(error)
    }
}

impl From<crate::deferral::ResolutionError> for SetupError {
    fn from(error: crate::deferral::ResolutionError) -> Self {
        SetupError::Resolution(error)
    }
}

/// An error of application code the driver runs before the machine exists
/// (a history processor, an instructions function), kept whole: it compares
/// and displays by its text, and the error object itself stays reachable —
/// as [`SetupError`]'s `source()`, or through [`AppError::get_ref`] and
/// [`AppError::downcast_ref`].
#[derive(Clone)]
pub struct AppError {
    message: String,
    error: std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>,
}

impl AppError {
    /// Keep `error`.
    pub fn new(error: impl Into<crate::model::BoxError>) -> Self {
        let error: crate::model::BoxError = error.into();
        AppError { message: error.to_string(), error: std::sync::Arc::from(error) }
    }

    /// The error object.
    pub fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self.error.as_ref()
    }

    /// The error object as a `T`, when it is one.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.error.downcast_ref::<T>()
    }

    /// Its display text.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl PartialEq for AppError {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message
    }
}

impl Eq for AppError {}

impl fmt::Debug for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AppError").field(&self.message).finish()
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

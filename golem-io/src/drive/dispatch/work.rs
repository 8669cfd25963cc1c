//! The machine's commands as units of work, whichever driver runs them.

use golem_core::error::CancelReason;
use golem_core::machine::{CancelMode, Command, Input, ModelCallId, ToolCallId};
use golem_core::model::BoxError;
use golem_core::{Delta, DeltaSink, ModelErrorKind, Moment, Request, ToolCall, UsageLimits};

/// One unit of commanded work, not yet started.
pub(crate) enum Task {
    /// Call fallback member `member`.
    Model {
        id: ModelCallId,
        member: u32,
        request: Request,
        /// When the machine gives up on the call. A model that stops by
        /// its request's timeout is given it, and then the driver needs no
        /// thread (blocking) or timer (async) of its own to watch it.
        deadline: Option<Moment>,
        stream: bool,
    },
    /// Run the tool the call names.
    Tool {
        id: ToolCallId,
        call: ToolCall,
        deadline: Option<Moment>,
        approved: bool,
        /// What the run's limits left when the call was commanded: the
        /// budget of a sub-run it starts. `None` when the run has no
        /// limits (most runs), so the common task stays small.
        limits_left: Option<Box<UsageLimits>>,
    },
}

/// Which unit of work an answer belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TaskId {
    Model(ModelCallId),
    Tool(ToolCallId),
}

impl Task {
    pub(crate) fn id(&self) -> TaskId {
        match self {
            Task::Model { id, .. } => TaskId::Model(*id),
            Task::Tool { id, .. } => TaskId::Tool(*id),
        }
    }
}

/// What a command asks of the driver's executor.
pub(crate) enum Action {
    /// Start this work when the machine next waits.
    Start(Task),
    /// Stop this work: drop it if unstarted, signal and abandon it if running.
    Cancel(TaskId),
    /// Nothing to run. `Decode` is answered on the spot by the driver; a
    /// command this driver does not know cannot be executed, and the
    /// machine's deadlines end a run that waits for it.
    Ignore,
}

/// Sort a command (other than `Decode`) into an [`Action`].
/// `limits_left` is asked only for a tool call.
pub(crate) fn action(command: Command, limits_left: impl FnOnce() -> UsageLimits) -> Action {
    match command {
        Command::CallModel { id, member, request, deadline, stream } => {
            Action::Start(Task::Model { id, member, request, deadline, stream })
        }
        Command::ExecuteTool { id, call, deadline, approved } => {
            let limits_left = Some(limits_left()).filter(|l| *l != UsageLimits::new()).map(Box::new);
            Action::Start(Task::Tool { id, call, deadline, approved, limits_left })
        }
        Command::CancelModel { id } => Action::Cancel(TaskId::Model(id)),
        Command::CancelTool { id } => Action::Cancel(TaskId::Tool(id)),
        _ => Action::Ignore,
    }
}

/// The input that the caller's cancellation becomes; `after_turn` is the
/// token's [`cancel_after_turn`](crate::CancellationToken::cancel_after_turn) flag.
pub(crate) fn caller_cancel(after_turn: &std::sync::atomic::AtomicBool) -> Input {
    let mode = if after_turn.load(std::sync::atomic::Ordering::SeqCst) {
        CancelMode::AfterTurn
    } else {
        CancelMode::Immediate
    };
    Input::Cancel { reason: CancelReason::Caller, mode }
}

/// The caller's token as a placement takes it: its after-turn flag, the
/// token itself while it has not fired, and the cancellation to feed first
/// when it fired before the run.
pub(crate) struct CallerToken {
    pub(crate) live: Option<crate::run::cancel::CancellationToken>,
    pub(crate) first: Option<Input>,
    pub(crate) after_turn: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl CallerToken {
    pub(crate) fn new(token: Option<crate::run::cancel::CancellationToken>) -> Self {
        let after_turn = token.as_ref().map(|t| t.after_turn_flag()).unwrap_or_default();
        match token {
            Some(token) if token.is_canceled() => {
                CallerToken { live: None, first: Some(caller_cancel(&after_turn)), after_turn }
            }
            live => CallerToken { live, first: None, after_turn },
        }
    }
}

/// A sink forwarding each fragment toward the machine; it stops the model
/// once nobody listens (the forwarding closure returns false).
pub(crate) struct ForwardDeltas<F: FnMut(Delta) -> bool + Send>(pub(crate) F);

impl<F: FnMut(Delta) -> bool + Send> DeltaSink for ForwardDeltas<F> {
    fn delta(&mut self, delta: Delta) -> Result<(), BoxError> {
        if (self.0)(delta) {
            Ok(())
        } else {
            Err("the run no longer wants this call".into())
        }
    }
}

/// The call failed by timing out at or after its `deadline`: the model
/// stopped because the deadline came, not for a reason of its own — what
/// the driver feeds is a `Tick`, as if it had watched the call itself, so
/// the machine's timeout policy decides. The clock is read only for a
/// timeout, which most calls never see (clock reads were 4% of a one-tool
/// run's CPU in the in-memory e2e profile).
pub(crate) fn stopped_at(deadline: Option<Moment>, now: impl FnOnce() -> Moment, input: &Input) -> bool {
    let timed_out =
        matches!(input, Input::ModelFinished { result: Err(error), .. } if error.kind == ModelErrorKind::Timeout);
    timed_out && deadline.is_some_and(|deadline| now() >= deadline)
}

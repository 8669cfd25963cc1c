//! Running the tool a call names, in either driver, with its panics
//! contained and its outcome split into the machine's record and the error
//! object the driver keeps.

use super::Answer;
use crate::run::contain::contain;
#[cfg(feature = "async")]
use crate::run::contain::contain_async;
use crate::tool::context::ToolContext;
use crate::tool::{into_outcome, Tool, ToolError};
use golem_core::machine::ToolOutcome;
use golem_core::machine::{Input, ToolCallId};
use golem_core::model::BoxError;
#[cfg(feature = "async")]
use golem_core::model::BoxFuture;
use golem_core::{SubRunUsage, ToolCall};
use serde_json::Value;

/// A tool's answer: the machine's record, the error to keep for
/// `RunError::source`, and what a sub-run of the call spent.
pub(crate) struct ToolAnswer {
    pub(crate) outcome: ToolOutcome,
    pub(crate) error: Option<BoxError>,
    pub(crate) spent: Option<SubRunUsage>,
}

impl ToolAnswer {
    fn of((outcome, error): (ToolOutcome, Option<BoxError>), spent: Option<SubRunUsage>) -> Self {
        ToolAnswer { outcome, error, spent }
    }

    /// The driver's answer for call `id`.
    pub(crate) fn into_answer(self, id: ToolCallId) -> Answer {
        Answer { input: Input::ToolFinished { id, outcome: self.outcome }, error: self.error, spent: self.spent }
    }
}

/// A result cut to its cap before it is fed and logged (SPEC CAP-01): a
/// huge result never reaches the log, the machine or the model whole.
fn capped((outcome, error): (ToolOutcome, Option<BoxError>), cap: Option<u64>) -> (ToolOutcome, Option<BoxError>) {
    (golem_core::machine::cap_tool_result(outcome, cap), error)
}

/// Run the call on this thread. `None`: an async handler was dropped because
/// the call was canceled, so there is no answer.
#[cfg(feature = "blocking")]
pub(crate) fn call_tool_blocking<Deps: Send + Sync + 'static>(
    tools: &[Tool<Deps>],
    ctx: &ToolContext<Deps>,
    call: &ToolCall,
) -> Option<ToolAnswer> {
    let (tool, args) = match screen(tools, call) {
        Ok(found) => found,
        Err(answer) => return Some(*answer),
    };
    let result = match contain("the tool", || tool.handler.run_blocking(ctx, args)) {
        Ok(None) => return None,
        Ok(Some(result)) => result,
        Err(panicked) => Err(ToolError::fatal(panicked)),
    };
    Some(ToolAnswer::of(capped(into_outcome(result), ctx.result_cap), ctx.sub_run_slot().take()))
}

/// The call as a `'static` future; dropping it abandons the call.
#[cfg(feature = "async")]
pub(crate) fn call_tool_async<Deps: Send + Sync + 'static>(
    tools: &[Tool<Deps>],
    ctx: ToolContext<Deps>,
    call: &ToolCall,
) -> BoxFuture<'static, ToolAnswer> {
    let (tool, args) = match screen(tools, call) {
        Ok(found) => found,
        Err(answer) => return Box::pin(std::future::ready(*answer)),
    };
    let (slot, cap) = (ctx.sub_run_slot(), ctx.result_cap);
    // Building the future runs handler code too, so it is contained as well.
    let future = contain("the tool", || tool.handler.run_async(ctx, args));
    Box::pin(async move {
        let result = match future {
            Ok(future) => contain_async("the tool", future).await.unwrap_or_else(|p| Err(ToolError::fatal(p))),
            Err(panicked) => Err(ToolError::fatal(panicked)),
        };
        ToolAnswer::of(capped(into_outcome(result), cap), slot.take())
    })
}

/// The registered tool and the arguments for `call`. Which calls may run is
/// the machine's decision (SPEC TOOL-05/06: it refuses unknown or
/// unadvertised tools and arguments that are not an object, in the model's
/// terms); a call that reaches here regardless is a driver fault, failed
/// fatally rather than answered with a second, different refusal.
fn screen<'t, Deps>(tools: &'t [Tool<Deps>], call: &ToolCall) -> Result<(&'t Tool<Deps>, Value), Box<ToolAnswer>> {
    let fault = |what: String| Err(Box::new(ToolAnswer::of(into_outcome(Err(ToolError::fatal(what))), None)));
    let Some(tool) = tools.iter().find(|t| t.name() == call.name) else {
        return fault(format!("the run dispatched a call to {:?}, which is not a registered tool", call.name));
    };
    match call.args.object() {
        Some(args) => Ok((tool, args)),
        None => fault(format!("the run dispatched a call to {:?} whose arguments are not a JSON object", call.name)),
    }
}

//! Running the tool a call names, in either driver, with its panics
//! contained and its outcome split into the machine's record and the error
//! object the driver keeps.

use super::contain;
#[cfg(feature = "async")]
use super::contain_async;
use crate::context::ToolContext;
use crate::tool::{into_outcome, Tool, ToolError};
use golem_core::machine::ToolOutcome;
use golem_core::model::BoxError;
#[cfg(feature = "async")]
use golem_core::model::BoxFuture;
use golem_core::{texts, ToolCall};
use serde_json::Value;

/// A tool's answer: the machine's record, and the error to keep for
/// `RunError::source`.
pub(crate) type ToolAnswer = (ToolOutcome, Option<BoxError>);

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
        Err(answer) => return Some(answer),
    };
    let result = match contain("the tool", || tool.handler.run_blocking(ctx, args)) {
        Ok(None) => return None,
        Ok(Some(result)) => result,
        Err(panicked) => Err(ToolError::fatal(panicked)),
    };
    Some(into_outcome(result))
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
        Err(answer) => return Box::pin(std::future::ready(answer)),
    };
    // Building the future runs handler code too, so it is contained as well.
    let future = contain("the tool", || tool.handler.run_async(ctx, args));
    Box::pin(async move {
        let result = match future {
            Ok(future) => contain_async("the tool", future).await.unwrap_or_else(|p| Err(ToolError::fatal(p))),
            Err(panicked) => Err(ToolError::fatal(panicked)),
        };
        into_outcome(result)
    })
}

/// The registered tool and parsed arguments for `call`, or the answer that
/// refuses it. The machine screens unknown tools and non-object arguments
/// before it dispatches (SPEC TOOL-05/06); this only keeps a misbehaving
/// machine from reaching a handler with garbage.
fn screen<'t, Deps>(tools: &'t [Tool<Deps>], call: &ToolCall) -> Result<(&'t Tool<Deps>, Value), ToolAnswer> {
    let Some(tool) = tools.iter().find(|t| t.name() == call.name) else {
        let names: Vec<&str> = tools.iter().map(Tool::name).collect();
        return Err(into_outcome(Err(ToolError::reject(texts::unknown_tool(&call.name, &names)))));
    };
    match call.args.parse() {
        Ok(args) if args.is_object() => Ok((tool, args)),
        _ => Err(into_outcome(Err(ToolError::reject(texts::INCOMPLETE_ARGS)))),
    }
}

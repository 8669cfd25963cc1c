//! Running one model call or tool call, wherever the driver placed it.
//! Panics in application code are contained here and reported as errors,
//! so a faulty tool or model can never take the driver down.

use crate::context::ToolContext;
use crate::tool::{into_outcome, Tool, ToolError};
use golem_core::machine::ToolOutcome;
use golem_core::model::BoxError;
use golem_core::{texts, Delta, DeltaSink, Model, ModelError, Request, Response, ToolCall};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Application code (a tool, a model, a decoder) panicked.
#[derive(Debug, thiserror::Error)]
#[error("{what} panicked: {message}")]
pub(crate) struct Panicked {
    what: &'static str,
    message: String,
}

impl Panicked {
    pub(crate) fn new(what: &'static str, payload: Box<dyn Any + Send>) -> Self {
        let message = match payload.downcast::<String>() {
            Ok(s) => *s,
            Err(payload) => {
                payload.downcast_ref::<&str>().map_or_else(|| "unknown panic".to_string(), |s| s.to_string())
            }
        };
        Panicked { what, message }
    }
}

/// Call model `model`, streaming to `sink` when given.
pub(crate) fn call_model(
    model: &dyn Model,
    request: &Request,
    sink: Option<&mut dyn DeltaSink>,
) -> Result<Response, ModelError> {
    let call = AssertUnwindSafe(|| match sink {
        Some(sink) => model.stream(request, sink),
        None => model.generate(request),
    });
    catch_unwind(call).unwrap_or_else(|p| {
        let panicked = Panicked::new("the model", p);
        Err(ModelError::other(panicked.to_string()).with_source(panicked))
    })
}

/// Run the registered tool the call names, returning the machine's record
/// and the error object to keep for `RunError::source`.
pub(crate) fn call_tool<Deps>(
    tools: &[Tool<Deps>],
    ctx: &ToolContext<Deps>,
    call: &ToolCall,
) -> (ToolOutcome, Option<BoxError>) {
    // The machine screens unknown tools and non-object arguments before it
    // dispatches (SPEC TOOL-05/06); these arms only keep a misbehaving
    // machine from reaching a handler with garbage.
    let Some(tool) = tools.iter().find(|t| t.name() == call.name) else {
        let names: Vec<&str> = tools.iter().map(Tool::name).collect();
        return into_outcome(Err(ToolError::reject(texts::unknown_tool(&call.name, &names))));
    };
    let args = match call.args.parse() {
        Ok(args) if args.is_object() => args,
        _ => return into_outcome(Err(ToolError::reject(texts::INCOMPLETE_ARGS))),
    };
    let result = catch_unwind(AssertUnwindSafe(|| tool.call(ctx, args)))
        .unwrap_or_else(|p| Err(ToolError::fatal(Panicked::new("the tool", p))));
    into_outcome(result)
}

/// A sink forwarding each fragment; it stops the model once nobody listens.
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

//! One agent as another agent's tool (SPEC DELEG-01..04).
//!
//! The sub-run runs on its parent's driver kind (DELEG-04): the delegation
//! tool has both handler faces, so under the blocking driver the sub-run
//! blocks the tool's thread, and under the async driver its future is
//! awaited inside the tool's future — polled by the parent run, on no
//! thread of its own. Either way it holds the tool call's cancellation
//! token, so it stops when the parent gives up on the call; under the async
//! driver dropping the call drops the sub-run at once.

use crate::agent::Agent;
use crate::context::ToolContext;
use crate::result::{RunOutput, RunResult};
use crate::run::RunBuilder;
#[cfg(feature = "async")]
use crate::tool::AsyncFn;
#[cfg(feature = "blocking")]
use crate::tool::BlockingFn;
use crate::tool::{Handler, Tool, ToolError, ToolResult};
use crate::Error;
use golem_core::model::BoxError;
use golem_core::{Cause, Stage, ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

pub use golem_core::texts::DELEGATE_PROMPT_DESCRIPTION;

#[derive(Deserialize)]
struct DelegateArgs {
    prompt: String,
}

/// Turns a sub-run's output into the tool's text.
type Renderer<O> = dyn Fn(O) -> Result<String, BoxError> + Send + Sync;

fn delegate_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"prompt": {"type": "string", "description": DELEGATE_PROMPT_DESCRIPTION}},
        "required": ["prompt"],
        "additionalProperties": false,
    })
}

/// `O` as tool text: a JSON string unquoted, anything else compact JSON.
fn render_json<O: Serialize>(output: O) -> Result<String, BoxError> {
    match serde_json::to_value(&output)? {
        Value::String(s) => Ok(s),
        other => Ok(other.to_string()),
    }
}

#[cfg(any(feature = "blocking", feature = "async"))]
impl<Deps: Send + Sync + 'static, O: Serialize + Send + 'static> Agent<Deps, O> {
    /// This agent as a tool for agents with the same deps: the model passes
    /// a prompt, this agent runs it with the delegating run's deps, and its
    /// output becomes the tool result — text as is, other values as compact
    /// JSON. The sub-agent sees only the prompt; its messages and usage stay
    /// out of the delegating run's evidence and limits.
    ///
    /// The sub-run runs on the delegating run's driver kind — blocking the
    /// tool's thread under the blocking driver, awaited inside the tool's
    /// future under the async one — and stops when the delegating run gives
    /// up on the call (SPEC DELEG-04).
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, Role, ToolCall};
    /// use golem_io::Agent;
    ///
    /// // Hands the question to the researcher tool, then answers from its result.
    /// struct DelegatingModel;
    /// impl Model for DelegatingModel {
    ///     fn generate(&self, request: &Request) -> Result<Response, ModelError> {
    ///         if let Some(result) = request.messages.iter().find(|m| m.role == Role::Tool) {
    ///             return Ok(Response::text(format!("the researcher says: {}", result.content)));
    ///         }
    ///         let call = ToolCall::new("call-1", "researcher", r#"{"prompt":"capital of France?"}"#);
    ///         Ok(Response::tool_calls(vec![call]))
    ///     }
    /// }
    ///
    /// // Stands in for the specialist's provider: one run, one fact.
    /// struct FactModel;
    /// impl Model for FactModel {
    ///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
    ///         Ok(Response::text("Paris"))
    ///     }
    /// }
    ///
    /// let specialist = Agent::<()>::builder(FactModel).build()?;
    /// let research = specialist.as_tool("researcher", "Answers one geography question.");
    /// let planner = Agent::builder(DelegatingModel).tool(research).build()?;
    /// let result = planner.run((), "I need the capital of France.")?;
    /// println!("{}", result.output().unwrap());
    /// assert_eq!(result.output().unwrap(), "the researcher says: Paris");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_tool(&self, name: &str, description: &str) -> Tool<Deps> {
        self.as_tool_with(name, description, render_json::<O>)
    }
}

#[cfg(any(feature = "blocking", feature = "async"))]
impl<Deps: Send + Sync + 'static, O: Send + 'static> Agent<Deps, O> {
    /// Like [`as_tool`](Self::as_tool), rendering the output with
    /// `renderer`; its error fails the delegating run at the tool stage.
    pub fn as_tool_with(
        &self,
        name: &str,
        description: &str,
        renderer: impl Fn(O) -> Result<String, BoxError> + Send + Sync + 'static,
    ) -> Tool<Deps> {
        let spec = ToolSpec::new(name, description, delegate_schema());
        Tool::from_handler(spec, delegation_handler(self.clone(), Arc::new(renderer)))
    }
}

/// The delegation tool's code: both faces when both drivers are compiled
/// in, so each driver runs the sub-run natively.
#[cfg(all(feature = "blocking", feature = "async"))]
fn delegation_handler<Deps, O>(agent: Agent<Deps, O>, renderer: Arc<Renderer<O>>) -> Handler<Deps>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Handler::Both {
        blocking: blocking_face(agent.clone(), Arc::clone(&renderer)),
        asynchronous: async_face(agent, renderer),
    }
}

/// The delegation tool's code with the blocking driver alone.
#[cfg(all(feature = "blocking", not(feature = "async")))]
fn delegation_handler<Deps, O>(agent: Agent<Deps, O>, renderer: Arc<Renderer<O>>) -> Handler<Deps>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Handler::Blocking(blocking_face(agent, renderer))
}

/// The delegation tool's code with the async driver alone.
#[cfg(all(feature = "async", not(feature = "blocking")))]
fn delegation_handler<Deps, O>(agent: Agent<Deps, O>, renderer: Arc<Renderer<O>>) -> Handler<Deps>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Handler::Async(async_face(agent, renderer))
}

/// The sub-run on the blocking driver, blocking the tool's thread.
#[cfg(feature = "blocking")]
fn blocking_face<Deps, O>(agent: Agent<Deps, O>, renderer: Arc<Renderer<O>>) -> Arc<BlockingFn<Deps>>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Arc::new(move |ctx: &ToolContext<Deps>, args: Value| {
        let prompt = prompt_of(args)?;
        settle(sub_run(&agent, ctx, prompt).call(), renderer.as_ref())
    })
}

/// The sub-run on the async driver: its future is awaited inside the
/// tool's, so the parent run polls it and dropping the call drops it.
#[cfg(feature = "async")]
fn async_face<Deps, O>(agent: Agent<Deps, O>, renderer: Arc<Renderer<O>>) -> Arc<AsyncFn<Deps>>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Arc::new(move |ctx: ToolContext<Deps>, args: Value| {
        let (agent, renderer) = (agent.clone(), Arc::clone(&renderer));
        Box::pin(async move {
            let prompt = prompt_of(args)?;
            settle(sub_run(&agent, &ctx, prompt).call_async().await, renderer.as_ref())
        })
    })
}

/// The prompt the model passed, or a correctable rejection.
fn prompt_of(args: Value) -> Result<String, ToolError> {
    let args: DelegateArgs = serde_json::from_value(args)
        .map_err(|e| ToolError::reject(golem_core::texts::delegate_bad_args(&e.to_string())))?;
    if args.prompt.trim().is_empty() {
        return Err(ToolError::reject(golem_core::texts::DELEGATE_EMPTY_PROMPT));
    }
    Ok(args.prompt)
}

/// The sub-run of one call: the parent's deps and clock, and the call's
/// cancellation token, so it stops when the parent gives up on the call
/// (SPEC DELEG-04).
fn sub_run<'a, Deps: Send + Sync + 'static, O: 'static>(
    agent: &'a Agent<Deps, O>,
    ctx: &ToolContext<Deps>,
    prompt: String,
) -> RunBuilder<'a, Deps, O> {
    agent
        .run_with(Arc::clone(ctx.deps_arc()))
        .clock(Arc::clone(ctx.clock()))
        .cancellation(ctx.cancellation().clone())
        .prompt(prompt)
}

/// The tool's answer from the sub-run's: its rendered output, or its
/// failure as the tool's.
fn settle<O>(run: Result<RunResult<O>, Error>, renderer: &Renderer<O>) -> Result<ToolResult, ToolError> {
    match run.map_err(sub_run_failed)?.output {
        RunOutput::Completed(output) => renderer(output).map(ToolResult::from).map_err(ToolError::Fatal),
        RunOutput::Paused(_) => {
            Err(ToolError::fatal("the sub-agent paused on deferred tool calls, which delegation cannot resume"))
        }
    }
}

/// A sub-run's failure as the delegating tool's: a deliberate stop keeps
/// its identity (the parent ends canceled), anything else is fatal with the
/// inner error in the source chain.
fn sub_run_failed(error: Error) -> ToolError {
    match &error {
        Error::Run(run) if run.stage == Stage::Canceled => match &run.cause {
            Cause::Canceled { message, .. } if !message.is_empty() => ToolError::cancel_run(message.clone()),
            cause => ToolError::cancel_run(cause.to_string()),
        },
        Error::Run(run) => ToolError::Fatal(run.clone()),
        _ => ToolError::fatal(error),
    }
}

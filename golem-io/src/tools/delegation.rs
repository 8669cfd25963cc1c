//! One agent as another agent's tool (SPEC DELEG-01..04).
//!
//! The sub-run runs on its parent's driver kind (DELEG-04): the delegation
//! tool has both handler faces, so under the blocking driver the sub-run
//! blocks the tool's thread, and under the async driver its future is
//! awaited inside the tool's future — polled by the parent run, on no
//! thread of its own. Either way it holds the tool call's cancellation
//! token, so it stops when the parent gives up on the call; under the async
//! driver dropping the call drops the sub-run at once.
//!
//! With forwarding on ([`Delegation::forward_events`]) the sub-run gets an
//! observer that hands its events to the parent run's sub-run observers,
//! which reach the tool through its [`ToolContext`]. Nothing goes through
//! the parent's machine, so its event sequence and log stay as they are.

use crate::agent::Agent;
use crate::results::result::RunResult;
use crate::start::RunBuilder;
use crate::tool::context::ToolContext;
use crate::tool::sub_run_event::SubRunEvent;
#[cfg(feature = "async")]
use crate::tool::AsyncFn;
#[cfg(feature = "blocking")]
use crate::tool::BlockingFn;
use crate::tool::{Handler, Tool, ToolError, ToolResult};
use crate::Error;
use golem_core::model::BoxError;
use golem_core::{Cause, Stage, SubRunUsage, ToolSpec, Usage, UsageLimits};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fmt;
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
/// Written straight to text, not through a `Value`, so a struct keeps its
/// fields in declaration order (a `Value` map would sort them).
fn render_json<O: Serialize>(output: O) -> Result<String, BoxError> {
    let json = serde_json::to_string(&output)?;
    if json.starts_with('"') {
        return Ok(serde_json::from_str::<String>(&json)?);
    }
    Ok(json)
}

#[cfg(any(feature = "blocking", feature = "async"))]
impl<Deps: Send + Sync + 'static, O: Serialize + Send + 'static> Agent<Deps, O> {
    /// This agent as a tool for agents with the same deps: the model passes
    /// a prompt, this agent runs it with the delegating run's deps, and its
    /// output becomes the tool result — text as is, other values as compact
    /// JSON. The sub-agent sees only the prompt; its messages stay out of
    /// the delegating run's evidence, but what it spends does not: its
    /// tokens, requests, tool calls and cost are rolled into the delegating
    /// run's totals and checked against its limits, and the sub-run keeps
    /// within what those limits left when it started — so the limits of the
    /// run at the top bound the whole tree (issue 31;
    /// [`Delegation::roll_up_usage`] turns that off).
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
    /// println!("{}", result.output);
    /// assert_eq!(result.output, "the researcher says: Paris");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_tool(&self, name: &str, description: &str) -> Tool<Deps> {
        self.delegation(name, description).build()
    }

    /// A delegation tool to configure before building it: like
    /// [`as_tool`](Self::as_tool), with options such as
    /// [`forward_events`](Delegation::forward_events).
    pub fn delegation(&self, name: &str, description: &str) -> Delegation<Deps, O> {
        self.delegation_with(name, description, render_json::<O>)
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
        self.delegation_with(name, description, renderer).build()
    }

    /// Like [`delegation`](Self::delegation), rendering the output with
    /// `renderer` as [`as_tool_with`](Self::as_tool_with) does.
    pub fn delegation_with(
        &self,
        name: &str,
        description: &str,
        renderer: impl Fn(O) -> Result<String, BoxError> + Send + Sync + 'static,
    ) -> Delegation<Deps, O> {
        Delegation {
            spec: ToolSpec::new(name, description, delegate_schema()),
            delegate: Delegate {
                agent: self.clone(),
                renderer: Box::new(renderer),
                forward_events: false,
                roll_up_usage: true,
            },
        }
    }
}

/// A delegation tool before it is built: made by
/// [`Agent::delegation`] or [`Agent::delegation_with`], turned into the
/// [`Tool`] by [`build`](Self::build). Without options it is the tool
/// [`Agent::as_tool`] or [`Agent::as_tool_with`] gives.
pub struct Delegation<Deps, O> {
    spec: ToolSpec,
    delegate: Delegate<Deps, O>,
}

impl<Deps, O> Delegation<Deps, O> {
    /// Forward the sub-run's events to the delegating run's sub-run
    /// observers ([`RunBuilder::on_sub_run_event`]), each wrapped in a
    /// [`SubRunEvent`](crate::SubRunEvent) tagged with the delegating call
    /// (SPEC DELEG-04). Off by default. The events never enter the
    /// delegating run's own event sequence, log or result; when that run has
    /// no sub-run observers nothing is attached to the sub-run.
    ///
    /// With forwarding on, the sub-run also forwards what its own delegation
    /// tools forward, so nested delegations reach the top when every level
    /// forwards; each level adds its call to the event's path.
    pub fn forward_events(mut self, forward: bool) -> Self {
        self.delegate.forward_events = forward;
        self
    }

    /// Count the sub-run's spending in the delegating run (on by default):
    /// its tokens, requests, tool calls and cost join the delegating run's
    /// totals (`RunResult::sub_runs` lists each sub-run's share) and limits,
    /// and the sub-run keeps within what the delegating run's limits left.
    /// Off, the sub-run is bounded by its own agent's limits alone and its
    /// spending is nowhere in the delegating run's evidence — the Go
    /// framework's behaviour, and a trap for cost: a router limited to 100
    /// tokens reports 0 while its specialist spends thousands.
    pub fn roll_up_usage(mut self, roll_up: bool) -> Self {
        self.delegate.roll_up_usage = roll_up;
        self
    }
}

#[cfg(any(feature = "blocking", feature = "async"))]
impl<Deps: Send + Sync + 'static, O: Send + 'static> Delegation<Deps, O> {
    /// The delegation tool.
    pub fn build(self) -> Tool<Deps> {
        Tool::from_handler(self.spec, delegation_handler(Arc::new(self.delegate)))
    }
}

impl<Deps, O> fmt::Debug for Delegation<Deps, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Delegation")
            .field("name", &self.spec.name())
            .field("forward_events", &self.delegate.forward_events)
            .field("roll_up_usage", &self.delegate.roll_up_usage)
            .finish_non_exhaustive()
    }
}

/// What a delegation tool's code holds: the sub-agent, how its output
/// becomes the tool's text, and whether its events go up.
struct Delegate<Deps, O> {
    agent: Agent<Deps, O>,
    renderer: Box<Renderer<O>>,
    forward_events: bool,
    roll_up_usage: bool,
}

/// The delegation tool's code: both faces when both drivers are compiled
/// in, so each driver runs the sub-run natively.
#[cfg(all(feature = "blocking", feature = "async"))]
fn delegation_handler<Deps, O>(delegate: Arc<Delegate<Deps, O>>) -> Handler<Deps>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Handler::Both { blocking: blocking_face(Arc::clone(&delegate)), asynchronous: async_face(delegate) }
}

/// The delegation tool's code with the blocking driver alone.
#[cfg(all(feature = "blocking", not(feature = "async")))]
fn delegation_handler<Deps, O>(delegate: Arc<Delegate<Deps, O>>) -> Handler<Deps>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Handler::Blocking(blocking_face(delegate))
}

/// The delegation tool's code with the async driver alone.
#[cfg(all(feature = "async", not(feature = "blocking")))]
fn delegation_handler<Deps, O>(delegate: Arc<Delegate<Deps, O>>) -> Handler<Deps>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Handler::Async(async_face(delegate))
}

/// The sub-run on the blocking driver, blocking the tool's thread.
#[cfg(feature = "blocking")]
fn blocking_face<Deps, O>(delegate: Arc<Delegate<Deps, O>>) -> Arc<BlockingFn<Deps>>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Arc::new(move |ctx: &ToolContext<Deps>, args: Value| {
        let prompt = prompt_of(args)?;
        let run = sub_run(&delegate, ctx, prompt).call();
        settle(run, &delegate, ctx)
    })
}

/// The sub-run on the async driver: its future is awaited inside the
/// tool's, so the parent run polls it and dropping the call drops it.
#[cfg(feature = "async")]
fn async_face<Deps, O>(delegate: Arc<Delegate<Deps, O>>) -> Arc<AsyncFn<Deps>>
where
    Deps: Send + Sync + 'static,
    O: Send + 'static,
{
    Arc::new(move |ctx: ToolContext<Deps>, args: Value| {
        let delegate = Arc::clone(&delegate);
        Box::pin(async move {
            let prompt = prompt_of(args)?;
            let run = sub_run(&delegate, &ctx, prompt).call_async().await;
            settle(run, &delegate, &ctx)
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
/// (SPEC DELEG-04); with forwarding on and someone listening, observers
/// that hand its events, and those its own sub-runs forward, up to the
/// parent's sub-run observers.
fn sub_run<'a, Deps: Send + Sync + 'static, O: 'static>(
    delegate: &'a Delegate<Deps, O>,
    ctx: &ToolContext<Deps>,
    prompt: String,
) -> RunBuilder<'a, Deps, O> {
    let run = delegate
        .agent
        .run_with(Arc::clone(ctx.deps_arc()))
        .clock(Arc::clone(ctx.clock()))
        .cancellation(ctx.cancellation().clone())
        .prompt(prompt);
    // What the delegating run's limits left bounds the sub-run too.
    let run = match *ctx.usage_left() {
        left if delegate.roll_up_usage && left != UsageLimits::new() => run.usage_limits(left),
        _ => run,
    };
    let Some((sink, call)) = ctx.sub_run_forwarder().filter(|_| delegate.forward_events) else {
        return run;
    };
    // Observers run synchronously inside the sub-run, so the parent's
    // sub-run observers hear its events in its own order.
    let (nested_sink, nested_call) = (sink.clone(), call.clone());
    run.observer(move |event| sink.forward(&SubRunEvent { path: vec![call.clone()], event: event.clone() }))
        .on_sub_run_event(move |event| nested_sink.forward(&event.through(nested_call.clone())))
}

/// The tool's answer from the sub-run's: its rendered output, or its
/// failure as the tool's; what it spent, reported to the delegating run
/// either way.
fn settle<Deps, O>(
    run: Result<RunResult<O>, Error>,
    delegate: &Delegate<Deps, O>,
    ctx: &ToolContext<Deps>,
) -> Result<ToolResult, ToolError> {
    if delegate.roll_up_usage {
        if let Some(spent) = spent(&run).filter(|s| !s.is_zero()) {
            ctx.report_spent(spent);
        }
    }
    let output = run.map_err(sub_run_failed)?.output;
    (delegate.renderer)(output).map(ToolResult::from).map_err(ToolError::Fatal)
}

/// What a sub-run spent, finished or failed or paused.
fn spent<O>(run: &Result<RunResult<O>, Error>) -> Option<SubRunUsage> {
    match run {
        Ok(result) => Some(SubRunUsage::new(result.usage, result.requests, result.tool_calls, result.cost)),
        Err(Error::Run(error)) => {
            let (usage, tool_calls) = error.partial.as_ref().map_or((Usage::default(), 0), |p| (p.usage, p.tool_calls));
            Some(SubRunUsage::new(usage, error.requests, tool_calls, None))
        }
        Err(Error::Paused(paused)) => Some(SubRunUsage::new(paused.usage, paused.requests, paused.tool_calls, None)),
        Err(_) => None,
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
        Error::Paused(_) => {
            ToolError::fatal("the sub-agent paused on deferred tool calls, which delegation cannot resume")
        }
        _ => ToolError::fatal(error),
    }
}

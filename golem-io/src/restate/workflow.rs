//! The Restate workflow that runs golem agents: its `run` handler drives a
//! run (and every resume after a pause) as journaled steps; its `resolve`
//! handler completes a deferred call's durable promise; its `status`
//! handler says what a paused run waits on (SPEC DUR-01, DUR-02).

use super::driver::{drive, mint, Segment};
use super::journaled_error::chain_of;
use super::live::Live;
use super::observer::{DurableEvent, DurableObserver};
use super::wire::{Decision, DurableOutcome, Resolution, RunRequest, RunStatus, Waiting};
use crate::agent::{Agent, Observer};
use crate::results::result::{RunOutcome, RunResult};
use crate::Error;
use golem_core::{Approval, DeferKind, DeferredResults};
use restate_sdk::context::{
    ContextAwakeables, ContextReadState, ContextWriteState, SharedWorkflowContext, WorkflowContext,
};
use restate_sdk::errors::{HandlerResult, TerminalError};
use restate_sdk::serde::Json;
use serde::Serialize;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The service name the workflow registers under: the ingress path of its
/// handlers is `/GolemAgent/{key}/{handler}`.
pub const SERVICE_NAME: &str = "GolemAgent";

/// The state key of the run's [`RunStatus`].
const STATUS: &str = "status";

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One served agent with its deps, its output type erased to JSON.
pub(crate) trait Runner: Send + Sync {
    fn run<'a>(
        &'a self,
        ctx: &'a WorkflowContext<'a>,
        request: RunRequest,
        observers: Vec<Observer>,
    ) -> BoxFuture<'a, HandlerResult<DurableOutcome>>;
}

pub(crate) struct AgentRunner<Deps, O> {
    pub(crate) agent: Agent<Deps, O>,
    pub(crate) deps: Arc<Deps>,
}

impl<Deps, O> Runner for AgentRunner<Deps, O>
where
    Deps: Send + Sync + 'static,
    O: Serialize + Send + Sync + 'static,
{
    fn run<'a>(
        &'a self,
        ctx: &'a WorkflowContext<'a>,
        request: RunRequest,
        observers: Vec<Observer>,
    ) -> BoxFuture<'a, HandlerResult<DurableOutcome>> {
        Box::pin(run_agent(ctx, &self.agent, &self.deps, request, observers))
    }
}

/// A durable run: the first golem run, then, for every pause, the wait for
/// its resolutions and a resume — until it completes or fails.
async fn run_agent<Deps, O>(
    ctx: &WorkflowContext<'_>,
    agent: &Agent<Deps, O>,
    deps: &Arc<Deps>,
    request: RunRequest,
    observers: Vec<Observer>,
) -> HandlerResult<DurableOutcome>
where
    Deps: Send + Sync + 'static,
    O: Serialize + 'static,
{
    // Whether this attempt of the handler executes yet (see `live`):
    // every step of every segment tells it.
    let live = Live::default();
    let minted = mint(ctx, "start", &live).await?;
    let stream = request.stream;
    let conversation = golem_core::history::latest_conversation_id(&request.history)
        .map_or_else(|| minted.conversation_id.clone(), str::to_string);
    let builder = agent
        .run_with(Arc::clone(deps))
        .prompt(request.prompt)
        .history(request.history)
        .stream(stream)
        .run_id(minted.run_id.clone())
        .conversation_id(conversation.clone());
    let mut start = fresh(builder.fresh_start(), &minted)?;
    let mut minted = minted;
    let mut logs = Vec::new();
    let mut pauses = 0u32;
    loop {
        let segment = Segment {
            agent: &agent.inner,
            deps: Arc::clone(deps),
            start,
            minted,
            live: live.clone(),
            observers: observers.clone(),
        };
        let ended = drive(ctx, segment).await?;
        logs.push(ended.log);
        let paused = match ended.outcome {
            Ok(RunOutcome::Completed(result)) => {
                let result = to_json(result)?;
                return Ok(DurableOutcome { result: Some(result), error: None, causes: Vec::new(), logs });
            }
            Ok(RunOutcome::Paused(paused)) => paused,
            Err(Error::Run(error)) => {
                // The error object as its chain: the same whether it is the
                // object itself or was rebuilt from the journal (SPEC DUR-04).
                let causes = error.source.as_deref().map(|e| chain_of(e)).unwrap_or_default();
                return Ok(DurableOutcome { result: None, error: Some(*error), causes, logs });
            }
            // golem's own bugs and a log that cannot be written: no retry
            // would do better.
            Err(other) => return Err(TerminalError::new(other.to_string()).into()),
        };
        pauses += 1;
        let results = wait_for_resolutions(ctx, &paused.deferred, pauses).await?;
        minted = mint(ctx, "resume", &live).await?;
        let builder = agent
            .run_with(Arc::clone(deps))
            .history(paused.messages)
            .resume(results)
            .stream(stream)
            .run_id(minted.run_id.clone())
            .conversation_id(conversation.clone());
        start = fresh(builder.fresh_start(), &minted)?;
    }
}

/// The run's start with its journaled jitter seed, or the setup error as
/// a terminal one (the same request would fail the same way again).
fn fresh(
    start: Result<golem_core::machine::Start, Error>,
    minted: &super::step::Minted,
) -> Result<golem_core::machine::Start, TerminalError> {
    let mut start = start.map_err(|e| TerminalError::new(e.to_string()))?;
    start.jitter_seed = minted.jitter_seed;
    start.jitter_phase = minted.jitter_phase;
    Ok(start)
}

/// One durable promise (a Restate awakeable) per deferred call, published
/// in the run's state for `resolve`; then wait for all of them — for as
/// long as it takes, across restarts of the service and of the server.
async fn wait_for_resolutions(
    ctx: &WorkflowContext<'_>,
    deferred: &golem_core::DeferredRequests,
    pauses: u32,
) -> HandlerResult<DeferredResults> {
    let calls = deferred
        .approvals
        .iter()
        .map(|c| (c, DeferKind::Approval))
        .chain(deferred.external.iter().map(|c| (c, DeferKind::External)));
    let mut waiting = Vec::new();
    let mut promises = Vec::new();
    for (call, kind) in calls {
        let (awakeable, promise) = ctx.awakeable::<Json<Resolution>>();
        waiting.push(Waiting { call: call.clone(), kind, awakeable });
        promises.push(promise);
    }
    ctx.set(STATUS, Json(RunStatus { waiting: waiting.clone(), pauses }));
    let mut results = DeferredResults::new();
    for (promise, waited) in promises.into_iter().zip(&waiting) {
        let Json(resolution) = promise.await?;
        let id = waited.call.call_id.clone();
        results = match resolution.decision {
            Decision::Approve => results.approval(id, Approval::approve()),
            Decision::Deny { reason } => results.approval(id, Approval::deny(reason)),
            Decision::Result { content } => results.external(id, content),
        };
    }
    ctx.set(STATUS, Json(RunStatus { waiting: Vec::new(), pauses }));
    Ok(results)
}

/// The typed output as JSON, for the caller.
fn to_json<O: Serialize>(result: RunResult<O>) -> Result<RunResult<serde_json::Value>, TerminalError> {
    let output = serde_json::to_value(&result.output)
        .map_err(|e| TerminalError::new(format!("the run's output does not serialize as JSON: {e}")))?;
    Ok(RunResult {
        output,
        messages: result.messages,
        usage: result.usage,
        finish_reason: result.finish_reason,
        requests: result.requests,
        tool_calls: result.tool_calls,
        sub_runs: result.sub_runs,
        run_id: result.run_id,
        conversation_id: result.conversation_id,
        cost: result.cost,
    })
}

/// The workflow itself: the served agents by name, and who hears their
/// runs.
pub(crate) struct GolemAgent {
    pub(crate) agents: Arc<BTreeMap<String, Arc<dyn Runner>>>,
    pub(crate) observers: Arc<[DurableObserver]>,
}

impl GolemAgent {
    /// The service's observers, bound to run `key` of agent `agent`.
    fn observers(&self, key: &str, agent: &str) -> Vec<Observer> {
        let (key, agent): (Arc<str>, Arc<str>) = (Arc::from(key), Arc::from(agent));
        self.observers
            .iter()
            .map(|observer| {
                let (observer, key, agent) = (Arc::clone(observer), Arc::clone(&key), Arc::clone(&agent));
                Arc::new(move |event: &golem_core::RunEvent| {
                    observer(&DurableEvent { key: &key, agent: &agent, event })
                }) as Observer
            })
            .collect()
    }
}

#[restate_sdk::workflow(name = "GolemAgent")]
impl GolemAgent {
    /// Run the agent the request names; returns the outcome and evidence.
    #[handler]
    async fn run(&self, ctx: WorkflowContext<'_>, request: Json<RunRequest>) -> HandlerResult<Json<DurableOutcome>> {
        let Json(request) = request;
        let Some(runner) = self.agents.get(&request.agent).cloned() else {
            let names: Vec<&str> = self.agents.keys().map(String::as_str).collect();
            let message = format!("no agent named {:?} is served here (served: {})", request.agent, names.join(", "));
            return Err(TerminalError::new(message).into());
        };
        let observers = self.observers(ctx.key(), &request.agent);
        Ok(Json(runner.run(&ctx, request, observers).await?))
    }

    /// Resolve one deferred call of the paused run, by call id. Fails
    /// closed (SPEC DEFER-06): the call must be waiting, and the decision
    /// must fit what it waits for.
    #[handler]
    async fn resolve(&self, ctx: SharedWorkflowContext<'_>, resolution: Json<Resolution>) -> HandlerResult<()> {
        let Json(resolution) = resolution;
        let status: Option<Json<RunStatus>> = ctx.get(STATUS).await?;
        let waiting = status.map(|Json(s)| s.waiting).unwrap_or_default();
        let Some(call) = waiting.iter().find(|w| w.call.call_id == resolution.call_id) else {
            let message = format!("call {:?} is not waiting for a resolution", resolution.call_id);
            return Err(TerminalError::new_with_code(404, message).into());
        };
        if call.kind != resolution.kind() {
            let wants = match call.kind {
                DeferKind::Approval => "an approval or a denial",
                _ => "an external result",
            };
            let message = format!("call {:?} waits for {wants}", resolution.call_id);
            return Err(TerminalError::new_with_code(400, message).into());
        }
        ctx.resolve_awakeable(&call.awakeable, Json(resolution));
        Ok(())
    }

    /// What the run waits on now.
    #[handler]
    async fn status(&self, ctx: SharedWorkflowContext<'_>) -> HandlerResult<Json<RunStatus>> {
        let status: Option<Json<RunStatus>> = ctx.get(STATUS).await?;
        Ok(Json(status.map(|Json(s)| s).unwrap_or_default()))
    }
}

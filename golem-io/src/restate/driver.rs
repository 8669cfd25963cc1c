//! The Restate driver: golem's machine loop with every side effect a
//! journaled step (SPEC DUR-01).
//!
//! The loop is the async driver's, with three differences. Work runs one
//! unit at a time, each inside `ctx.run`, so its answer is journaled before
//! the machine hears it; a parallel batch of tool calls therefore runs in
//! command order. The run's clock is the journal's: it starts at zero and
//! advances by each step's journaled duration and by each durable sleep, so
//! the machine's decisions replay exactly. And a wait with nothing in
//! flight — a retry's backoff — is `ctx.sleep`, a durable timer.

use super::step::{Done, End, Minted};
use crate::agent::AgentInner;
use crate::drive::dispatch::{action, call_tool_async, Action, Attachments, Task};
use crate::record::{RecordedMachine, Recorder};
use crate::run::cancel::CancellationToken;
use crate::run::clock::{Clock, ShiftedClock, SystemClock};
use crate::run::context::RunContext;
use crate::run::result::RunOutcome;
use crate::tool::context::ToolContext;
use crate::Error;
use futures_lite::future;
use golem_core::log::LogHeader;
use golem_core::machine::{Command, Input, Output, Start};
use golem_core::model::BoxError;
use golem_core::{Moment, RunMachine};
use restate_sdk::context::{ContextSideEffects, ContextTimers, RunFuture, WorkflowContext};
use restate_sdk::errors::{HandlerError, HandlerResult, TerminalError};
use restate_sdk::serde::Json;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One golem run (a start or a resume) inside the workflow's handler.
pub(crate) struct Segment<'a, Deps, O> {
    pub(crate) agent: &'a AgentInner<Deps, O>,
    pub(crate) deps: Arc<Deps>,
    pub(crate) start: Start,
    pub(crate) minted: Minted,
}

/// What a segment ends with: golem's outcome, and its event log.
pub(crate) struct Ended<O> {
    pub(crate) outcome: Result<RunOutcome<O>, Error>,
    pub(crate) log: String,
}

/// Journal the run's minted ids and jitter phase (a step, so a replay
/// reads them back instead of minting new ones).
pub(crate) async fn mint(ctx: &WorkflowContext<'_>, what: &str) -> Result<Minted, TerminalError> {
    let Json(minted) = ctx.run(|| async { Ok(Json(Minted::now())) }).name(format!("golem {what}")).await?;
    Ok(minted)
}

/// Drive one segment to its outcome. Restate errors (a suspension, a
/// journal mismatch) come back as `Err` and end the handler's attempt;
/// golem's own failures are in the outcome.
pub(crate) async fn drive<Deps, O>(ctx: &WorkflowContext<'_>, segment: Segment<'_, Deps, O>) -> HandlerResult<Ended<O>>
where
    Deps: Send + Sync + 'static,
{
    let Segment { agent, deps, start, minted } = segment;
    let log = SharedLog::default();
    let begun = begin(agent, start, &minted, log.clone());
    let mut stepper = match begun {
        Ok(stepper) => stepper,
        Err(error) => return Ok(Ended { outcome: Err(error), log: log.text() }),
    };
    let ids = stepper.ids();
    let mut kept = Attachments::new();
    let mut pending: VecDeque<Task> = VecDeque::new();
    let mut ready: VecDeque<Input> = VecDeque::new();
    let mut starting: Option<(Task, Arc<AtomicBool>)> = None;
    let mut now = Moment::ZERO;
    let mut next: Option<Input> = None;
    let ended = |outcome| Ok(Ended { outcome, log: log.text() });
    loop {
        if let Some(input) = next.take() {
            if let Err(error) = stepper.feed(now, input) {
                return ended(Err(error));
            }
        }
        let deadline = loop {
            match stepper.poll() {
                Output::Command(Command::Decode { id, response }) => {
                    let rctx = RunContext::new(Arc::clone(&deps), ids.clone());
                    let verdict = kept.decode(agent.decoder.as_ref(), &rctx, id, &response);
                    ready.push_back(Input::Decoded { id, verdict });
                }
                Output::Command(command) => match action(command) {
                    Action::Start(work) => pending.push_back(work),
                    Action::Cancel(id) => pending.retain(|w| w.id() != id),
                    Action::Ignore => {}
                },
                // golem's log holds every event; the caller reads it there.
                Output::Event(_) => {}
                Output::Wait { deadline, .. } => break deadline,
                Output::Done => {
                    let outcome = match stepper.into_outcome() {
                        Ok(outcome) => kept.finish(outcome),
                        Err(error) => Err(error),
                    };
                    return ended(outcome);
                }
            }
        };
        if let Some((work, fresh)) = starting.take() {
            let Task::Tool { id, call, deadline: limit, approved } = work else { continue };
            let tool_ctx = ToolContext::for_call(
                Arc::clone(&deps),
                &call,
                limit,
                approved,
                CancellationToken::new(),
                run_clock(now),
                ids.clone(),
            );
            let tools = Arc::clone(&agent.tools);
            // Only the work's own deadline cuts it short: the machine still
            // waits for its answer past any other of its deadlines.
            let until = limit;
            let window = until.map(|d| d.saturating_duration_since(now));
            let name = format!("golem tool {} {}", call.name, call.id);
            // The error object of a failing body, for `RunError::source`:
            // kept in this process only (a replay has the record alone).
            let error_slot: Arc<Mutex<Option<BoxError>>> = Arc::default();
            let slot = Arc::clone(&error_slot);
            // The body is built inside the step: a replayed step must not
            // so much as construct it (a blocking tool starts on creation).
            let done = journal(ctx, name, move || async move {
                // Started in an earlier attempt and never finished: the
                // process died in the body. Never run it twice.
                if !fresh.load(Ordering::SeqCst) {
                    return Done { elapsed_ns: 0, end: End::Unknown };
                }
                let body = call_tool_async(&tools, tool_ctx, &call);
                timed(window, async move {
                    let (outcome, error) = body.await;
                    if let (Some(error), Ok(mut slot)) = (error, slot.lock()) {
                        *slot = Some(error);
                    }
                    Input::ToolFinished { id, outcome }
                })
                .await
            })
            .await?;
            now = now.saturating_add(Duration::from_nanos(done.elapsed_ns));
            if let Some(error) = error_slot.lock().ok().and_then(|mut slot| slot.take()) {
                kept.tool_error(id, error);
            }
            next = Some(match done.end {
                End::Answer(input) => *input,
                End::Deadline => {
                    now = until.map_or(now, |until| now.max(until));
                    Input::Tick
                }
                End::Unknown => {
                    // Everything else in the batch is issued again.
                    pending.clear();
                    Input::Recover
                }
            });
            continue;
        }
        if let Some(input) = ready.pop_front() {
            next = Some(input);
            continue;
        }
        if let Some(work) = pending.pop_front() {
            next = Some(match work {
                Task::Tool { id, ref call, .. } => {
                    // Write-ahead (SPEC LOG-06): the start is journaled
                    // before the body runs. `fresh` says whether that
                    // happened in this attempt of the handler.
                    let fresh = Arc::new(AtomicBool::new(false));
                    let mark = Arc::clone(&fresh);
                    let name = format!("golem tool start {} {}", call.name, call.id);
                    ctx.run(|| async move {
                        mark.store(true, Ordering::SeqCst);
                        Ok(())
                    })
                    .name(name)
                    .await?;
                    starting = Some((work, fresh));
                    Input::ToolStarted { id }
                }
                Task::Model { id, member, request, deadline: limit, .. } => {
                    let Some(member) = usize::try_from(member).ok().filter(|m| *m < agent.models.len()) else {
                        let error = golem_core::ModelError::other(format!("no model at fallback position {member}"));
                        next = Some(Input::ModelFinished { id, result: Err(error) });
                        continue;
                    };
                    let models = Arc::clone(&agent.models);
                    let until = limit;
                    let window = until.map(|d| d.saturating_duration_since(now));
                    let done = journal(ctx, format!("golem model call {}", id.0), move || async move {
                        // Built inside the step, like a tool's body.
                        let call = models[member].call_async(request, None::<NoDeltas>);
                        timed(window, async move { Input::ModelFinished { id, result: call.await } }).await
                    })
                    .await?;
                    now = now.saturating_add(Duration::from_nanos(done.elapsed_ns));
                    match done.end {
                        End::Answer(input) => *input,
                        End::Deadline | End::Unknown => {
                            now = until.map_or(now, |until| now.max(until));
                            Input::Tick
                        }
                    }
                }
            });
            continue;
        }
        let Some(deadline) = deadline else { return ended(Err(Error::Stalled)) };
        // Nothing to run until the deadline: a retry's backoff, as a
        // durable timer (Restate resumes the handler when it fires).
        let wait = deadline.saturating_duration_since(now);
        if !wait.is_zero() {
            ctx.sleep(wait).await?;
        }
        now = now.max(deadline);
        next = Some(Input::Tick);
    }
}

/// The machine and its recorder, on the journal's timeline (epoch zero).
fn begin<'l, Deps, O>(
    agent: &AgentInner<Deps, O>,
    start: Start,
    minted: &Minted,
    log: SharedLog,
) -> Result<RecordedMachine<'l>, Error> {
    let machine = RunMachine::new(agent.config.clone(), start.clone(), Moment::ZERO)?;
    let mut header = LogHeader::new(agent.config.config().clone(), start);
    header.epoch = 0;
    header.started_at_unix_ms = minted.unix_ms;
    let recorder = Recorder::new(Box::new(log), header, true)?;
    Ok(RecordedMachine::new(machine, Some(recorder)))
}

/// Run `work` as one journaled step. Its closure never fails in Restate's
/// eyes — a failed model call or tool is data the machine judges — so
/// Restate never retries golem's work behind the machine's back.
async fn journal<F, Fut>(ctx: &WorkflowContext<'_>, name: String, work: F) -> Result<Done, HandlerError>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Done> + Send + 'static,
{
    let Json(done) = ctx.run(|| async move { Ok(Json(work().await)) }).name(name).await?;
    Ok(done)
}

/// Race `work` against the machine's deadline, `window` from now.
async fn timed(window: Option<Duration>, work: impl std::future::Future<Output = Input>) -> Done {
    let started = Instant::now();
    let end = match window {
        Some(window) => {
            let answer = async { End::Answer(Box::new(work.await)) };
            let timer = async {
                async_io::Timer::after(window).await;
                End::Deadline
            };
            future::or(answer, timer).await
        }
        None => End::Answer(Box::new(work.await)),
    };
    let elapsed_ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Done { elapsed_ns, end }
}

/// The clock a tool reads during its body: the journal's `now`, moving
/// with real time while the body runs.
fn run_clock(now: Moment) -> Arc<dyn Clock> {
    Arc::new(ShiftedClock::continuing(Arc::new(SystemClock::new()), now))
}

/// golem's event log of one segment, in memory: the driver writes it, the
/// outcome carries it. A replay writes it again, identically.
#[derive(Clone, Default)]
struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl SharedLog {
    fn text(&self) -> String {
        let bytes = self.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl std::io::Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut bytes = self.0.lock().map_err(|_| std::io::Error::other("the log's lock is poisoned"))?;
        bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The sink of a call that does not stream: durable runs journal whole
/// answers, never fragments.
enum NoDeltas {}

impl golem_core::DeltaSink for NoDeltas {
    fn delta(&mut self, _: golem_core::Delta) -> Result<(), golem_core::model::BoxError> {
        match *self {}
    }
}

//! The Restate driver: golem's machine loop with every side effect a
//! journaled step (SPEC DUR-01, DUR-04).
//!
//! The loop is the async driver's, with these differences:
//!
//! - **Work is journaled.** A model call runs inside one step, so its
//!   answer is in the journal before the machine hears it. A tool call is
//!   two: its start (write-ahead, SPEC LOG-06) and, once its body ends, its
//!   answer.
//! - **Tool calls run concurrently.** Every tool the machine commanded
//!   starts (its start journaled) before any answer is awaited, and the
//!   bodies run side by side. Each answer is one step that waits for
//!   whichever body ends first (or the machine's next deadline), so the
//!   journal holds answers in the order the machine heard them and a
//!   replay feeds them in that order. One step in flight at a time keeps
//!   the journal a plain sequence, which is what Restate replays; the
//!   batch's concurrency is the bodies', not the steps'.
//! - **The clock is the journal's.** It starts at zero and advances by each
//!   step's journaled duration and by each durable sleep, so the machine's
//!   decisions replay exactly.
//! - **A wait with nothing in flight** — a retry's backoff — is a durable
//!   timer (`ctx.sleep`).
//! - **Observers and spans follow the real execution** (`live`): replayed
//!   events are not observed again, and a replayed run's trace resumes.

use super::fragments::{Fragments, Timed};
use super::journaled_error::{chain_of, JournaledError};
use super::live::Live;
use super::step::{Done, End, Minted};
use crate::agent::{AgentInner, Observer};
use crate::drive::asynchronous::in_flight::{InFlight, Work};
use crate::drive::dispatch::{
    action, call_tool_async, Action, Answer, Attachments, ForwardDeltas, Observers, Task, TaskId,
};
use crate::record::{RecordedMachine, Recorder};
use crate::results::result::RunOutcome;
use crate::run::cancel::CancellationToken;
use crate::run::clock::{Clock, ShiftedClock, SystemClock};
use crate::run::context::RunContext;
use crate::run::ids::RunIds;
use crate::tool::context::ToolContext;
use crate::Error;
use futures_lite::{future, Stream};
use golem_core::log::LogHeader;
use golem_core::machine::{Command, Input, ModelCallId, Output, Start, ToolCallId};
use golem_core::model::BoxError;
use golem_core::{Delta, Moment, RunMachine};
use restate_sdk::context::{ContextSideEffects, ContextTimers, RunFuture, WorkflowContext};
use restate_sdk::errors::{HandlerError, HandlerResult, TerminalError};
use restate_sdk::serde::Json;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;
use std::time::{Duration, Instant};

/// One golem run (a start or a resume) inside the workflow's handler.
pub(crate) struct Segment<'a, Deps, O> {
    pub(crate) agent: &'a AgentInner<Deps, O>,
    pub(crate) deps: Arc<Deps>,
    pub(crate) start: Start,
    pub(crate) minted: Minted,
    /// Whether the handler's attempt executes yet; shared by its segments.
    pub(crate) live: Live,
    /// The run's own observers (the service's, bound to the run's key),
    /// heard after the agent's.
    pub(crate) observers: Vec<Observer>,
}

/// What a segment ends with: golem's outcome, and its event log.
pub(crate) struct Ended<O> {
    pub(crate) outcome: Result<RunOutcome<O>, Error>,
    pub(crate) log: String,
}

/// Journal the run's minted ids and jitter seed (a step, so a replay
/// reads them back instead of minting new ones).
pub(crate) async fn mint(ctx: &WorkflowContext<'_>, what: &str, live: &Live) -> Result<Minted, TerminalError> {
    let live = live.clone();
    let step = ctx.run(move || async move {
        live.mark();
        Ok(Json(Minted::now()))
    });
    let Json(minted) = step.name(format!("golem {what}")).await?;
    Ok(minted)
}

/// Drive one segment to its outcome. Restate errors (a suspension, a
/// journal mismatch) come back as `Err` and end the handler's attempt;
/// golem's own failures are in the outcome.
pub(crate) async fn drive<Deps, O>(ctx: &WorkflowContext<'_>, segment: Segment<'_, Deps, O>) -> HandlerResult<Ended<O>>
where
    Deps: Send + Sync + 'static,
{
    let Segment { agent, deps, start, minted, live, observers } = segment;
    let log = SharedLog::default();
    let machine = match begin(agent, start, &minted, log.clone(), live.now()) {
        Ok(machine) => machine,
        Err(error) => return Ok(Ended { outcome: Err(error), log: log.text() }),
    };
    let driver = Driver {
        ctx,
        agent,
        ids: machine.ids(),
        deps,
        traced_live: live.now(),
        live,
        machine,
        observers: Observers::new(&agent.observers, observers, None),
        now: Moment::ZERO,
        kept: Attachments::new(),
        pending: VecDeque::new(),
        ready: VecDeque::new(),
        outstanding: BTreeMap::new(),
        in_flight: Arc::default(),
        errors: Arc::default(),
    };
    let outcome = match driver.run().await {
        Ok(outcome) => outcome,
        Err(Stop::Golem(error)) => Err(error),
        Err(Stop::Restate(error)) => return Err(error),
    };
    Ok(Ended { outcome, log: log.text() })
}

/// Why the loop stopped early: Restate's reason ends the handler's
/// attempt; golem's is the segment's outcome.
enum Stop {
    Restate(HandlerError),
    Golem(Error),
}

impl From<HandlerError> for Stop {
    fn from(error: HandlerError) -> Self {
        Stop::Restate(error)
    }
}

impl From<TerminalError> for Stop {
    fn from(error: TerminalError) -> Self {
        Stop::Restate(error.into())
    }
}

impl From<Error> for Stop {
    fn from(error: Error) -> Self {
        Stop::Golem(error)
    }
}

/// A tool whose start is journaled and whose answer the machine has not
/// heard. `stale`: it started in an earlier attempt of the handler, so no
/// body runs for it here.
struct Launched {
    stale: bool,
}

/// A streamed call's fragments as they arrive, and how many the machine
/// has had.
struct Streaming {
    id: ModelCallId,
    /// The moment the call's step began; a fragment's moment is this plus
    /// its offset.
    from: Moment,
    rx: Pin<Box<async_channel::Receiver<Timed>>>,
    fed: usize,
    /// The latest moment a fragment was fed at: the call's end is never
    /// before it (the machine's clock only moves forward).
    latest: Moment,
}

struct Driver<'c, 'a, 'l, Deps, O> {
    ctx: &'c WorkflowContext<'a>,
    agent: &'l AgentInner<Deps, O>,
    deps: Arc<Deps>,
    ids: RunIds,
    machine: RecordedMachine<'static>,
    observers: Observers<'static>,
    live: Live,
    /// The machine's trace has been told the attempt executes.
    traced_live: bool,
    /// The run's clock: the journal's.
    now: Moment,
    kept: Attachments<O>,
    /// Commanded, not started, in command order.
    pending: VecDeque<Task>,
    /// Answers to feed, in the order they became available.
    ready: VecDeque<Input>,
    outstanding: BTreeMap<ToolCallId, Launched>,
    /// The tool bodies running in this process.
    in_flight: Arc<Mutex<InFlight>>,
    /// Error objects of the bodies that failed in this process, until the
    /// machine hears their answers.
    errors: Arc<Mutex<BTreeMap<ToolCallId, BoxError>>>,
}

impl<Deps, O> Driver<'_, '_, '_, Deps, O>
where
    Deps: Send + Sync + 'static,
{
    async fn run(mut self) -> Result<Result<RunOutcome<O>, Error>, Stop> {
        let mut next: Option<Input> = None;
        loop {
            if let Some(input) = next.take() {
                self.machine.feed(self.now, input)?;
            }
            let Some(deadline) = self.drain() else {
                return Ok(self.kept.finish(self.machine.into_outcome()?));
            };
            next = Some(self.next_input(deadline).await?);
        }
    }

    /// Carry out what the machine asks until it waits (`Some`, with its
    /// deadline if any) or is done (`None`). Commands only queue work.
    fn drain(&mut self) -> Option<Option<Moment>> {
        loop {
            match self.machine.poll() {
                Output::Command(Command::Decode { id, response }) => {
                    let rctx = RunContext::new(Arc::clone(&self.deps), self.ids.clone());
                    let verdict = self.kept.decode(self.agent.decoder.as_ref(), &rctx, id, &response);
                    self.ready.push_back(Input::Decoded { id, verdict });
                }
                Output::Command(command) => match action(command, || self.machine.limits_left()) {
                    Action::Start(work) => self.pending.push_back(work),
                    Action::Cancel(id) => self.cancel(id),
                    Action::Ignore => {}
                },
                Output::Event(event) => {
                    // Once per real execution: a replayed event was observed
                    // when it first happened. Observers cannot fail a run
                    // (there is no delta callback here).
                    if self.live.now() {
                        let _ = self.observers.event(&event);
                    }
                }
                Output::Wait { deadline, .. } => return Some(deadline),
                Output::Done => return None,
            }
        }
    }

    /// Canceled work is never answered: unstarted work is forgotten, a
    /// running body is dropped (a blocking one is told through its token).
    fn cancel(&mut self, id: TaskId) {
        self.pending.retain(|work| work.id() != id);
        if let TaskId::Tool(tool) = id {
            self.outstanding.remove(&tool);
            lock(&self.in_flight).cancel(id);
        }
    }

    /// The next input: a ready answer, the start of the next commanded
    /// tool, a model call's end, the next tool answer, or the deadline.
    async fn next_input(&mut self, deadline: Option<Moment>) -> Result<Input, Stop> {
        if let Some(input) = self.ready.pop_front() {
            return Ok(input);
        }
        // Every commanded tool starts before any answer is awaited, so the
        // bodies of a batch run side by side. A model call waits for the
        // tools before it.
        let startable = match self.pending.front() {
            Some(Task::Tool { .. }) => true,
            Some(Task::Model { .. }) => self.outstanding.is_empty(),
            None => false,
        };
        if startable {
            if let Some(work) = self.pending.pop_front() {
                return match work {
                    Task::Tool { id, call, deadline: limit, approved, limits_left } => {
                        self.start_tool(id, call, limit, approved, limits_left).await
                    }
                    Task::Model { id, member, request, deadline: limit, stream } => {
                        self.call_model(id, member, request, limit, stream).await
                    }
                };
            }
        }
        if !self.outstanding.is_empty() {
            return self.next_answer(deadline).await;
        }
        let Some(deadline) = deadline else { return Err(Error::Stalled.into()) };
        // Nothing to run until the deadline: a retry's backoff, as a
        // durable timer (Restate resumes the handler when it fires).
        let wait = deadline.saturating_duration_since(self.now);
        if !wait.is_zero() {
            self.ctx.sleep(wait).await?;
        }
        // The sleep may have ended in an earlier attempt or in this one: a
        // step of its own says which (see `live`).
        self.step("golem tick".to_string(), None, || async {}).await?;
        self.now = self.now.max(deadline);
        Ok(Input::Tick)
    }

    /// Journal a tool's start (write-ahead, SPEC LOG-06), then start its
    /// body — unless the start is a replay, when its body ran, or runs, in
    /// an earlier attempt.
    async fn start_tool(
        &mut self,
        id: ToolCallId,
        call: golem_core::ToolCall,
        limit: Option<Moment>,
        approved: bool,
        limits_left: Option<Box<golem_core::UsageLimits>>,
    ) -> Result<Input, Stop> {
        // Started work of an earlier attempt that is still unanswered died
        // with that attempt: if this step executes, the machine must hear
        // so before anything else starts.
        let lost_before = self.outstanding.values().any(|l| l.stale);
        let fresh = Arc::new(AtomicBool::new(false));
        let mark = Arc::clone(&fresh);
        let name = format!("golem tool start {} {}", call.name, call.id);
        let lost = self
            .step(name, None, move || async move {
                mark.store(true, Ordering::SeqCst);
                lost_before
            })
            .await?;
        if lost {
            return Ok(self.lost());
        }
        let fresh = fresh.load(Ordering::SeqCst);
        if fresh {
            let token = CancellationToken::new();
            let clock = run_clock(self.now);
            let deps = Arc::clone(&self.deps);
            let ctx = ToolContext::for_call(deps, &call, limit, approved, token.clone(), clock, self.ids.clone())
                .with_limits_left(limits_left.map_or_else(golem_core::UsageLimits::new, |l| *l));
            let work = Work::Tool(id, call_tool_async(&self.agent.tools, ctx, &call));
            lock(&self.in_flight).push(work, Some(token));
        }
        self.outstanding.insert(id, Launched { stale: !fresh });
        Ok(Input::ToolStarted { id })
    }

    /// One step: the first tool answer of the bodies running, or the
    /// machine's deadline — whichever comes first.
    async fn next_answer(&mut self, deadline: Option<Moment>) -> Result<Input, Stop> {
        let lost = self.outstanding.values().any(|l| l.stale);
        let window = deadline.map(|d| d.saturating_duration_since(self.now));
        let (in_flight, errors) = (Arc::clone(&self.in_flight), Arc::clone(&self.errors));
        let done = self
            .step("golem tool answer".to_string(), None, move || async move {
                if lost {
                    return Done::plain(0, End::Unknown);
                }
                let next = future::poll_fn(|cx| lock(&in_flight).poll_next(cx));
                let (elapsed_ns, answer) = timed(window, next).await;
                match answer {
                    Some(Some((_, Answer { input, error, spent }, _))) => {
                        let chain = error.as_deref().map(|e| chain_of(e)).unwrap_or_default();
                        if let (Input::ToolFinished { id, .. }, Some(error)) = (&input, error) {
                            lock(&errors).insert(*id, error);
                        }
                        Done { error: chain, spent, ..Done::plain(elapsed_ns, End::Answer(Box::new(input))) }
                    }
                    // Outstanding work with no body here cannot answer.
                    Some(None) => Done::plain(elapsed_ns, End::Unknown),
                    None => Done::plain(elapsed_ns, End::Deadline),
                }
            })
            .await?;
        self.now = self.now.saturating_add(Duration::from_nanos(done.elapsed_ns));
        match done.end {
            End::Answer(input) => {
                if let Input::ToolFinished { id, .. } = input.as_ref() {
                    let id = *id;
                    self.outstanding.remove(&id);
                    // The object itself when the body failed in this
                    // process; else rebuilt from the journal.
                    let live = lock(&self.errors).remove(&id);
                    let error =
                        live.or_else(|| JournaledError::from_chain(&done.error).map(|e| Box::new(e) as BoxError));
                    if let Some(error) = error {
                        self.kept.tool_error(id, error);
                    }
                    // A sub-run's spending goes in just before the answer,
                    // as the in-process drivers feed it.
                    if let Some(spent) = done.spent {
                        self.ready.push_front(*input);
                        return Ok(Input::SubRunSpent { id, spent });
                    }
                }
                Ok(*input)
            }
            End::Deadline => {
                self.now = deadline.map_or(self.now, |d| self.now.max(d));
                Ok(Input::Tick)
            }
            End::Unknown => Ok(self.lost()),
        }
    }

    /// The work of an earlier attempt died with it: tell the machine, which
    /// decides each started tool by its policy and issues the rest again.
    fn lost(&mut self) -> Input {
        self.pending.clear();
        let mut in_flight = lock(&self.in_flight);
        for id in std::mem::take(&mut self.outstanding).into_keys() {
            in_flight.cancel(TaskId::Tool(id));
        }
        Input::Recover
    }

    /// One model call as one step; a streamed call's fragments reach the
    /// machine (and the observers) as they arrive, and the journal keeps
    /// them with the answer so a replay feeds them again.
    async fn call_model(
        &mut self,
        id: ModelCallId,
        member: u32,
        request: golem_core::Request,
        limit: Option<Moment>,
        stream: bool,
    ) -> Result<Input, Stop> {
        let Some(member) = usize::try_from(member).ok().filter(|m| *m < self.agent.models.len()) else {
            let error = golem_core::ModelError::other(format!("no model at fallback position {member}"));
            return Ok(Input::ModelFinished { id, result: Err(error) });
        };
        let models = Arc::clone(&self.agent.models);
        let window = limit.map(|d| d.saturating_duration_since(self.now));
        let (tx, rx) = async_channel::unbounded::<Timed>();
        let mut streaming = Streaming { id, from: self.now, rx: Box::pin(rx), fed: 0, latest: self.now };
        let done = self
            .step(format!("golem model call {}", id.0), Some(&mut streaming), move || async move {
                let started = Instant::now();
                let sent: Arc<Mutex<Vec<Timed>>> = Arc::default();
                let kept = Arc::clone(&sent);
                let sink = stream.then(|| {
                    ForwardDeltas(move |delta: Delta| {
                        let at = nanos_since(started);
                        lock(&kept).push((at, delta.clone()));
                        tx.try_send((at, delta)).is_ok()
                    })
                });
                // Built inside the step: a replayed step must not so much
                // as construct the call.
                let call = models[member].call_async(request, sink);
                // One origin for the fragments' offsets and the call's
                // length, so no fragment lands after the call's end.
                let (elapsed_ns, answer) = timed_from(started, window, call).await;
                let end = match answer {
                    Some(result) => End::Answer(Box::new(Input::ModelFinished { id, result: result.map(Box::new) })),
                    None => End::Deadline,
                };
                let sent = std::mem::take(&mut *lock(&sent));
                Done { fragments: Fragments::keep(sent, end.answer_text()), ..Done::plain(elapsed_ns, end) }
            })
            .await?;
        // What the journal says streamed, past what the machine had live.
        let Some(fragments) = done.fragments.restore(done.end.answer_text()) else {
            return Err(TerminalError::new("a journaled model call's fragments do not fit its answer").into());
        };
        for (at, delta) in fragments.into_iter().skip(streaming.fed) {
            self.fragment(&mut streaming, at, delta)?;
        }
        self.now = self.now.saturating_add(Duration::from_nanos(done.elapsed_ns)).max(streaming.latest);
        Ok(match done.end {
            End::Answer(input) => *input,
            End::Deadline | End::Unknown => {
                self.now = limit.map_or(self.now, |limit| self.now.max(limit));
                Input::Tick
            }
        })
    }

    /// Feed one streamed fragment at its moment, and tell the observers.
    fn fragment(&mut self, streaming: &mut Streaming, at: u64, delta: Delta) -> Result<(), Error> {
        // A journal written by another build may hold offsets out of
        // order; the machine's clock must not run backwards.
        let moment = streaming.from.saturating_add(Duration::from_nanos(at)).max(streaming.latest);
        streaming.latest = moment;
        self.machine.feed(moment, Input::ModelDelta { id: streaming.id, delta })?;
        // A fragment only adds events; the machine still waits for the call.
        let _ = self.drain();
        Ok(())
    }

    /// Run `work` as one journaled step and await it — feeding the machine
    /// a streamed call's fragments meanwhile, and going live the moment
    /// Restate runs the closure (its spans then open when the work
    /// starts, not when it ends).
    ///
    /// The closure never fails in Restate's eyes — a failed model call or
    /// tool is data the machine judges — so Restate never retries golem's
    /// work behind the machine's back.
    async fn step<F, Fut, T>(&mut self, name: String, mut streaming: Option<&mut Streaming>, work: F) -> Result<T, Stop>
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
        T: Serialize + DeserializeOwned + 'static,
    {
        let live = self.live.clone();
        let ctx = self.ctx;
        let step = ctx.run(move || async move {
            live.mark();
            Ok(Json(work().await))
        });
        let mut step = pin!(step.name(name));
        loop {
            let woke = future::poll_fn(|cx| {
                if let Poll::Ready(result) = step.as_mut().poll(cx) {
                    return Poll::Ready(Woke::Done(result));
                }
                if self.live.now() && !self.traced_live {
                    return Poll::Ready(Woke::Live);
                }
                if let Some(streaming) = streaming.as_deref_mut() {
                    if let Poll::Ready(Some(fragment)) = streaming.rx.as_mut().poll_next(cx) {
                        return Poll::Ready(Woke::Fragment(fragment));
                    }
                }
                Poll::Pending
            })
            .await;
            match woke {
                Woke::Done(result) => {
                    self.sync_live();
                    let Json(value) = result?;
                    return Ok(value);
                }
                Woke::Live => self.sync_live(),
                Woke::Fragment((at, delta)) => {
                    if let Some(streaming) = streaming.as_deref_mut() {
                        self.fragment(streaming, at, delta)?;
                        streaming.fed += 1;
                    }
                }
            }
        }
    }

    /// Tell the trace once the attempt executes.
    fn sync_live(&mut self) {
        if self.live.now() && !self.traced_live {
            self.traced_live = true;
            self.machine.go_live();
        }
    }
}

/// What ended a wait on a step.
enum Woke<T> {
    Done(Result<Json<T>, TerminalError>),
    Live,
    Fragment(Timed),
}

/// The machine and its recorder, on the journal's timeline (epoch zero),
/// traced — muted while the attempt replays.
fn begin<Deps, O>(
    agent: &AgentInner<Deps, O>,
    start: Start,
    minted: &Minted,
    log: SharedLog,
    live: bool,
) -> Result<RecordedMachine<'static>, Error> {
    let machine = Box::new(RunMachine::new(agent.config.clone(), start.clone(), Moment::ZERO)?);
    let mut header = LogHeader::new(agent.config.config().clone(), start);
    header.epoch = 0;
    header.started_at_unix_ms = minted.unix_ms;
    let recorder = Recorder::new(Box::new(log), header, true)?;
    let machine = RecordedMachine::new(machine, Some(recorder));
    #[cfg(feature = "tracing")]
    let machine = {
        let clock = crate::observe::TraceClock { epoch: Moment::ZERO, unix_ms: minted.unix_ms };
        machine.traced(&agent.trace, clock, !live)
    };
    #[cfg(not(feature = "tracing"))]
    let _ = live;
    Ok(machine)
}

/// Race `work` against the machine's deadline, `window` from now: how long
/// it took, and its output unless the deadline came first.
async fn timed<T>(window: Option<Duration>, work: impl Future<Output = T>) -> (u64, Option<T>) {
    timed_from(Instant::now(), window, work).await
}

/// [`timed`], measured from `started`.
async fn timed_from<T>(started: Instant, window: Option<Duration>, work: impl Future<Output = T>) -> (u64, Option<T>) {
    let answer = match window {
        Some(window) => {
            let answer = async { Some(work.await) };
            let timer = async {
                async_io::Timer::after(window).await;
                None
            };
            future::or(answer, timer).await
        }
        None => Some(work.await),
    };
    (nanos_since(started), answer)
}

fn nanos_since(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// The clock a tool reads during its body: the journal's `now`, moving
/// with real time while the body runs.
fn run_clock(now: Moment) -> Arc<dyn Clock> {
    Arc::new(ShiftedClock::continuing(Arc::new(SystemClock::new()), now))
}

/// A lock that a panic elsewhere does not poison for good: the guarded
/// values (the running bodies, their errors, a call's fragments) stay
/// consistent whatever panicked, since tool and model panics are contained
/// before they reach them.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// golem's event log of one segment, in memory: the driver writes it, the
/// outcome carries it. A replay writes it again, identically.
#[derive(Clone, Default)]
struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl SharedLog {
    fn text(&self) -> String {
        String::from_utf8_lossy(&lock(&self.0)).into_owned()
    }
}

impl std::io::Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        lock(&self.0).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

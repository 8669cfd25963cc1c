//! Executing the machine's commands: what runs where, and collecting the
//! answers in the order they become available.
//!
//! Placement (SPEC DRV-02): a lone call without a deadline runs on the
//! calling thread, and so does a lone model call with a deadline when the
//! model stops by it itself (it [honours a request's
//! timeout](golem_core::Capabilities::honours_timeout), as the provider
//! clients on their HTTP transports do) — streamed or not: a streamed one
//! feeds the machine fragment by fragment from here (`InlineStream`). Tools
//! with a deadline, other models' calls with a deadline and calls of a
//! parallel group run on worker threads (reused, see `pool`) and report
//! through a channel,
//! so the driver can stop waiting at a deadline. An abandoned worker keeps
//! its own `Arc` of the deps; its late answer is forwarded (the machine
//! reports it as a late result) or dropped once the run is over. Async work
//! run here is dropped when abandoned, so it never answers late.

use super::job::{Report, TaskRunner};
use super::pool;
use crate::agent::any_model::AnyModel;
use crate::agent::decode::Decoder;
use crate::agent::AgentInner;
use crate::drive::dispatch::{action, caller_cancel, Action, Attachments, InlineStream, Task, TaskId};
use crate::run::cancel::CancellationToken;
use crate::run::clock::Clock;
use crate::run::context::RunContext;
use crate::run::ids::RunIds;
use crate::run::result::RunOutcome;
use crate::run::sub_run_event::SubRunSink;
use crate::tool::Tool;
use crate::Error;
use golem_core::machine::{Command, DecodeId, Input, ModelCallId, Outcome, ToolOutcome};
use golem_core::model::BoxError;
use golem_core::{CauseRecord, DeltaSink, ModelError, ModelErrorKind, Moment, Response};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;

pub(crate) struct Executor<Deps, O> {
    models: Arc<[AnyModel]>,
    tools: Arc<[Tool<Deps>]>,
    deps: Arc<Deps>,
    clock: Arc<dyn Clock>,
    /// The run's ids, for tool contexts.
    ids: RunIds,
    /// The run's sub-run observers, for tool contexts (SPEC DELEG-04).
    sub_events: Option<SubRunSink>,
    /// Commanded, not started, in command order.
    pending: VecDeque<Task>,
    /// `ToolStarted` was fed; the body runs next (write-ahead, SPEC LOG-06).
    starting: Option<Task>,
    /// Answers ready to feed, in the order they became available.
    ready: VecDeque<Input>,
    /// Work on threads the run still waits for.
    in_flight: BTreeMap<TaskId, CancellationToken>,
    /// Calls the driver answered itself (a stream its callback stopped);
    /// what their threads still send is dropped — a second answer would be
    /// misuse.
    answered: BTreeSet<TaskId>,
    /// The model call whose fragment was fed last: the one a failing delta
    /// callback stops.
    streaming: Option<ModelCallId>,
    tx: Sender<Report>,
    rx: Receiver<Report>,
    kept: Attachments<O>,
    cancel: Option<CancelGuard>,
    /// Run nothing on the calling thread (a caller token or run deadline applies).
    stay_free: bool,
    /// The caller token's after-turn flag.
    after_turn: Arc<std::sync::atomic::AtomicBool>,
}

impl<Deps: Send + Sync + 'static, O> Executor<Deps, O> {
    pub(crate) fn new(
        agent: &AgentInner<Deps, O>,
        deps: Arc<Deps>,
        clock: Arc<dyn Clock>,
        ids: RunIds,
        sub_events: Option<SubRunSink>,
        cancel: Option<CancellationToken>,
    ) -> Self {
        let (tx, rx) = channel();
        // With a caller's token or a run deadline, the driver must be free to
        // stop waiting at any moment, so nothing runs on its thread (DRV-02):
        // every call goes to a pooled worker.
        let stay_free = cancel.is_some() || agent.config.run_deadline.is_some();
        let after_turn = cancel.as_ref().map(CancellationToken::after_turn_flag).unwrap_or_default();
        // The caller's cancellation wakes the driver like any answer would,
        // so it takes effect even while the driver is blocked waiting; one
        // that came first is fed before any work starts.
        let mut ready = VecDeque::new();
        let cancel = cancel.and_then(|token| {
            if token.is_canceled() {
                ready.push_back(caller_cancel(&after_turn));
                return None;
            }
            let (tx, flag) = (tx.clone(), Arc::clone(&after_turn));
            let key = token.on_cancel(move || {
                let _ = tx.send(Report { id: None, input: caller_cancel(&flag), last: false, error: None });
            });
            Some(CancelGuard(token, key))
        });
        Executor {
            models: Arc::clone(&agent.models),
            tools: Arc::clone(&agent.tools),
            deps,
            clock,
            ids,
            sub_events,
            pending: VecDeque::new(),
            starting: None,
            ready,
            in_flight: BTreeMap::new(),
            answered: BTreeSet::new(),
            streaming: None,
            tx,
            rx,
            kept: Attachments::new(),
            cancel,
            stay_free,
            after_turn,
        }
    }

    /// Take a command; nothing runs until the machine waits.
    pub(crate) fn accept(&mut self, command: Command) {
        match action(command) {
            Action::Start(work) => self.pending.push_back(work),
            Action::Cancel(id) => self.cancel(id),
            Action::Ignore => {}
        }
    }

    /// Canceled work is never answered: unstarted work is dropped, running
    /// work is signalled and abandoned.
    fn cancel(&mut self, id: TaskId) {
        self.pending.retain(|w| w.id() != id);
        if self.starting.as_ref().is_some_and(|w| w.id() == id) {
            self.starting = None;
        }
        if let Some(token) = self.in_flight.remove(&id) {
            token.cancel();
        }
    }

    /// The delta callback failed: the streamed call ends now with the
    /// callback's error as a sink abort (SPEC STREAM-02), fed before
    /// anything else, and the model is told to stop.
    pub(crate) fn abort_stream(&mut self, error: BoxError) {
        let Some(id) = self.streaming.take() else { return };
        self.cancel(TaskId::Model(id));
        self.answered.insert(TaskId::Model(id));
        self.ready.push_front(Input::ModelFinished { id, result: Err(ModelError::sink_aborted(error)) });
    }

    /// Run the decoder now (it is application code, but quick and local)
    /// and queue its verdict.
    pub(crate) fn decode(&mut self, decoder: &dyn Decoder<O, Deps>, id: DecodeId, response: &Response) {
        let ctx = RunContext::new(Arc::clone(&self.deps), self.ids.clone());
        let verdict = self.kept.decode(decoder, &ctx, id, response);
        self.ready.push_back(Input::Decoded { id, verdict });
    }

    /// The run's result from the machine's outcome.
    pub(crate) fn finish(mut self, outcome: Option<&Outcome>) -> Result<RunOutcome<O>, Error> {
        std::mem::replace(&mut self.kept, Attachments::new()).finish(outcome)
    }

    /// The next input for the machine: a ready answer, the start of the next
    /// tool, or whatever arrives before `deadline` (else a `Tick`). A
    /// streamed call run on this thread feeds its fragments through `here`.
    pub(crate) fn next_input(
        &mut self,
        deadline: Option<Moment>,
        here: &mut InlineStream<'_, '_>,
    ) -> Result<Input, Error> {
        let input = self.next(deadline, here)?;
        if let Input::ModelDelta { id, .. } = &input {
            self.streaming = Some(*id);
        }
        Ok(input)
    }

    fn next(&mut self, deadline: Option<Moment>, here: &mut InlineStream<'_, '_>) -> Result<Input, Error> {
        loop {
            if let Some(work) = self.starting.take() {
                self.launch(work, here);
            }
            if let Some(input) = self.ready.pop_front() {
                return Ok(input);
            }
            let Some(work) = self.pending.pop_front() else { return self.wait(deadline) };
            match work.id() {
                // The ledger hears of a tool before its body runs (SPEC LOG-06).
                TaskId::Tool(id) => {
                    self.starting = Some(work);
                    return Ok(Input::ToolStarted { id });
                }
                TaskId::Model(_) => self.launch(work, here),
            }
        }
    }

    fn wait(&mut self, deadline: Option<Moment>) -> Result<Input, Error> {
        loop {
            let report = match deadline {
                Some(deadline) => match self.rx.recv_timeout(deadline.saturating_duration_since(self.clock.now())) {
                    Ok(report) => report,
                    Err(RecvTimeoutError::Timeout) => return Ok(Input::Tick),
                    // Unreachable while `self.tx` lives; reported, not assumed.
                    Err(RecvTimeoutError::Disconnected) => return Err(Error::Stalled),
                },
                None if self.in_flight.is_empty() => return Err(Error::Stalled),
                None => self.rx.recv().map_err(|_| Error::Stalled)?,
            };
            if let Some(id) = report.id.filter(|id| self.answered.contains(id)) {
                if report.last {
                    self.answered.remove(&id);
                }
                continue;
            }
            if let Some(id) = report.id.filter(|_| report.last) {
                self.in_flight.remove(&id);
            }
            self.keep(&report.input, report.error);
            return Ok(report.input);
        }
    }

    fn launch(&mut self, mut work: Task, here: &mut InlineStream<'_, '_>) {
        let alone = self.pending.is_empty() && self.in_flight.is_empty();
        if alone && !self.stay_free && !self.needs_thread(&work) {
            let deadline = self.bound_by_deadline(&mut work);
            // A lone call has no machine-side cancel; it hears the caller's.
            let token = self.cancel.as_ref().map_or_else(CancellationToken::new, |g| g.0.clone());
            let mut sink = match &work {
                Task::Model { id, stream: true, .. } => Some(here.sink(*id)),
                _ => None,
            };
            let mut answer = self.job(token).run(work, None, sink.as_mut().map(|s| s as &mut dyn DeltaSink));
            if let Some(report) = answer.as_mut() {
                here.settle(&mut report.input);
            }
            match answer {
                // The model stopped at its deadline: what the driver feeds
                // when a deadline passes, as if it had watched the call
                // from a thread, so the machine's timeout policy decides.
                Some(report) if self.stopped_at(deadline, &report.input) => self.ready.push_back(Input::Tick),
                Some(report) => {
                    self.keep(&report.input, report.error);
                    self.ready.push_back(report.input);
                }
                // No answer: the caller canceled and the call was dropped.
                // Its report may still be in flight, so feed the cancellation
                // now (a duplicate after the run ends is ignored).
                None => {
                    self.cancel = None;
                    self.ready.push_back(caller_cancel(&self.after_turn));
                }
            }
            return;
        }
        let id = work.id();
        let token = CancellationToken::new();
        self.in_flight.insert(id, token.clone());
        let job = self.job(token);
        let tx = self.tx.clone();
        let spawned = pool::spawn(move || {
            // The run may be over and the receiver gone: nobody wants it.
            if let Some(report) = job.run(work, Some(&tx), None) {
                let _ = tx.send(report);
            }
        });
        if let Err(e) = spawned {
            self.in_flight.remove(&id);
            self.ready.push_back(spawn_failure(id, &e));
        }
    }

    /// Whether the driver must be free to stop waiting for `work`, so it
    /// cannot run on the driver's thread.
    fn needs_thread(&self, work: &Task) -> bool {
        match work {
            Task::Model { deadline: Some(_), member, .. } => {
                !self.model(*member).is_some_and(AnyModel::honours_timeout)
            }
            Task::Model { deadline: None, .. } => false,
            Task::Tool { deadline, .. } => deadline.is_some(),
        }
    }

    /// A model call about to run on the driver's thread carries the time
    /// left to its deadline, by which the model stops; the deadline, if any.
    fn bound_by_deadline(&self, work: &mut Task) -> Option<Moment> {
        let Task::Model { request, deadline: Some(deadline), .. } = work else { return None };
        request.timeout = Some(deadline.saturating_duration_since(self.clock.now()));
        Some(*deadline)
    }

    /// The call failed by timing out at or after its `deadline`: the model
    /// stopped because the deadline came, not for a reason of its own.
    fn stopped_at(&self, deadline: Option<Moment>, input: &Input) -> bool {
        let timed_out =
            matches!(input, Input::ModelFinished { result: Err(error), .. } if error.kind == ModelErrorKind::Timeout);
        timed_out && deadline.is_some_and(|deadline| self.clock.now() >= deadline)
    }

    fn model(&self, member: u32) -> Option<&AnyModel> {
        usize::try_from(member).ok().and_then(|m| self.models.get(m))
    }

    /// Keep a tool's error object for `RunError::source`, keyed by the
    /// machine id its failure will quote.
    fn keep(&mut self, input: &Input, error: Option<BoxError>) {
        if let (Input::ToolFinished { id, .. }, Some(error)) = (input, error) {
            self.kept.tool_error(*id, error);
        }
    }

    /// What a unit of work needs, owned so it can move to a thread.
    fn job(&self, token: CancellationToken) -> TaskRunner<Deps> {
        TaskRunner {
            models: Arc::clone(&self.models),
            tools: Arc::clone(&self.tools),
            deps: Arc::clone(&self.deps),
            clock: Arc::clone(&self.clock),
            ids: self.ids.clone(),
            sub_events: self.sub_events.clone(),
            token,
        }
    }
}

impl<Deps, O> Drop for Executor<Deps, O> {
    fn drop(&mut self) {
        // However the run ended — even on a driver error — nothing it left
        // running should keep working for it.
        self.in_flight.values().for_each(CancellationToken::cancel);
    }
}

/// The caller's token and the key of the waker that turns its cancellation
/// into an input for this run.
struct CancelGuard(CancellationToken, u64);

impl Drop for CancelGuard {
    fn drop(&mut self) {
        // A token may outlive many runs; stop waking this one's channel.
        self.0.forget(self.1);
    }
}

/// The answer for work whose thread could not be started.
fn spawn_failure(id: TaskId, e: &std::io::Error) -> Input {
    let message = format!("could not start a thread: {e}");
    match id {
        TaskId::Model(id) => Input::ModelFinished { id, result: Err(ModelError::other(message)) },
        TaskId::Tool(id) => {
            Input::ToolFinished { id, outcome: ToolOutcome::Fatal { cause: CauseRecord::new("spawn", message) } }
        }
    }
}

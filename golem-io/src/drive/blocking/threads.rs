//! Where the blocking driver runs work, and how it waits for it.
//!
//! Placement (SPEC DRV-02): a lone call without a deadline runs on the
//! calling thread, and so does a lone model call with a deadline when the
//! model stops by it itself (it [honours a request's
//! timeout](golem_core::Capabilities::honours_timeout), as the provider
//! clients on their HTTP transports do) — streamed or not: a streamed one
//! feeds the machine fragment by fragment from here (`InlineStream`). Tools
//! with a deadline, other models' calls with a deadline and calls of a
//! parallel group run on worker threads (reused, see `pool`) and report
//! through a channel, so the driver can stop waiting at a deadline. An abandoned worker keeps
//! its own `Arc` of the run's resources; its late answer is forwarded (the
//! machine reports it as a late result) or dropped once the run is over.
//! Async work run here is dropped when abandoned, so it never answers late.

use super::job::{Report, TaskRunner};
use super::pool;
use crate::drive::dispatch::{
    caller_cancel, stopped_at, Answer, CallerToken, Dispatcher, InlineStream, Placement, RunResources, Task, TaskId,
};
use crate::run::cancel::CancellationToken;
use crate::Error;
use golem_core::machine::{Input, ToolOutcome};
use golem_core::{CauseRecord, ModelError, Moment};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;

pub(crate) struct Threads {
    /// A lone call to make on the calling thread when the driver next
    /// waits: only then can a streamed one feed the machine.
    here: Option<Task>,
    /// Work on workers the run still waits for.
    in_flight: BTreeMap<TaskId, CancellationToken>,
    /// Calls the driver answered itself (a stream its callback stopped);
    /// what their workers still send is dropped.
    answered: BTreeSet<TaskId>,
    tx: Sender<Report>,
    rx: Receiver<Report>,
    cancel: Option<CancelGuard>,
    /// The token of lone calls made while no caller's token applies: nothing
    /// cancels them, so one token serves them all (two allocations a run
    /// rather than a call), renewed should application code cancel it.
    idle: CancellationToken,
    /// Run nothing on the calling thread (a caller token or run deadline applies).
    stay_free: bool,
    /// The caller token's after-turn flag.
    after_turn: Arc<AtomicBool>,
}

impl Threads {
    /// The placement for a run with the caller's `cancel` token, if any; and
    /// the cancellation to feed first when the token already fired.
    pub(crate) fn new(cancel: Option<CancellationToken>, config: &golem_core::RunConfig) -> (Self, Option<Input>) {
        let (tx, rx) = channel();
        // With a caller's token or a run deadline, the driver must be free to
        // stop waiting at any moment, so nothing runs on its thread (DRV-02):
        // every call goes to a pooled worker.
        let stay_free = cancel.is_some() || config.run_deadline.is_some();
        let CallerToken { live, first, after_turn } = CallerToken::new(cancel);
        // The caller's cancellation wakes the driver like any answer would,
        // so it takes effect even while the driver is blocked waiting.
        let cancel = live.map(|token| {
            let (tx, flag) = (tx.clone(), Arc::clone(&after_turn));
            let key = token.on_cancel(move || {
                let _ = tx.send(Report { id: None, answer: Answer::plain(caller_cancel(&flag)), last: false });
            });
            CancelGuard(token, key)
        });
        let place = Threads {
            here: None,
            in_flight: BTreeMap::new(),
            answered: BTreeSet::new(),
            tx,
            rx,
            cancel,
            idle: CancellationToken::new(),
            stay_free,
            after_turn,
        };
        (place, first)
    }

    /// Block until something arrives or `deadline` passes (a `Tick`).
    fn wait(&mut self, deadline: Option<Moment>, now: impl Fn() -> Moment) -> Result<Answer, Error> {
        loop {
            let report = match deadline {
                Some(deadline) => match self.rx.recv_timeout(deadline.saturating_duration_since(now())) {
                    Ok(report) => report,
                    Err(RecvTimeoutError::Timeout) => return Ok(Answer::plain(Input::Tick)),
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
            return Ok(report.answer);
        }
    }

    /// Run a lone call where the driver stands. A model call bound by a
    /// deadline carries the time left, by which the model stops; a streamed
    /// one feeds its fragments through `inline`.
    fn run_here<Deps: Send + Sync + 'static>(
        &mut self,
        run: &Arc<RunResources<Deps>>,
        mut task: Task,
        inline: &mut InlineStream<'_, '_>,
    ) -> Answer {
        let deadline = match &mut task {
            Task::Model { request, deadline: Some(deadline), .. } => {
                request.timeout = Some(deadline.saturating_duration_since(run.clock.now()));
                Some(*deadline)
            }
            _ => None,
        };
        // A lone call has no machine-side cancel; it hears the caller's.
        let token = match &self.cancel {
            Some(guard) => guard.0.clone(),
            None => {
                if self.idle.is_canceled() {
                    self.idle = CancellationToken::new();
                }
                self.idle.clone()
            }
        };
        let runner = TaskRunner { run: Arc::clone(run), token };
        let answer = match &task {
            Task::Model { id, stream: true, .. } => {
                let id = *id;
                runner.run(task, None, Some(&mut inline.sink(id)))
            }
            _ => runner.run(task, None, None),
        };
        let answer = answer.map(|mut answer| {
            inline.settle(&mut answer.input);
            answer
        });
        match answer {
            // The model stopped at its deadline: what the driver feeds
            // when a deadline passes, as if it had watched the call from a
            // thread, so the machine's timeout policy decides.
            Some(answer) if stopped_at(deadline, || run.clock.now(), &answer.input) => Answer::plain(Input::Tick),
            Some(answer) => answer,
            // No answer: the caller canceled and the call was dropped. Its
            // report may still be in flight, so feed the cancellation now
            // (a duplicate after the run ends is ignored).
            None => {
                self.cancel = None;
                Answer::plain(caller_cancel(&self.after_turn))
            }
        }
    }
}

impl<Deps: Send + Sync + 'static> Placement<Deps> for Threads {
    fn launch(&mut self, run: &Arc<RunResources<Deps>>, task: Task, alone: bool) -> Option<Answer> {
        if alone && !self.stay_free && !needs_thread(run, &task) {
            self.here = Some(task);
            return None;
        }
        let id = task.id();
        let token = CancellationToken::new();
        self.in_flight.insert(id, token.clone());
        let runner = TaskRunner { run: Arc::clone(run), token };
        let tx = self.tx.clone();
        let spawned = pool::spawn(move || {
            // The run may be over and the receiver gone: nobody wants it.
            if let Some(answer) = runner.run(task, Some(&tx), None) {
                let _ = tx.send(Report { id: Some(id), answer, last: true });
            }
        });
        match spawned {
            Ok(()) => None,
            Err(e) => {
                self.in_flight.remove(&id);
                Some(Answer::plain(spawn_failure(id, &e)))
            }
        }
    }

    fn busy(&self) -> bool {
        self.here.is_some() || !self.in_flight.is_empty()
    }

    fn cancel(&mut self, id: TaskId) {
        self.here.take_if(|task| task.id() == id);
        if let Some(token) = self.in_flight.remove(&id) {
            token.cancel();
        }
    }

    fn answered(&mut self, id: TaskId) {
        self.answered.insert(id);
    }
}

impl<Deps: Send + Sync + 'static, O> Dispatcher<Deps, O, Threads> {
    /// The next input for the machine: one ready now, the answer of a call
    /// made here (a streamed one feeding the machine through `inline` as it
    /// goes), or whatever arrives before `deadline` (else a `Tick`).
    pub(crate) fn next_input(
        &mut self,
        deadline: Option<Moment>,
        inline: &mut InlineStream<'_, '_>,
    ) -> Result<Input, Error> {
        if let Some(input) = self.ready_input() {
            return Ok(input);
        }
        if let Some(task) = self.place.here.take() {
            let answer = self.place.run_here(&self.run, task, inline);
            self.arrived(answer);
            return Ok(self.ready_input().unwrap_or(Input::Tick));
        }
        let clock = Arc::clone(&self.run.clock);
        let answer = self.place.wait(deadline, || clock.now())?;
        self.arrived(answer);
        Ok(self.ready_input().unwrap_or(Input::Tick))
    }
}

impl Drop for Threads {
    fn drop(&mut self) {
        // However the run ended — even on a driver error — nothing it left
        // running should keep working for it.
        self.in_flight.values().for_each(CancellationToken::cancel);
    }
}

/// Whether the driver must be free to stop waiting for `task`, so it
/// cannot run on the driver's thread.
fn needs_thread<Deps>(run: &RunResources<Deps>, task: &Task) -> bool {
    match task {
        // A stream the machine times chunk by chunk: only the machine
        // knows when the next chunk is due (SPEC TIME-01).
        Task::Model { stream: true, .. } if run.chunk_limits => true,
        Task::Model { deadline: Some(_), member, .. } => !run.model(*member).is_ok_and(|m| m.honours_timeout()),
        Task::Model { deadline: None, .. } => false,
        Task::Tool { deadline, .. } => deadline.is_some(),
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

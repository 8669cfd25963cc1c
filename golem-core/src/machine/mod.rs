//! The run machine (SPEC MACH): a pure, synchronous state machine.
//!
//! One door in ([`RunMachine::handle_input`]), one door out
//! ([`RunMachine::poll_output`]). **After every input — and after
//! [`RunMachine::new`] — drain outputs until [`Output::Wait`] or
//! [`Output::Done`].** The machine never reads a clock: `now` is an argument,
//! and deadlines come back in `Wait` for the driver to honour by feeding
//! [`Input::Tick`].
//!
//! The policy of a run lives here, split by concern into private modules:
//! `model_call` (turns, attempts, fallback, backoff: the wait itself is
//! `RetryPolicy::delay`'s rule), `batch` (tool
//! batches), `output` (decoding and correction rounds), `resume` (the
//! preamble and deferred resolutions) and `cancel`.

mod backoff;
mod batch;
mod cancel;
mod caps;
mod evidence;
mod ids;
mod limits;
mod model_call;
mod output;
mod prepared;
mod recover;
mod resume;
mod sub_run;
mod vocabulary;

pub use caps::cap_tool_result;
pub use prepared::PreparedConfig;
pub use vocabulary::*;

use crate::config::{RunConfig, UsageLimits};
use crate::error::{Cause, RunError, Stage};
use crate::event::{EventKind, RunEvent};
use crate::time::Moment;
use evidence::Evidence;
use ids::{IdKind, Ids};
use std::collections::{BTreeMap, VecDeque};

/// The run machine. See the module docs.
#[derive(Debug)]
pub struct RunMachine {
    cfg: PreparedConfig,
    /// The limits the run keeps within: the configuration's, tightened by
    /// any the start inherited from a delegating run.
    limits: UsageLimits,
    stream: bool,
    now: Moment,
    run_deadline: Option<Moment>,
    ids: Ids,
    queue: VecDeque<Output>,
    seq: u64,
    ev: Evidence,
    phase: Phase,
    /// Turn within the current correction round (events restart it per round).
    turn: u32,
    /// Turns across the run, bounded by `max_iterations` (SPEC RUN-07).
    turns_total: u32,
    /// Retries so far, numbering jitter draws.
    retries: u64,
    /// Where this run's jitter comes from (SPEC RETRY-02, JIT-01).
    jitter: crate::jitter::Source,
    tool_rejections: u32,
    per_tool_rejections: BTreeMap<String, u32>,
    output_corrections: u32,
    /// The last decoded answer was cut off at the token limit (issue 11).
    last_answer_cut_off: bool,
    /// A forced tool choice has been honoured once (SPEC TOOL-11).
    forced_satisfied: bool,
    /// An `AfterTurn` cancellation waiting for the turn to end.
    stop_after_turn: Option<crate::error::CancelReason>,
    /// Boxed: set once, at the end, and large.
    outcome: Option<Box<Outcome>>,
    poisoned: Option<ApiMisuse>,
    /// Tool executions that reported starting (the ledger, SPEC LOG-06).
    started: ids::IdSet,
    /// Events are numbered but not queued: nobody hears them (see
    /// [`RunMachine::mute_events`]).
    muted: bool,
}

#[derive(Debug)]
enum Phase {
    /// The conversation is open; the first turn starts at the first poll, so
    /// a cancellation fed right after `new` stops the run before any request.
    Starting,
    /// Approved re-runs of a deferred resume are executing.
    Resuming(Box<resume::Resume>),
    /// A model call is in flight or backing off.
    Model(model_call::ModelPhase),
    /// A tool batch is executing.
    Tools(batch::Batch),
    /// The decoder is judging the final response.
    Decoding(Box<output::Decoding>),
    /// The run is over.
    Done,
}

impl RunMachine {
    /// Start a run at `now`. Fails with a setup error (no stage, no
    /// evidence) before any model call when the configuration, prompt parts,
    /// history or deferred resolutions are invalid.
    ///
    /// `config` is a [`RunConfig`] or, to share one checked copy among many
    /// runs, a [`PreparedConfig`].
    pub fn new(config: impl Into<PreparedConfig>, start: Start, now: Moment) -> Result<RunMachine, SetupError> {
        let config = config.into();
        config.check()?;
        let run_deadline = config.run_deadline.map(|d| now + d);
        let limits = start.limits.map_or(config.limits, |inherited| config.limits.within(&inherited));
        let jitter = crate::jitter::Source::of(config.seed, config.fixed_seed, start.jitter_seed, start.jitter_phase);
        let mut machine = RunMachine {
            cfg: config,
            limits,
            stream: start.stream,
            now,
            run_deadline,
            ids: Ids::default(),
            queue: VecDeque::new(),
            seq: 0,
            ev: Evidence {
                run_id: start.run_id.clone(),
                conversation_id: start.conversation_id.clone(),
                ..Evidence::default()
            },
            phase: Phase::Done,
            turn: 0,
            turns_total: 0,
            retries: 0,
            jitter,
            tool_rejections: 0,
            per_tool_rejections: BTreeMap::new(),
            output_corrections: 0,
            last_answer_cut_off: false,
            forced_satisfied: false,
            stop_after_turn: None,
            outcome: None,
            poisoned: None,
            started: ids::IdSet::default(),
            muted: false,
        };
        machine.begin(start)?;
        Ok(machine)
    }

    /// Feed one input at `now`. Deadlines at or before `now` fire first.
    ///
    /// Returns [`ApiMisuse`] when the driver breaks the contract (an unknown
    /// id, a second answer, time going backwards); the machine then stays
    /// failed. Inputs after `Done` are ignored.
    pub fn handle_input(&mut self, now: Moment, input: Input) -> Result<(), ApiMisuse> {
        if let Some(misuse) = &self.poisoned {
            return Err(ApiMisuse::Poisoned(misuse.to_string()));
        }
        if self.outcome.is_some() {
            return Ok(());
        }
        if now < self.now {
            return Err(self.poison(ApiMisuse::TimeWentBackwards { last: self.now, now }));
        }
        self.now = now;
        self.fire_timers();
        if self.outcome.is_some() {
            // A deadline ended the run; the input lost the race.
            return self.note_late(&input);
        }
        let result = match input {
            Input::ModelFinished { id, result } => self.on_model_finished(id, result),
            Input::ModelDelta { id, delta } => self.on_model_delta(id, delta),
            Input::ToolStarted { id } => self.on_tool_started(id),
            Input::ToolFinished { id, outcome } => self.on_tool_finished(id, outcome),
            Input::SubRunSpent { id, spent } => self.on_sub_run_spent(id, spent),
            Input::Decoded { id, verdict } => self.on_decoded(id, verdict),
            Input::Tick => Ok(()),
            Input::Recover => {
                self.recover();
                Ok(())
            }
            Input::Cancel { reason, mode } => {
                self.on_cancel(reason, mode);
                Ok(())
            }
        };
        result.map_err(|misuse| self.poison(misuse))
    }

    /// Take the next output: queued commands and events first, then `Wait`
    /// (with the earliest deadline) or `Done`, which is absorbing.
    pub fn poll_output(&mut self) -> Output {
        if matches!(self.phase, Phase::Starting) && self.outcome.is_none() && self.poisoned.is_none() {
            self.begin_turn();
        }
        if let Some(output) = self.queue.pop_front() {
            return output;
        }
        if self.outcome.is_some() || self.poisoned.is_some() {
            return Output::Done;
        }
        let (deadline, reason) = self.next_deadline();
        Output::Wait { deadline, reason }
    }

    /// How the run ended, once `Done`; `None` before that, or when a misuse
    /// poisoned the machine.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_deref()
    }

    /// Take the outcome out of a finished machine.
    pub fn into_outcome(self) -> Option<Outcome> {
        self.outcome.map(|outcome| *outcome)
    }

    /// Stop queueing events: from here on [`poll_output`](Self::poll_output)
    /// yields the same commands, waits and outcome, and no
    /// [`Output::Event`]. Events already queued are dropped too. Sequence
    /// numbers still advance, so the commands and the outcome do not depend
    /// on it.
    ///
    /// For a driver that knows no one hears the run's events — no
    /// observer, no log, no trace: with many runs in flight, each event is
    /// a 264-byte output written to and read from the run's queue while
    /// its state is cold in the cache (issue 37).
    pub fn mute_events(&mut self) {
        self.muted = true;
        self.queue.retain(|output| !matches!(output, Output::Event(_)));
    }

    /// True once the run has ended.
    pub fn is_done(&self) -> bool {
        self.outcome.is_some()
    }

    /// The configuration this machine runs.
    pub fn config(&self) -> &RunConfig {
        &self.cfg
    }

    /// This run's id, as the driver gave it in [`Start`] (SPEC EXTRA-01);
    /// empty when it has none.
    pub fn run_id(&self) -> &crate::id::Id {
        &self.ev.run_id
    }

    /// The conversation's id, as the driver gave it in [`Start`] (SPEC
    /// EXTRA-01); empty when it has none.
    pub fn conversation_id(&self) -> &crate::id::Id {
        &self.ev.conversation_id
    }

    /// The latest `now` the machine has seen.
    pub fn now(&self) -> Moment {
        self.now
    }

    /// Feed one input and drain everything it produced.
    pub fn step(&mut self, now: Moment, input: Input) -> Result<Vec<Output>, ApiMisuse> {
        self.handle_input(now, input)?;
        Ok(self.drain())
    }

    /// Drain outputs up to and including the next `Wait` or `Done`.
    pub fn drain(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        loop {
            let output = self.poll_output();
            let last = matches!(output, Output::Wait { .. } | Output::Done);
            out.push(output);
            if last {
                return out;
            }
        }
    }

    // ---- shared helpers used by the phase modules ----

    fn poison(&mut self, misuse: ApiMisuse) -> ApiMisuse {
        self.poisoned = Some(misuse.clone());
        misuse
    }

    fn emit(&mut self, kind: EventKind) {
        if self.muted {
            self.seq += 1;
            return;
        }
        let event = RunEvent {
            seq: self.seq,
            run_id: self.ev.run_id.clone(),
            conversation_id: self.ev.conversation_id.clone(),
            kind,
        };
        self.seq += 1;
        self.queue.push_back(Output::Event(event));
    }

    /// Whether `count` events about to be built are heard. A muted run
    /// skips building them (their clones of ids, names and results), their
    /// sequence numbers taken all the same.
    fn heard(&mut self, count: usize) -> bool {
        if self.muted {
            self.seq += count as u64;
        }
        !self.muted
    }

    fn command(&mut self, command: Command) {
        // A muted run rarely holds more than a command or two at once: room
        // for two, not the four a first push makes (issue 37: 4 × 264 bytes
        // is an allocation past glibc's per-size caches, kept for the run).
        if self.muted && self.queue.capacity() == 0 {
            self.queue.reserve_exact(2);
        }
        self.queue.push_back(Output::Command(command));
    }

    fn finish(&mut self, outcome: Outcome) {
        self.cancel_in_flight();
        self.phase = Phase::Done;
        self.outcome = Some(Box::new(outcome));
    }

    fn fail(&mut self, stage: Stage, cause: Cause) {
        self.fail_declined(stage, cause, None);
    }

    /// Fail, saying why a retry the policy allowed was not made.
    fn fail_declined(&mut self, stage: Stage, cause: Cause, declined: Option<crate::error::DeclineReason>) {
        // A streamed turn cut short keeps what reached the caller (SPEC RETRY-06, ERR-05).
        if let Phase::Model(m) = &self.phase {
            self.ev.incomplete = m.forwarded().map(|mut message| {
                self.ev.stamp(&mut message);
                Box::new(message)
            });
        }
        let mut error = RunError::new(stage, cause);
        error.partial = self.ev.partial();
        error.requests = self.ev.requests;
        error.run_id = self.ev.run_id.as_str().to_owned();
        error.conversation_id = self.ev.conversation_id.as_str().to_owned();
        error.retry_declined = declined;
        self.finish(Outcome::Failed(error));
    }

    /// Abandon every piece of work still owed an answer, telling the driver
    /// to stop model and tool calls.
    fn cancel_in_flight(&mut self) {
        let in_flight: Vec<u64> = match &self.phase {
            Phase::Model(m) => m.in_flight().into_iter().collect(),
            Phase::Tools(b) => b.in_flight_ids(),
            Phase::Resuming(r) => r.in_flight().into_iter().collect(),
            Phase::Decoding(d) => vec![d.id.0],
            Phase::Starting | Phase::Done => Vec::new(),
        };
        for id in in_flight {
            if self.ids.is_pending(IdKind::Model, id) {
                self.command(Command::CancelModel { id: ModelCallId(id) });
            } else if self.ids.is_pending(IdKind::Tool, id) {
                self.command(Command::CancelTool { id: ToolCallId(id) });
            }
            self.ids.abandon(id);
        }
    }

    /// An answer that arrived after a deadline ended the run.
    fn note_late(&mut self, input: &Input) -> Result<(), ApiMisuse> {
        let (kind, id) = match input {
            Input::ModelFinished { id, .. } => (IdKind::Model, id.0),
            Input::ToolFinished { id, .. } => (IdKind::Tool, id.0),
            Input::Decoded { id, .. } => (IdKind::Decode, id.0),
            _ => return Ok(()),
        };
        self.ids.answer(kind, id).map(|_| ())
    }

    fn late_result(&mut self, what: &str, id: u64) {
        self.emit(EventKind::LateResult { what: what.to_string(), id });
    }

    fn fire_timers(&mut self) {
        if self.run_deadline.is_some_and(|d| d <= self.now) {
            self.run_deadline = None;
            self.on_cancel(crate::error::CancelReason::Deadline, CancelMode::Immediate);
            return;
        }
        match &self.phase {
            Phase::Model(_) => self.model_timers(),
            Phase::Tools(_) => self.batch_timers(),
            Phase::Resuming(_) => self.resume_timers(),
            Phase::Starting | Phase::Decoding(_) | Phase::Done => {}
        }
    }

    fn next_deadline(&self) -> (Option<Moment>, WaitReason) {
        let phase = match &self.phase {
            Phase::Model(m) => m.deadline(),
            Phase::Tools(b) => b.deadline().map(|d| (d, WaitReason::ToolDeadline)),
            Phase::Resuming(r) => r.deadline().map(|d| (d, WaitReason::ToolDeadline)),
            Phase::Starting | Phase::Decoding(_) | Phase::Done => None,
        };
        let run = self.run_deadline.map(|d| (d, WaitReason::RunDeadline));
        match (phase, run) {
            (Some(p), Some(r)) if r.0 < p.0 => (Some(r.0), r.1),
            (Some(p), _) => (Some(p.0), p.1),
            (None, Some(r)) => (Some(r.0), r.1),
            (None, None) => (None, WaitReason::InFlight),
        }
    }
}

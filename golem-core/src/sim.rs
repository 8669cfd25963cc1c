//! A simulated-time harness for the run machine (SPEC TEST-03).
//!
//! [`Sim`] drives a [`RunMachine`] with scripted models, tools and decoders
//! that answer after simulated latencies. Time moves only when the machine
//! waits, so a test with a 30 s backoff finishes instantly and identically
//! every time. Every command and event is written to a transcript of short
//! lines, which golden tests compare whole.

use crate::error::CauseRecord;
use crate::event::EventKind;
use crate::log::{outputs_digest_for, EndKind, EventLog, LogHeader};
use crate::machine::{
    Command, Input, Outcome, Output, RunMachine, SetupError, Start, ToolCallId, ToolOutcome, Verdict,
};
use crate::message::ToolCall;
use crate::model::{Delta, ModelError, Request, Response};
use crate::time::Moment;
use crate::RunConfig;
use std::collections::BTreeMap;
use std::time::Duration;

/// How a simulated model call ends.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ModelReply {
    /// Latency before the answer.
    pub after: Duration,
    /// The answer.
    pub result: Result<Response, ModelError>,
    /// Fragments a streamed call delivers before its answer, halfway
    /// through the latency, in order (a plain call drops them).
    pub deltas: Vec<Delta>,
    /// Deliver the fragments one every `pace` from the call's start
    /// instead of all halfway (a stream making steady progress).
    pub pace: Option<Duration>,
}

impl ModelReply {
    /// A response after `after`.
    pub fn ok(after: Duration, response: Response) -> Self {
        ModelReply { after, result: Ok(response), deltas: Vec::new(), pace: None }
    }

    /// A failure after `after`.
    pub fn err(after: Duration, error: ModelError) -> Self {
        ModelReply { after, result: Err(error), deltas: Vec::new(), pace: None }
    }

    /// Builder-style: stream `deltas` before the answer (streamed calls only).
    pub fn with_deltas(mut self, deltas: Vec<Delta>) -> Self {
        self.deltas = deltas;
        self
    }

    /// Builder-style: stream `deltas` one every `pace` from the call's
    /// start (streamed calls only); the answer still comes after `after`.
    pub fn with_paced_deltas(mut self, deltas: Vec<Delta>, pace: Duration) -> Self {
        self.deltas = deltas;
        self.pace = Some(pace);
        self
    }
}

/// How a simulated tool call ends: after `after`, or never (`None`).
#[derive(Clone, Debug)]
pub struct ToolReply {
    /// Latency before the answer; `None` never answers (a stuck tool).
    pub after: Option<Duration>,
    /// The answer.
    pub outcome: ToolOutcome,
}

impl ToolReply {
    /// A text result after `after`.
    pub fn output(after: Duration, content: impl Into<String>) -> Self {
        ToolReply { after: Some(after), outcome: ToolOutcome::output(content) }
    }

    /// Any outcome after `after`.
    pub fn outcome(after: Duration, outcome: ToolOutcome) -> Self {
        ToolReply { after: Some(after), outcome }
    }

    /// A tool that never answers.
    pub fn stuck() -> Self {
        ToolReply { after: None, outcome: ToolOutcome::Fatal { cause: CauseRecord::new("stuck", "never answers") } }
    }
}

type ModelFn = Box<dyn FnMut(&Request, u32) -> ModelReply>;
type ToolFn = Box<dyn FnMut(&ToolCall, bool) -> ToolReply>;
type DecodeFn = Box<dyn FnMut(&Response) -> Verdict>;

/// The simulated-time harness. See the module docs.
pub struct Sim {
    machine: RunMachine,
    now: Moment,
    start: Moment,
    model: ModelFn,
    tools: BTreeMap<String, ToolFn>,
    decoder: DecodeFn,
    /// Answers scheduled for the future, in scheduling order.
    scheduled: Vec<(Moment, u64, Input)>,
    next_seq: u64,
    /// Inputs to inject at given times (e.g. a cancellation).
    injected: Vec<(Moment, Input)>,
    transcript: Vec<String>,
    events: Vec<crate::event::RunEvent>,
    requests: Vec<Request>,
    inputs: Vec<(Duration, Input)>,
    /// The run's event log, digests included.
    log: EventLog,
    /// Outputs produced since the last input (for its digest).
    step_outputs: Vec<Output>,
    /// Stop (as if the process died) after this many inputs.
    crash_after: Option<usize>,
    /// Tool calls commanded whose start is not reported yet.
    starting: BTreeMap<ToolCallId, (ToolCall, bool)>,
    /// Tool bodies run.
    executions: usize,
}

impl std::fmt::Debug for Sim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sim").field("now", &self.now).field("transcript", &self.transcript).finish()
    }
}

fn ms(d: Duration) -> u128 {
    d.as_millis()
}

impl Sim {
    /// A harness for a run of `config` from `start` at time zero. The model
    /// answers with `model(request, member)`; decoding accepts everything
    /// until [`Sim::decoder`] says otherwise.
    pub fn new(
        config: RunConfig,
        start: Start,
        model: impl FnMut(&Request, u32) -> ModelReply + 'static,
    ) -> Result<Sim, SetupError> {
        let log = EventLog::new(LogHeader::new(config.clone(), start.clone()));
        let machine = RunMachine::new(config, start, Moment::ZERO)?;
        Ok(Sim::around(machine, Moment::ZERO, log, Box::new(model)))
    }

    /// A harness continuing `machine` (e.g. one replayed from a crashed
    /// run's log) at `now`, appending to `log`. Nothing is in flight: feed
    /// [`Input::Recover`] with [`Sim::inject`] to re-issue lost work.
    pub fn resume(
        machine: RunMachine,
        now: Moment,
        log: EventLog,
        model: impl FnMut(&Request, u32) -> ModelReply + 'static,
    ) -> Sim {
        Sim::around(machine, now, log, Box::new(model))
    }

    fn around(machine: RunMachine, now: Moment, log: EventLog, model: ModelFn) -> Sim {
        Sim {
            machine,
            now,
            start: Moment::ZERO,
            model,
            tools: BTreeMap::new(),
            decoder: Box::new(|_| Verdict::Accepted),
            scheduled: Vec::new(),
            next_seq: 0,
            injected: Vec::new(),
            transcript: Vec::new(),
            events: Vec::new(),
            requests: Vec::new(),
            inputs: Vec::new(),
            log,
            step_outputs: Vec::new(),
            crash_after: None,
            starting: BTreeMap::new(),
            executions: 0,
        }
    }

    /// Stop after `n` inputs, as if the process died: [`Sim::run`] then
    /// returns `None` and the log has no end marker.
    pub fn crash_after(mut self, n: usize) -> Self {
        self.crash_after = Some(n);
        self
    }

    /// The run's event log so far (with output digests).
    pub fn log(&self) -> EventLog {
        let mut log = self.log.clone();
        if let Some(last) = log.records.last_mut() {
            if last.out.is_none() {
                last.out = Some(outputs_digest_for(log.header.format, &self.step_outputs));
            }
        }
        log
    }

    /// A model that replays `replies` in order (then fails).
    pub fn scripted(replies: Vec<ModelReply>) -> impl FnMut(&Request, u32) -> ModelReply {
        let mut replies = replies.into_iter();
        move |_, _| {
            replies.next().unwrap_or_else(|| ModelReply::err(Duration::ZERO, ModelError::other("script exhausted")))
        }
    }

    /// Register the tool `name`.
    pub fn tool(mut self, name: &str, tool: impl FnMut(&ToolCall, bool) -> ToolReply + 'static) -> Self {
        self.tools.insert(name.to_string(), Box::new(tool));
        self
    }

    /// Set the decoder.
    pub fn decoder(mut self, decoder: impl FnMut(&Response) -> Verdict + 'static) -> Self {
        self.decoder = Box::new(decoder);
        self
    }

    /// Feed `input` when the clock reaches `at`.
    pub fn inject(mut self, at: Duration, input: Input) -> Self {
        self.injected.push((self.start + at, input));
        self
    }

    /// Drive the run to `Done` and return its outcome. Stops after 10 000
    /// steps so a machine bug cannot hang a test.
    pub fn run(&mut self) -> Outcome {
        self.run_until_crash().expect("the simulation was told to crash; use run_until_crash")
    }

    /// Like [`Sim::run`], but `None` when [`Sim::crash_after`] stopped it.
    pub fn run_until_crash(&mut self) -> Option<Outcome> {
        for _ in 0..10_000 {
            loop {
                let output = self.machine.poll_output();
                if !self.log.records.is_empty() {
                    self.step_outputs.push(output.clone());
                }
                match output {
                    Output::Command(command) => self.execute(command),
                    Output::Event(event) => {
                        self.transcript.push(describe_event(&event.kind));
                        self.events.push(event);
                    }
                    Output::Wait { deadline, reason } => {
                        let line = match deadline {
                            Some(d) => format!("wait {reason:?} until {}ms", ms(d.since_epoch())),
                            None => format!("wait {reason:?}"),
                        };
                        self.transcript.push(line);
                        if self.crash_after.is_some_and(|n| self.inputs.len() >= n) {
                            self.transcript.push("crash".to_string());
                            return None;
                        }
                        self.advance(deadline);
                        break;
                    }
                    Output::Done => {
                        self.transcript.push("done".to_string());
                        let outcome = self.machine.outcome().cloned().expect("a finished machine has an outcome");
                        self.log = self.log();
                        self.log.finish(match &outcome {
                            Outcome::Completed { .. } => EndKind::Completed,
                            Outcome::Paused { .. } => EndKind::Paused,
                            Outcome::Failed(_) => EndKind::Failed,
                        });
                        return Some(outcome);
                    }
                }
            }
        }
        panic!("simulation did not finish: {:#?}", self.transcript);
    }

    fn schedule(&mut self, at: Moment, input: Input) {
        self.scheduled.push((at, self.next_seq, input));
        self.next_seq += 1;
    }

    fn execute(&mut self, command: Command) {
        match command {
            Command::CallModel { id, member, request, deadline, stream } => {
                let d = deadline.map(|d| format!(" deadline {}ms", ms(d.since_epoch()))).unwrap_or_default();
                let s = if stream { " stream" } else { "" };
                self.transcript.push(format!("call_model #{id} member {member}{d}{s}"));
                let reply = (self.model)(&request, member);
                self.requests.push(request);
                if stream {
                    let halfway = self.now + reply.after / 2;
                    let start = self.now;
                    for (n, delta) in (1u32..).zip(reply.deltas) {
                        let at = reply.pace.map_or(halfway, |pace| start + pace * n);
                        self.schedule(at, Input::ModelDelta { id, delta });
                    }
                }
                let at = self.now + reply.after;
                self.schedule(at, Input::ModelFinished { id, result: reply.result.map(Box::new) });
            }
            Command::ExecuteTool { id, call, deadline, approved } => {
                let d = deadline.map(|d| format!(" deadline {}ms", ms(d.since_epoch()))).unwrap_or_default();
                let a = if approved { " approved" } else { "" };
                self.transcript.push(format!("execute_tool #{id} {}{d}{a}", call.name));
                // Like a real driver: report starting (the write-ahead
                // ledger), and only then run the body.
                self.starting.insert(id, (call, approved));
                let now = self.now;
                self.schedule(now, Input::ToolStarted { id });
            }
            Command::CancelModel { id } => self.transcript.push(format!("cancel_model #{id}")),
            Command::CancelTool { id } => {
                self.starting.remove(&id);
                self.transcript.push(format!("cancel_tool #{id}"));
            }
            Command::Decode { id, response } => {
                self.transcript.push(format!("decode #{id}"));
                let verdict = (self.decoder)(&response);
                let now = self.now;
                self.schedule(now, Input::Decoded { id, verdict });
            }
        }
    }

    /// Move time to the next answer, injection or deadline and feed it.
    fn advance(&mut self, deadline: Option<Moment>) {
        let next_answer =
            self.scheduled.iter().enumerate().min_by_key(|(_, (at, seq, _))| (*at, *seq)).map(|(i, e)| (i, e.0));
        let next_inject = self.injected.iter().enumerate().min_by_key(|(_, (at, _))| *at).map(|(i, e)| (i, e.0));
        let mut best: Option<(Moment, u8, usize)> = None;
        // On a tie an injection goes first, then an answer, then the deadline.
        for cand in [
            next_inject.map(|(i, at)| (at, 0u8, i)),
            next_answer.map(|(i, at)| (at, 1, i)),
            deadline.map(|d| (d, 2, 0)),
        ]
        .into_iter()
        .flatten()
        {
            if best.is_none_or(|b| (cand.0, cand.1) < (b.0, b.1)) {
                best = Some(cand);
            }
        }
        let Some((at, kind, index)) = best else {
            panic!("simulation stalled: nothing scheduled and no deadline: {:#?}", self.transcript);
        };
        self.now = self.now.max(at);
        let input = match kind {
            0 => self.injected.remove(index).1,
            1 => self.scheduled.remove(index).2,
            _ => Input::Tick,
        };
        self.feed(input);
    }

    fn feed(&mut self, input: Input) {
        self.transcript.push(format!("@{}ms {}", ms(self.now.since_epoch()), describe_input(&input)));
        self.inputs.push((self.now.saturating_duration_since(self.start), input.clone()));
        self.log = self.log();
        self.step_outputs.clear();
        self.log.push(self.now, input.clone(), None);
        let started = match &input {
            Input::ToolStarted { id } => self.starting.remove(id).map(|work| (*id, work)),
            _ => None,
        };
        self.machine.handle_input(self.now, input).expect("the simulator never misuses the machine");
        if let Some((id, (call, approved))) = started {
            self.executions += 1;
            let reply = match self.tools.get_mut(&call.name) {
                Some(tool) => tool(&call, approved),
                None => ToolReply::output(Duration::ZERO, format!("no simulated tool {}", call.name)),
            };
            if let Some(after) = reply.after {
                let at = self.now + after;
                self.schedule(at, Input::ToolFinished { id, outcome: reply.outcome });
            }
        }
    }

    /// Every command, event, wait and input so far, one short line each.
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    /// The events so far.
    pub fn events(&self) -> &[crate::event::RunEvent] {
        &self.events
    }

    /// Just the event lines of the transcript.
    pub fn event_lines(&self) -> Vec<String> {
        self.events.iter().map(|e| describe_event(&e.kind)).collect()
    }

    /// The requests the model received.
    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    /// The inputs fed, with their offsets from the start (an event log's body).
    pub fn inputs(&self) -> &[(Duration, Input)] {
        &self.inputs
    }

    /// How many tool bodies ran.
    pub fn executions(&self) -> usize {
        self.executions
    }

    /// The current simulated time.
    pub fn now(&self) -> Moment {
        self.now
    }
}

/// A short, stable description of an event for transcripts.
pub fn describe_event(kind: &EventKind) -> String {
    match kind {
        EventKind::ModelStart { turn, attempt, member } => format!("model_start t{turn} a{attempt} m{member}"),
        EventKind::ModelEnd { turn, attempt, member, error, .. } => match error {
            Some(e) => format!("model_end t{turn} a{attempt} m{member} error: {e}"),
            None => format!("model_end t{turn} a{attempt} m{member}"),
        },
        EventKind::ToolStart { call_id, tool, approved, .. } => {
            format!("tool_start {call_id} {tool}{}", if *approved { " approved" } else { "" })
        }
        EventKind::ToolEnd { call_id, tool, outcome, approved, .. } => {
            let a = if *approved { " approved" } else { "" };
            match (outcome.output(), outcome.error_text()) {
                (_, Some(e)) => format!("tool_end {call_id} {tool}{a} error: {e}"),
                (Some(r), None) => format!("tool_end {call_id} {tool}{a} ok: {r}"),
                (None, None) => format!("tool_end {call_id} {tool}{a}"),
            }
        }
        EventKind::SubRunSpent { call_id, tool, spent, .. } => {
            format!("sub_run_spent {call_id} {tool} {} tokens {} requests", spent.usage.total_tokens(), spent.requests)
        }
        EventKind::OutputRejected { round, reason } => format!("output_rejected round {round}: {reason}"),
        EventKind::Deferred { call_id, tool, kind, reason, .. } => {
            format!("deferred {call_id} {tool} {kind:?}: {reason}")
        }
        EventKind::Retrying { turn, attempt, delay, .. } => {
            format!("retrying t{turn} a{attempt} after {}ms", delay.as_millis())
        }
        EventKind::TurnDiscarded { turn, attempt, member } => format!("turn_discarded t{turn} a{attempt} m{member}"),
        EventKind::RetryDeclined { turn, attempt, member, reason } => {
            format!("retry_declined t{turn} a{attempt} m{member}: {reason}")
        }
        EventKind::Canceled { reason } => format!("canceled {reason:?}"),
        EventKind::LateResult { what, id } => format!("late_result {what} #{id}"),
        EventKind::Delta { turn, delta } => format!("delta t{turn} {delta:?}"),
        EventKind::Recovered { call_id, tool, started, decision } => {
            format!("recovered {call_id} {tool} started={started} {decision:?}")
        }
    }
}

fn describe_input(input: &Input) -> String {
    match input {
        Input::ModelFinished { id, result: Ok(_) } => format!("model_finished #{id} ok"),
        Input::ModelFinished { id, result: Err(e) } => format!("model_finished #{id} error: {e}"),
        Input::ModelDelta { id, .. } => format!("model_delta #{id}"),
        Input::ToolStarted { id } => format!("tool_started #{id}"),
        Input::ToolFinished { id, outcome } => format!("tool_finished #{id} {}", describe_outcome(outcome)),
        Input::SubRunSpent { id, spent } => {
            format!("sub_run_spent #{id} {} tokens {} requests", spent.usage.total_tokens(), spent.requests)
        }
        Input::Decoded { id, verdict } => format!("decoded #{id} {verdict:?}"),
        Input::Tick => "tick".to_string(),
        Input::Recover => "recover".to_string(),
        Input::Cancel { reason, mode } => format!("cancel {reason:?} {mode:?}"),
    }
}

fn describe_outcome(outcome: &ToolOutcome) -> String {
    match outcome {
        ToolOutcome::Output { content, .. } => format!("output {content}"),
        ToolOutcome::Reject { reason } => format!("reject {reason}"),
        ToolOutcome::Failed { reason, .. } => format!("failed {reason}"),
        ToolOutcome::Defer { kind, reason } => format!("defer {kind:?} {reason}"),
        ToolOutcome::CancelRun { reason } => format!("cancel_run {reason}"),
        ToolOutcome::Fatal { cause } => format!("fatal {}", cause.message),
    }
}

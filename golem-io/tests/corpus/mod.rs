//! The driver-equivalence corpus (issue 3): scripted scenarios defined once,
//! as data plus small builders, so any driver — and later the event-log
//! recorder and replayer (issue 4) — runs every one of them the same way.
//!
//! A [`Scenario`] is a name, the SPEC items it exercises and a factory. The
//! factory builds a fresh [`Case`] each time (scripted models consume their
//! queue, so a case runs once): an agent, its deps and one or more
//! [`Step`]s — a prompt, the previous step's messages as history, deferred
//! resolutions, streaming, a caller cancellation token — each with a [`Pin`]
//! describing the expected end so the corpus checks itself.
//!
//! Running a case with a [`Driver`] gives an [`Observation`]: per step the
//! serialized outcome (`RunResult<O>` or `RunError` as JSON), the serialized
//! run events seen by a run-scoped observer, and a short summary the pins are
//! checked against; plus the probe notes tools wrote. Two drivers are
//! equivalent on a scenario when their observations are equal (the summary is
//! derived from the outcome, so equal JSON means an equal summary).
//!
//! Determinism rules every scenario follows:
//! - no sleeping in models; time-dependent scenarios (tool timeouts, run
//!   deadlines, caller cancellation) use tools that block on a [`Gate`] that
//!   the harness opens only after the step has returned, so a late answer can
//!   never reach the run and no outcome depends on thread scheduling;
//! - parallel completion order is forced with gates between the tools, and
//!   the machine's emission-order guarantee makes the outcome independent of
//!   it anyway;
//! - backoff waits use small tables (a few ms), and deadlines that must not
//!   fire are at least 10x larger than anything that happens before them.
//!
//! To add a driver: add a [`Driver`] variant and one arm in [`call`].

#![allow(dead_code)]

mod asynchronous;
mod basics;
mod control;
pub mod kit;

use golem_core::{Approval, DeferredResults, Message, RunEvent, Stage};
use golem_io::{Agent, CancellationToken, Error, RunBuilder, RunOutcome};
use kit::{Gate, Probe};
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, Mutex};

/// A way of running a [`RunBuilder`] to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// `RunBuilder::call` on the calling thread.
    Blocking,
    /// `RunBuilder::call_async` under `smol::block_on`.
    Smol,
    /// `RunBuilder::call_async` under `futures::executor::block_on`.
    Futures,
    /// `RunBuilder::call_async` inside a current-thread tokio runtime
    /// (without tokio's timer: deadlines are async-io's).
    Tokio,
    /// The blocking driver, recording an event log ([`take_logs`]).
    RecordedBlocking,
    /// The async driver under `smol::block_on`, recording an event log.
    RecordedSmol,
}

/// A log buffer the run writes to while the test keeps a handle.
#[derive(Clone, Default)]
struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

thread_local! {
    /// Logs recorded by the `Recorded*` drivers on this thread, in order.
    static LOGS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The logs the `Recorded*` drivers wrote on this thread since the last call
/// (one per run; a run that could not start writes none).
pub fn take_logs() -> Vec<String> {
    LOGS.with(|logs| std::mem::take(&mut *logs.borrow_mut()))
}

impl Driver {
    /// Every driver the corpus compares.
    pub const ALL: &'static [Driver] = &[Driver::Blocking, Driver::Smol, Driver::Futures, Driver::Tokio];
}

/// Run `run` with `driver`, a pause taken as an outcome (the corpus
/// covers both ends).
pub fn call<Deps, O>(driver: Driver, run: RunBuilder<'_, Deps, O>) -> Result<RunOutcome<O>, Error>
where
    Deps: Send + Sync + 'static,
    O: 'static,
{
    match driver {
        Driver::Blocking => run.call_pausable(),
        Driver::Smol => smol::block_on(run.call_pausable_async()),
        Driver::Futures => futures::executor::block_on(run.call_pausable_async()),
        Driver::Tokio => {
            let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a tokio runtime");
            runtime.block_on(run.call_pausable_async())
        }
        Driver::RecordedBlocking | Driver::RecordedSmol => {
            let log = SharedLog::default();
            let run = run.record(log.clone());
            let result = match driver {
                Driver::RecordedBlocking => run.call_pausable(),
                _ => smol::block_on(run.call_pausable_async()),
            };
            let bytes = std::mem::take(&mut *log.0.lock().unwrap_or_else(|p| p.into_inner()));
            if !bytes.is_empty() {
                LOGS.with(|logs| logs.borrow_mut().push(String::from_utf8(bytes).expect("logs are UTF-8")));
            }
            result
        }
    }
}

/// One scenario of the corpus.
#[derive(Clone, Copy)]
pub struct Scenario {
    /// A unique snake_case name.
    pub name: &'static str,
    /// The SPEC items it exercises.
    pub covers: &'static str,
    /// Builds a fresh case (fresh models, tools, gates and probes).
    pub build: fn() -> Box<dyn Case>,
}

impl fmt::Debug for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scenario").field("name", &self.name).field("covers", &self.covers).finish()
    }
}

/// Every scenario, in a fixed order.
pub fn all() -> Vec<Scenario> {
    let mut all = basics::scenarios();
    all.extend(control::scenarios());
    all.extend(asynchronous::scenarios());
    all
}

/// The scenario called `name`.
pub fn named(name: &str) -> Scenario {
    all().into_iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no scenario named {name}"))
}

/// A built scenario, ready to run once.
pub trait Case: Send {
    /// Run every step with `driver`.
    fn run(&mut self, driver: Driver) -> Observation;
    /// The expectation of each step, in order.
    fn pins(&self) -> Vec<Pin>;
}

/// Where a step's history comes from.
#[derive(Clone, Debug, Default)]
pub enum History {
    /// No history.
    #[default]
    None,
    /// The previous step's messages (its result's, or its error's partial
    /// evidence — SPEC ERR-04).
    Previous,
    /// Exactly these messages.
    Given(Vec<Message>),
}

/// One run of a case.
#[derive(Clone, Debug)]
pub struct Step {
    /// The prompt (`None`: a resume without a prompt).
    pub prompt: Option<String>,
    /// The history before the prompt.
    pub history: History,
    /// Deferred resolutions: this step resumes a paused run.
    pub resume: Option<DeferredResults>,
    /// Whether and how model turns are streamed.
    pub stream: Streaming,
    /// The caller's cancellation token (a tool or the harness cancels it).
    pub cancel: Option<CancellationToken>,
    /// What the step must end with.
    pub expect: Pin,
}

impl Step {
    /// A fresh run on `prompt`.
    pub fn prompt(prompt: &str, expect: Pin) -> Self {
        Step {
            prompt: Some(prompt.to_string()),
            history: History::None,
            resume: None,
            stream: Streaming::Off,
            cancel: None,
            expect,
        }
    }

    /// A run continuing the previous step's conversation with `prompt`.
    pub fn continued(prompt: &str, expect: Pin) -> Self {
        Step { history: History::Previous, ..Step::prompt(prompt, expect) }
    }

    /// A resume of the previous step's paused run with `results`.
    pub fn resume(results: DeferredResults, expect: Pin) -> Self {
        Step {
            prompt: None,
            history: History::Previous,
            resume: Some(results),
            stream: Streaming::Off,
            cancel: None,
            expect,
        }
    }

    /// Builder-style: the history is exactly `messages`.
    pub fn with_history(mut self, messages: Vec<Message>) -> Self {
        self.history = History::Given(messages);
        self
    }

    /// Builder-style: stream the run's model turns; fragments reach the
    /// observers as delta events.
    pub fn streamed(mut self) -> Self {
        self.stream = Streaming::Events;
        self
    }

    /// Builder-style: stream into a delta callback (`.on_delta`) that records
    /// every fragment.
    pub fn on_delta(mut self) -> Self {
        self.stream = Streaming::Deltas;
        self
    }

    /// Builder-style: stream into a delta callback that fails on fragment
    /// `n` (0-based), stopping the run (SPEC STREAM-02).
    pub fn sink_fails_at(mut self, n: usize) -> Self {
        self.stream = Streaming::FailAt(n);
        self
    }

    /// Builder-style: run with the caller's cancellation `token`.
    pub fn cancellation(mut self, token: &CancellationToken) -> Self {
        self.cancel = Some(token.clone());
        self
    }
}

/// Whether and how a step streams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Streaming {
    /// Not streamed.
    #[default]
    Off,
    /// `.stream(true)`: fragments only as delta events.
    Events,
    /// `.on_delta(..)`: fragments also reach a recording callback.
    Deltas,
    /// `.on_delta(..)` with a callback failing on fragment `n`.
    FailAt(usize),
}

impl Streaming {
    fn fail_at(self) -> Option<usize> {
        match self {
            Streaming::FailAt(n) => Some(n),
            _ => None,
        }
    }
}

/// The error of a delta callback that had enough.
#[derive(Debug)]
pub struct SinkFull(pub usize);

impl fmt::Display for SinkFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the delta callback had enough after fragment {}", self.0)
    }
}

impl std::error::Error for SinkFull {}

/// How a step ended, for pins.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Completed with this output (as JSON).
    Completed(Value),
    /// Paused with these pending approval and external call ids.
    Paused {
        /// Pending approvals, in emission order.
        approvals: Vec<String>,
        /// Pending external calls, in emission order.
        external: Vec<String>,
    },
    /// Failed at this stage.
    Failed(Stage),
    /// A setup error (no stage).
    Setup,
}

/// The expected end of one step. `None` fields are not checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Pin {
    /// How it ends.
    pub end: End,
    /// Messages in the result or in the partial evidence (0 without one).
    pub messages: Option<usize>,
    /// Requests reported.
    pub requests: Option<u64>,
    /// Tool calls reported.
    pub tool_calls: Option<u64>,
    /// A substring of the error's display.
    pub cause: Option<&'static str>,
}

impl Pin {
    fn new(end: End) -> Self {
        Pin { end, messages: None, requests: None, tool_calls: None, cause: None }
    }

    /// Completed with `output`.
    pub fn completed(output: impl Serialize) -> Self {
        Pin::new(End::Completed(serde_json::to_value(output).expect("outputs serialise")))
    }

    /// Paused on these approvals and external calls.
    pub fn paused(approvals: &[&str], external: &[&str]) -> Self {
        let ids = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect();
        Pin::new(End::Paused { approvals: ids(approvals), external: ids(external) })
    }

    /// Failed at `stage`, the error displaying `cause` somewhere.
    pub fn failed(stage: Stage, cause: &'static str) -> Self {
        Pin { cause: Some(cause), ..Pin::new(End::Failed(stage)) }
    }

    /// Builder-style: the message count.
    pub fn messages(mut self, n: usize) -> Self {
        self.messages = Some(n);
        self
    }

    /// Builder-style: the request count.
    pub fn requests(mut self, n: u64) -> Self {
        self.requests = Some(n);
        self
    }

    /// Builder-style: the tool call count.
    pub fn tool_calls(mut self, n: u64) -> Self {
        self.tool_calls = Some(n);
        self
    }

    /// Panic unless `summary` matches; `what` names the step.
    pub fn check(&self, what: &str, summary: &Summary) {
        assert_eq!(summary.end, self.end, "{what}: end ({summary:?})");
        if let Some(n) = self.messages {
            assert_eq!(summary.messages, n, "{what}: messages ({summary:?})");
        }
        if let Some(n) = self.requests {
            assert_eq!(summary.requests, n, "{what}: requests ({summary:?})");
        }
        if let Some(n) = self.tool_calls {
            assert_eq!(summary.tool_calls, n, "{what}: tool calls ({summary:?})");
        }
        if let Some(cause) = self.cause {
            let display = summary.display.as_deref().unwrap_or_default();
            assert!(display.contains(cause), "{what}: cause {cause:?} not in {display:?}");
        }
    }
}

/// The facts of a step's end the pins look at, derived from the outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// How it ended.
    pub end: End,
    /// Messages in the result or the partial evidence.
    pub messages: usize,
    /// Requests.
    pub requests: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// The error's display, when the run failed.
    pub display: Option<String>,
}

/// What one step showed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepRecord {
    /// `{"ok": RunResult}`, `{"run_error": RunError}` or `{"error": display}`
    /// (setup errors and driver faults), as JSON text.
    pub outcome: String,
    /// Every run event, each as JSON text, in delivery order.
    pub events: Vec<String>,
    /// Every fragment the delta callback got, as JSON text, in order.
    pub deltas: Vec<String>,
    /// The facts pins check.
    pub summary: Summary,
}

/// What running a case showed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Observation {
    /// One record per step.
    pub steps: Vec<StepRecord>,
    /// Notes the tools wrote, in order (deterministic by construction).
    pub probe: Vec<String>,
}

/// A case: one agent, its deps and its steps.
pub struct Setup<Deps, O> {
    agent: Agent<Deps, O>,
    deps: Arc<Deps>,
    steps: Vec<Step>,
    gate: Gate,
    probe: Probe,
}

/// Start a case of `agent` with `deps`.
pub fn case<Deps, O>(agent: Agent<Deps, O>, deps: impl Into<Arc<Deps>>) -> Setup<Deps, O> {
    Setup { agent, deps: deps.into(), steps: Vec::new(), gate: Gate::default(), probe: Probe::default() }
}

impl<Deps, O> Setup<Deps, O>
where
    Deps: Send + Sync + 'static,
    O: Serialize + Send + 'static,
{
    /// Builder-style: add a step.
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// Builder-style: the gate the harness opens after every step, releasing
    /// tools that block until the run is over.
    pub fn gate(mut self, gate: &Gate) -> Self {
        self.gate = gate.clone();
        self
    }

    /// Builder-style: the probe the tools write notes to.
    pub fn probe(mut self, probe: &Probe) -> Self {
        self.probe = probe.clone();
        self
    }

    /// The finished case.
    pub fn boxed(self) -> Box<dyn Case> {
        Box::new(self)
    }
}

impl<Deps, O> Case for Setup<Deps, O>
where
    Deps: Send + Sync + 'static,
    O: Serialize + Send + 'static,
{
    fn run(&mut self, driver: Driver) -> Observation {
        let mut steps = Vec::new();
        let mut previous: Vec<Message> = Vec::new();
        for (index, step) in self.steps.iter().enumerate() {
            let events = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&events);
            let mut run = self.agent.run_with(Arc::clone(&self.deps)).observer(move |e: &RunEvent| {
                let json = serde_json::to_string(e).expect("events serialise");
                sink.lock().unwrap_or_else(|p| p.into_inner()).push(json);
            });
            // Ids are pinned so every driver's result and events compare
            // byte for byte. A continuation inherits its conversation from
            // the previous step's messages (SPEC EXTRA-01), so each driver
            // exercises that default too.
            run = run.run_id(format!("run-{index}"));
            let inherits =
                matches!(step.history, History::Previous) && previous.iter().any(|m| !m.conversation_id.is_empty());
            if !inherits {
                run = run.conversation_id("conversation-1");
            }
            if let Some(prompt) = &step.prompt {
                run = run.prompt(prompt.clone());
            }
            match &step.history {
                History::None => {}
                History::Previous => run = run.history(previous.clone()),
                History::Given(messages) => run = run.history(messages.clone()),
            }
            if let Some(results) = &step.resume {
                run = run.resume(results.clone());
            }
            let deltas = Arc::new(Mutex::new(Vec::new()));
            match step.stream {
                Streaming::Off => {}
                Streaming::Events => run = run.stream(true),
                Streaming::Deltas | Streaming::FailAt(_) => {
                    let (sink, fail_at) = (Arc::clone(&deltas), step.stream.fail_at());
                    run = run.on_delta(move |d| {
                        let mut deltas = sink.lock().unwrap_or_else(|p| p.into_inner());
                        deltas.push(serde_json::to_string(d.delta).expect("deltas serialise"));
                        if Some(deltas.len() - 1) == fail_at {
                            return Err(Box::new(SinkFull(deltas.len() - 1)));
                        }
                        Ok(())
                    });
                }
            }
            if let Some(token) = &step.cancel {
                run = run.cancellation(token.clone());
            }
            let result = call(driver, run);
            // Tools stuck until the run is over may go now; their answers
            // find the run gone.
            self.gate.open();
            let events = events.lock().unwrap_or_else(|p| p.into_inner()).clone();
            let deltas = deltas.lock().unwrap_or_else(|p| p.into_inner()).clone();
            let (record, messages) = record(result, events, deltas);
            previous = messages;
            steps.push(record);
        }
        Observation { steps, probe: self.probe.take() }
    }

    fn pins(&self) -> Vec<Pin> {
        self.steps.iter().map(|s| s.expect.clone()).collect()
    }
}

/// A step's record and the messages a following step continues from.
fn record<O: Serialize>(
    result: Result<RunOutcome<O>, Error>,
    events: Vec<String>,
    deltas: Vec<String>,
) -> (StepRecord, Vec<Message>) {
    let (outcome, summary, messages) = match &result {
        Ok(RunOutcome::Completed(result)) => {
            let end = End::Completed(serde_json::to_value(&result.output).expect("serialise"));
            let summary = Summary {
                end,
                messages: result.messages.len(),
                requests: result.requests,
                tool_calls: result.tool_calls,
                display: None,
            };
            (json_of("ok", result), summary, result.messages.clone())
        }
        Ok(RunOutcome::Paused(paused)) => {
            let deferred = &paused.deferred;
            let end = End::Paused {
                approvals: deferred.approvals.iter().map(|p| p.call_id.clone()).collect(),
                external: deferred.external.iter().map(|p| p.call_id.clone()).collect(),
            };
            let summary = Summary {
                end,
                messages: paused.messages.len(),
                requests: paused.requests,
                tool_calls: paused.tool_calls,
                display: None,
            };
            (json_of("paused", paused), summary, paused.messages.clone())
        }
        Err(Error::Run(error)) => {
            let partial = error.partial.as_ref();
            let summary = Summary {
                end: End::Failed(error.stage),
                messages: partial.map_or(0, |p| p.messages.len()),
                requests: error.requests,
                tool_calls: partial.map_or(0, |p| p.tool_calls),
                display: Some(error.to_string()),
            };
            let messages = partial.map(|p| p.messages.clone()).unwrap_or_default();
            (json_of("run_error", error), summary, messages)
        }
        Err(other) => {
            let summary =
                Summary { end: End::Setup, messages: 0, requests: 0, tool_calls: 0, display: Some(other.to_string()) };
            (json_of("error", &other.to_string()), summary, Vec::new())
        }
    };
    (StepRecord { outcome, events, deltas, summary }, messages)
}

fn json_of(tag: &str, value: &impl Serialize) -> String {
    // Serialised directly (not through `Value`), so field order is the
    // types' own and the comparison is truly byte for byte.
    let value = serde_json::to_string(value).expect("outcomes serialise");
    format!("{{\"{tag}\":{value}}}")
}

/// Run `scenario` with `driver` and check its pins.
pub fn run_checked(scenario: &Scenario, driver: Driver) -> Observation {
    let mut case = (scenario.build)();
    let observation = case.run(driver);
    let pins = case.pins();
    assert_eq!(observation.steps.len(), pins.len(), "{}: one pin per step", scenario.name);
    for (i, (pin, step)) in pins.iter().zip(&observation.steps).enumerate() {
        pin.check(&format!("{} step {i} ({driver:?})", scenario.name), &step.summary);
    }
    observation
}

/// Resolutions approving `approve`, denying `deny` (with a reason) and
/// answering each `(id, text)` external call.
pub fn resolutions(approve: &[&str], deny: &[(&str, &str)], external: &[(&str, &str)]) -> DeferredResults {
    let mut results = DeferredResults::new();
    for id in approve {
        results = results.approval(*id, Approval::approve());
    }
    for (id, reason) in deny {
        results = results.approval(*id, Approval::deny(*reason));
    }
    for (id, text) in external {
        results = results.external(*id, *text);
    }
    results
}

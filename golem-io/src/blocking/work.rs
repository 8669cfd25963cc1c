//! Executing the machine's commands: what runs where, and collecting the
//! answers in the order they become available.
//!
//! Placement (SPEC DRV-02): a lone call without a deadline runs on the
//! calling thread; calls with a deadline, streamed calls and calls of a
//! parallel group run on their own threads and report through a channel, so
//! the driver can stop waiting at a deadline. An abandoned thread keeps its
//! own `Arc` of the deps; its late answer is forwarded (the machine reports
//! it as a late result) or dropped once the run is over.

use super::execute::{call_model, call_tool, ForwardDeltas};
use super::kept::Kept;
use crate::clock::Clock;
use crate::context::{CancellationToken, ToolContext};
use crate::decode::Decoder;
use crate::result::RunResult;
use crate::tool::Tool;
use crate::Error;
use golem_core::error::CancelReason;
use golem_core::machine::{CancelMode, Command, DecodeId, Input, ModelCallId, Outcome, ToolCallId, ToolOutcome};
use golem_core::model::BoxError;
use golem_core::{CauseRecord, Model, ModelError, Moment, Request, Response, ToolCall};
use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;

/// One unit of commanded work, not yet started.
enum Work {
    Model { id: ModelCallId, member: u32, request: Request, deadline: Option<Moment>, stream: bool },
    Tool { id: ToolCallId, call: ToolCall, deadline: Option<Moment>, approved: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum WorkId {
    Model(ModelCallId),
    Tool(ToolCallId),
}

impl Work {
    fn id(&self) -> WorkId {
        match self {
            Work::Model { id, .. } => WorkId::Model(*id),
            Work::Tool { id, .. } => WorkId::Tool(*id),
        }
    }

    /// Whether the driver must be free to stop waiting for it.
    fn needs_thread(&self) -> bool {
        match self {
            Work::Model { deadline, stream, .. } => deadline.is_some() || *stream,
            Work::Tool { deadline, .. } => deadline.is_some(),
        }
    }
}

/// What a thread sends back: an input for the machine, whether it is the
/// final answer for its work, and a fatal error to keep.
struct Report {
    /// `None` for the run's own cancellation.
    id: Option<WorkId>,
    input: Input,
    last: bool,
    error: Option<BoxError>,
}

pub(crate) struct Executor<Deps, O> {
    models: Arc<[Arc<dyn Model>]>,
    tools: Arc<[Tool<Deps>]>,
    deps: Arc<Deps>,
    clock: Arc<dyn Clock>,
    /// Commanded, not started, in command order.
    pending: VecDeque<Work>,
    /// `ToolStarted` was fed; the body runs next (write-ahead, SPEC LOG-06).
    starting: Option<Work>,
    /// Answers ready to feed, in the order they became available.
    ready: VecDeque<Input>,
    /// Work on threads the run still waits for.
    in_flight: BTreeMap<WorkId, CancellationToken>,
    tx: Sender<Report>,
    rx: Receiver<Report>,
    kept: Kept<O>,
    cancel: Option<CancelGuard>,
}

impl<Deps: Send + Sync + 'static, O> Executor<Deps, O> {
    pub(crate) fn new(
        models: Arc<[Arc<dyn Model>]>,
        tools: Arc<[Tool<Deps>]>,
        deps: Arc<Deps>,
        clock: Arc<dyn Clock>,
        cancel: Option<CancellationToken>,
    ) -> Self {
        let (tx, rx) = channel();
        // The caller's cancellation wakes the driver like any answer would,
        // so it takes effect even while the driver is blocked waiting; one
        // that came first is fed before any work starts.
        let mut ready = VecDeque::new();
        let cancel = cancel.and_then(|token| {
            if token.is_cancelled() {
                ready.push_back(caller_cancel());
                return None;
            }
            let tx = tx.clone();
            let key = token.on_cancel(move || {
                let _ = tx.send(Report { id: None, input: caller_cancel(), last: false, error: None });
            });
            Some(CancelGuard(token, key))
        });
        Executor {
            models,
            tools,
            deps,
            clock,
            pending: VecDeque::new(),
            starting: None,
            ready,
            in_flight: BTreeMap::new(),
            tx,
            rx,
            kept: Kept::new(),
            cancel,
        }
    }

    /// Take a command; nothing runs until the machine waits.
    pub(crate) fn accept(&mut self, command: Command) {
        match command {
            Command::CallModel { id, member, request, deadline, stream } => {
                self.pending.push_back(Work::Model { id, member, request, deadline, stream })
            }
            Command::ExecuteTool { id, call, deadline, approved } => {
                self.pending.push_back(Work::Tool { id, call, deadline, approved })
            }
            Command::CancelModel { id } => self.cancel(WorkId::Model(id)),
            Command::CancelTool { id } => self.cancel(WorkId::Tool(id)),
            // Decode is answered by `decode`; a command this driver does not
            // know cannot be executed, and the machine's deadlines end a run
            // that waits for it.
            _ => {}
        }
    }

    /// Cancelled work is never answered: unstarted work is dropped, running
    /// work is signalled and abandoned.
    fn cancel(&mut self, id: WorkId) {
        self.pending.retain(|w| w.id() != id);
        if self.starting.as_ref().is_some_and(|w| w.id() == id) {
            self.starting = None;
        }
        if let Some(token) = self.in_flight.remove(&id) {
            token.cancel();
        }
    }

    /// Run the decoder now (it is application code, but quick and local)
    /// and queue its verdict.
    pub(crate) fn decode(&mut self, decoder: &dyn Decoder<O>, id: DecodeId, response: &Response) {
        let verdict = self.kept.decode(decoder, id, response);
        self.ready.push_back(Input::Decoded { id, verdict });
    }

    /// The run's result from the machine's outcome.
    pub(crate) fn finish(self, outcome: Option<&Outcome>) -> Result<RunResult<O>, Error> {
        self.kept.finish(outcome)
    }

    /// The next input for the machine: a ready answer, the start of the next
    /// tool, or whatever arrives before `deadline` (else a `Tick`).
    pub(crate) fn next_input(&mut self, deadline: Option<Moment>) -> Result<Input, Error> {
        loop {
            if let Some(work) = self.starting.take() {
                self.launch(work);
            }
            if let Some(input) = self.ready.pop_front() {
                return Ok(input);
            }
            let Some(work) = self.pending.pop_front() else { return self.wait(deadline) };
            match work.id() {
                // The ledger hears of a tool before its body runs (SPEC LOG-06).
                WorkId::Tool(id) => {
                    self.starting = Some(work);
                    return Ok(Input::ToolStarted { id });
                }
                WorkId::Model(_) => self.launch(work),
            }
        }
    }

    fn wait(&mut self, deadline: Option<Moment>) -> Result<Input, Error> {
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
        if let Some(id) = report.id.filter(|_| report.last) {
            self.in_flight.remove(&id);
        }
        self.keep(&report.input, report.error);
        Ok(report.input)
    }

    fn launch(&mut self, work: Work) {
        let alone = self.pending.is_empty() && self.in_flight.is_empty();
        if alone && !work.needs_thread() {
            // A lone call has no machine-side cancel; it hears the caller's.
            let token = self.cancel.as_ref().map_or_else(CancellationToken::new, |g| g.0.clone());
            let report = self.job(token).run(work, None);
            self.keep(&report.input, report.error);
            self.ready.push_back(report.input);
            return;
        }
        let id = work.id();
        let token = CancellationToken::new();
        self.in_flight.insert(id, token.clone());
        let job = self.job(token);
        let tx = self.tx.clone();
        let spawned = std::thread::Builder::new().name("golem-work".into()).spawn(move || {
            let report = job.run(work, Some(&tx));
            // The run may be over and the receiver gone: nobody wants it.
            let _ = tx.send(report);
        });
        if let Err(e) = spawned {
            self.in_flight.remove(&id);
            self.ready.push_back(spawn_failure(id, &e));
        }
    }

    /// Keep a tool's error object for `RunError::source`, keyed by the
    /// machine id its failure will quote.
    fn keep(&mut self, input: &Input, error: Option<BoxError>) {
        if let (Input::ToolFinished { id, .. }, Some(error)) = (input, error) {
            self.kept.tool_error(*id, error);
        }
    }

    /// What a unit of work needs, owned so it can move to a thread.
    fn job(&self, token: CancellationToken) -> Job<Deps> {
        Job {
            models: Arc::clone(&self.models),
            tools: Arc::clone(&self.tools),
            deps: Arc::clone(&self.deps),
            clock: Arc::clone(&self.clock),
            token,
        }
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

/// Everything one unit of work needs, owned so it can move to a thread.
struct Job<Deps> {
    models: Arc<[Arc<dyn Model>]>,
    tools: Arc<[Tool<Deps>]>,
    deps: Arc<Deps>,
    clock: Arc<dyn Clock>,
    token: CancellationToken,
}

impl<Deps> Job<Deps> {
    /// Run `work`; with `tx`, stream fragments through it as they arrive.
    fn run(&self, work: Work, tx: Option<&Sender<Report>>) -> Report {
        match work {
            Work::Model { id, member, request, stream, .. } => {
                let result = match usize::try_from(member).ok().and_then(|m| self.models.get(m)) {
                    None => Err(ModelError::other(format!("no model at fallback position {member}"))),
                    Some(model) => match tx.filter(|_| stream) {
                        None => call_model(model.as_ref(), &request, None),
                        Some(tx) => {
                            let mut sink = ForwardDeltas(|delta| {
                                let input = Input::ModelDelta { id, delta };
                                tx.send(Report { id: Some(WorkId::Model(id)), input, last: false, error: None }).is_ok()
                            });
                            call_model(model.as_ref(), &request, Some(&mut sink))
                        }
                    },
                };
                Report {
                    id: Some(WorkId::Model(id)),
                    input: Input::ModelFinished { id, result },
                    last: true,
                    error: None,
                }
            }
            Work::Tool { id, call, deadline, approved } => {
                let ctx = ToolContext {
                    deps: Arc::clone(&self.deps),
                    call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    deadline,
                    cancel: self.token.clone(),
                    approved,
                    clock: Arc::clone(&self.clock),
                };
                let (outcome, error) = call_tool(&self.tools, &ctx, &call);
                Report { id: Some(WorkId::Tool(id)), input: Input::ToolFinished { id, outcome }, last: true, error }
            }
        }
    }
}

fn caller_cancel() -> Input {
    Input::Cancel { reason: CancelReason::Caller, mode: CancelMode::Immediate }
}

/// The answer for work whose thread could not be started.
fn spawn_failure(id: WorkId, e: &std::io::Error) -> Input {
    let message = format!("could not start a thread: {e}");
    match id {
        WorkId::Model(id) => Input::ModelFinished { id, result: Err(ModelError::other(message)) },
        WorkId::Tool(id) => {
            Input::ToolFinished { id, outcome: ToolOutcome::Fatal { cause: CauseRecord::new("spawn", message) } }
        }
    }
}

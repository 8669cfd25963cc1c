//! Starting runs: the entry points and the run builder (SPEC RUN-01,
//! RUN-02, CFG-05). The preamble that needs application code — history
//! processor, dynamic instructions — runs here, before the machine exists;
//! then one of the two drivers takes over.

use crate::agent::{Agent, Observer};
#[cfg(feature = "async")]
use crate::drive::asynchronous;
#[cfg(feature = "blocking")]
use crate::drive::blocking;
use crate::drive::dispatch::{DeltaCallback, LogOut, Observers, Origin, RunSetup};
use crate::results::result::{RunOutcome, RunResult};
use crate::results::stream_delta::StreamDelta;
use crate::run::cancel::CancellationToken;
use crate::run::clock::{Clock, ShiftedClock, SystemClock};
use crate::run::contain::contain;
use crate::run::context::RunContext;
use crate::run::ids::RunIds;
use crate::tool::progress::{ToolProgress, ToolProgressObserver};
use crate::tool::sub_run_event::{SubRunEvent, SubRunObserver, SubRunSink};
use crate::Error;
use golem_core::machine::{AppError, Prompt, SetupError, Start};
use golem_core::model::BoxError;
use golem_core::Id;
use golem_core::{DeferredResults, Message, Part, RunEvent, UsageLimits};
use std::fmt;
use std::sync::Arc;

impl<Deps: Send + Sync + 'static, O: 'static> Agent<Deps, O> {
    /// Run the agent on `prompt` with `deps`, blocking until it ends. A run
    /// that pauses on deferred tool calls is [`Error::Paused`]; agents whose
    /// tools defer run with [`RunBuilder::call_pausable`].
    #[cfg(feature = "blocking")]
    pub fn run(&self, deps: impl Into<Arc<Deps>>, prompt: &str) -> Result<RunResult<O>, Error> {
        self.run_with(deps).prompt(prompt).call()
    }

    /// Continue a conversation: `history` (typically an earlier result's
    /// messages) goes before the new prompt. History system messages are
    /// replaced by this run's instructions.
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, Role};
    /// use golem_io::Agent;
    ///
    /// // Answers with the last user prompt it has seen.
    /// struct ConversationModel;
    /// impl Model for ConversationModel {
    ///     fn generate(&self, request: &Request) -> Result<Response, ModelError> {
    ///         let last = request.messages.iter().filter(|m| m.role == Role::User).last();
    ///         Ok(Response::text(format!("heard: {}", last.map(|m| m.content.as_str()).unwrap_or(""))))
    ///     }
    /// }
    ///
    /// let agent = Agent::<()>::builder(ConversationModel).build()?;
    /// let first = agent.run((), "hello")?;
    /// let second = agent.run_with_history((), first.messages.clone(), "goodbye")?;
    /// println!("{}", first.output);
    /// println!("{}", second.output);
    /// println!("{} messages in the chained conversation", second.messages.len());
    /// assert_eq!(first.output, "heard: hello");
    /// assert_eq!(second.output, "heard: goodbye");
    /// assert_eq!(second.messages.len(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "blocking")]
    pub fn run_with_history(
        &self,
        deps: impl Into<Arc<Deps>>,
        history: Vec<Message>,
        prompt: &str,
    ) -> Result<RunResult<O>, Error> {
        self.run_with(deps).history(history).prompt(prompt).call()
    }

    /// Resume a paused run: `history` is its messages, `results` resolves
    /// every pending call. Approved calls run again with the approved
    /// marker; the resumed run is a new run and may pause again — then this
    /// returns [`Error::Paused`] (use [`RunBuilder::call_pausable`] to take
    /// that as an outcome).
    #[cfg(feature = "blocking")]
    pub fn resume(
        &self,
        deps: impl Into<Arc<Deps>>,
        history: Vec<Message>,
        results: DeferredResults,
    ) -> Result<RunResult<O>, Error> {
        self.run_with(deps).history(history).resume(results).call()
    }

    /// A streamed run: `on_delta` receives every fragment of every model
    /// turn — text, tool-call arguments, thinking — in arrival action, across
    /// tool turns and correction rounds, each with its turn and round
    /// ([`StreamDelta`]); the result is the same as a plain run's. An error
    /// from `on_delta` stops the run at the model stage with that error in
    /// the `source()` chain. A model chain that cannot stream — one that does
    /// not implement [`StreamingModel`](golem_core::StreamingModel) — is a
    /// setup error, before any request (SPEC STREAM-01..03).
    ///
    /// The reference's `RunStream` example, with a model written by hand:
    ///
    /// ```
    /// use golem_core::{Delta, DeltaSink, ModelError, Request, Response, StreamingModel};
    /// use golem_io::Agent;
    ///
    /// // Streams its answer as two fragments.
    /// struct MorningModel;
    /// impl StreamingModel for MorningModel {
    ///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
    ///         Ok(Response::text("good morning"))
    ///     }
    ///
    ///     fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
    ///         for fragment in ["good ", "morning"] {
    ///             sink.delta(Delta::text(fragment)).map_err(ModelError::sink_aborted)?;
    ///         }
    ///         Ok(Response::text("good morning"))
    ///     }
    /// }
    ///
    /// let agent = Agent::<()>::builder(MorningModel).build()?;
    /// let mut fragments = Vec::new();
    /// let result = agent.run_stream((), "greet me", |d| {
    ///     fragments.extend(d.text().map(str::to_string));
    ///     Ok(())
    /// })?;
    /// let printed = format!("{}\n{}", fragments.join("|"), result.output);
    /// println!("{printed}");
    /// assert_eq!(printed, "good |morning\ngood morning");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "blocking")]
    pub fn run_stream(
        &self,
        deps: impl Into<Arc<Deps>>,
        prompt: &str,
        on_delta: impl FnMut(StreamDelta<'_>) -> Result<(), BoxError> + Send,
    ) -> Result<RunResult<O>, Error> {
        self.run_with(deps).prompt(prompt).on_delta(on_delta).call()
    }

    /// A run with every option: history, prompt parts, a run-scoped
    /// observer, deferred resolutions, streaming, cancellation, a clock.
    pub fn run_with(&self, deps: impl Into<Arc<Deps>>) -> RunBuilder<'_, Deps, O> {
        RunBuilder {
            agent: self,
            deps: deps.into(),
            prompt: String::new(),
            parts: Vec::new(),
            history: Vec::new(),
            stream: false,
            on_delta: None,
            observers: Vec::new(),
            cancel: None,
            rare: None,
        }
    }
}

/// One run's options; [`call`](Self::call) runs it on the blocking driver,
/// [`call_async`](Self::call_async) on the async one. See
/// [`Agent::run_with`].
pub struct RunBuilder<'a, Deps, O> {
    agent: &'a Agent<Deps, O>,
    deps: Arc<Deps>,
    prompt: String,
    parts: Vec<Part>,
    history: Vec<Message>,
    stream: bool,
    on_delta: Option<DeltaCallback<'a>>,
    observers: Vec<Observer>,
    cancel: Option<CancellationToken>,
    /// The options most runs never set, boxed on the first one set: the
    /// builder is what an unpolled `call_async` future holds, and a run's
    /// size counts when thousands are in flight (issue 37).
    rare: Option<Box<Rare<'a>>>,
}

/// A run's less common options (see `RunBuilder::rare`).
#[derive(Default)]
struct Rare<'a> {
    resume: Option<DeferredResults>,
    /// Hearers of delegated sub-runs' events (SPEC DELEG-04).
    sub_observers: Vec<SubRunObserver>,
    progress_observers: Vec<ToolProgressObserver>,
    clock: Option<Arc<dyn Clock>>,
    log: Option<LogOut<'a>>,
    /// A crashed run to continue instead of a fresh start.
    continued: Option<Continued>,
    /// The caller's run id; minted when `None` (SPEC EXTRA-01).
    run_id: Option<String>,
    /// The caller's conversation id; else the history's newest, else minted.
    conversation_id: Option<String>,
    /// Bounds this run keeps within beside its agent's limits.
    limits: Option<UsageLimits>,
}

/// A crashed run replayed from its log, ready to go on.
struct Continued {
    machine: Box<golem_core::RunMachine>,
    header: Box<golem_core::log::LogHeader>,
    last_at: golem_core::Moment,
    /// The log has its end marker.
    marked: bool,
    /// A completed run's accepted answer, to decode again.
    answer: Option<Box<(golem_core::machine::DecodeId, golem_core::Response)>>,
}

impl<Deps, O> fmt::Debug for RunBuilder<'_, Deps, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunBuilder")
            .field("prompt", &self.prompt)
            .field("parts", &self.parts.len())
            .field("history", &self.history.len())
            .field("resume", &self.rare.as_ref().and_then(|rare| rare.resume.as_ref()))
            .finish_non_exhaustive()
    }
}

impl<'a, Deps: Send + Sync + 'static, O: 'static> RunBuilder<'a, Deps, O> {
    /// The user's prompt text.
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self
    }

    /// This run's id instead of a freshly minted UUIDv7 (SPEC EXTRA-01) —
    /// e.g. the id of the job or request the run serves. It is stamped on
    /// every message the run adds and on every event, recorded in the log
    /// header, and the base of each tool call's
    /// [idempotency key](crate::ToolContext::idempotency_key), so it should
    /// be unique per run. An empty id means "mint one". Ignored by
    /// [`continue_log`](Self::continue_log), which continues the logged run
    /// under its own id.
    pub fn run_id(mut self, run_id: impl Into<String>) -> Self {
        self.rare().run_id = Some(run_id.into()).filter(|id| !id.is_empty());
        self
    }

    /// The conversation this run belongs to (SPEC EXTRA-01). Without it, a
    /// run continues the conversation of its history — the newest message
    /// that carries a conversation id — and a run with none there opens a
    /// new one under a freshly minted UUIDv7. An empty id means "choose as
    /// without it". Ignored by [`continue_log`](Self::continue_log).
    pub fn conversation_id(mut self, conversation_id: impl Into<String>) -> Self {
        self.rare().conversation_id = Some(conversation_id.into()).filter(|id| !id.is_empty());
        self
    }

    /// Parts (images, documents, …) after the prompt text; malformed parts
    /// are a setup error.
    pub fn prompt_parts(mut self, parts: impl IntoIterator<Item = Part>) -> Self {
        self.parts.extend(parts);
        self
    }

    /// The earlier conversation, before the prompt.
    pub fn history(mut self, history: Vec<Message>) -> Self {
        self.history = history;
        self
    }

    /// Resolutions of the paused run whose messages are the history; the
    /// prompt is optional on a resume.
    pub fn resume(mut self, results: DeferredResults) -> Self {
        self.rare().resume = Some(results);
        self
    }

    /// Keep this run within `limits` as well as within its agent's
    /// [`usage_limits`](crate::AgentBuilder::usage_limits): each dimension is
    /// bounded by the tighter of the two. A delegation gives its sub-run
    /// what the delegating run's limits left ([`ToolContext::usage_left`](crate::ToolContext::usage_left)),
    /// so one budget bounds the whole tree.
    pub fn usage_limits(mut self, limits: UsageLimits) -> Self {
        let rare = self.rare();
        rare.limits = Some(rare.limits.map_or(limits, |set| set.within(&limits)));
        self
    }

    /// Stream model turns: fragments reach the observers as
    /// [`EventKind::Delta`](golem_core::EventKind::Delta) events as they
    /// arrive; the result is the same as without streaming. A model chain
    /// that cannot stream is a setup error, never a silent fallback.
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Stream the run into `on_delta` (and turn streaming on): every
    /// fragment, with its turn and round ([`StreamDelta`]), in arrival
    /// action, interleaved with the run's events as the observers see them.
    /// Its error stops the run at the model stage, the error kept in the
    /// `source()` chain (SPEC STREAM-02). See [`Agent::run_stream`].
    pub fn on_delta(mut self, on_delta: impl FnMut(StreamDelta<'_>) -> Result<(), BoxError> + Send + 'a) -> Self {
        self.stream = true;
        self.on_delta = Some(Box::new(on_delta));
        self
    }

    /// Observe this run's events, after the agent's observers.
    pub fn observer(mut self, observer: impl Fn(&RunEvent) + Send + Sync + 'static) -> Self {
        self.observers.push(Arc::new(observer));
        self
    }

    /// Hear the events of this run's delegated sub-runs (SPEC DELEG-04):
    /// every event of a sub-run started by a delegation tool built with
    /// [`forward_events(true)`](crate::Delegation::forward_events), tagged
    /// with the delegating call ([`SubRunEvent::call_id`]), in the sub-run's
    /// own order. Sub-runs of such tools forward their own sub-runs' events
    /// in turn, so nested delegations arrive with the whole path of calls.
    ///
    /// Forwarded events stay out of this run: they are not run events, take
    /// no `seq` of its sequence, are not recorded in its log and do not
    /// reach its [`observer`](Self::observer)s or event stream. Like
    /// observers, the callback is called synchronously (under the blocking
    /// driver, on the delegation tool's thread — so parallel sub-runs may
    /// call it concurrently, each in its own order), cannot fail or change
    /// either run, and must not block.
    pub fn on_sub_run_event(mut self, observer: impl Fn(&SubRunEvent) + Send + Sync + 'static) -> Self {
        self.rare().sub_observers.push(Arc::new(observer));
        self
    }

    /// Hear the progress tools report while they run (SPEC MCP-16): MCP
    /// tools bridged with `mcp::BridgeOptions::progress` (feature `mcp`),
    /// or any tool calling [`ToolContext::report_progress`](crate::ToolContext::report_progress).
    /// Each report names its call ([`ToolProgress::call_id`]), so a UI can
    /// show it under the call's `tool_start`.
    ///
    /// Like forwarded sub-run events, progress stays out of the run: no run
    /// event, no `seq`, nothing in the log. The callback is called on the
    /// tool's thread, may be called concurrently for parallel calls, cannot
    /// fail the run, and must not block.
    pub fn on_tool_progress(mut self, observer: impl Fn(&ToolProgress) + Send + Sync + 'static) -> Self {
        self.rare().progress_observers.push(Arc::new(observer));
        self
    }

    /// The clock stamping this run's inputs (default: a fresh
    /// [`SystemClock`]).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.rare().clock = Some(clock);
        self
    }

    /// One attached image the provider fetches from `url`.
    pub fn image_url(mut self, url: &str) -> Self {
        self.parts.push(Part::image_url(url));
        self
    }

    /// One attached inline image, e.g. `image/png` bytes.
    pub fn image_data(mut self, media_type: &str, data: Vec<u8>) -> Self {
        self.parts.push(Part::image_data(media_type, data));
        self
    }

    /// Stop the run when `token` is canceled: in-flight work is canceled
    /// and the run fails with a canceled cause ([`Error::is_canceled`]),
    /// keeping its partial evidence. Cancelling before the run starts stops
    /// it before its first model call.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Record the run to `out` as an event log (SPEC LOG-01): a header, then
    /// one JSON line per input, each flushed before the driver acts on it.
    /// Replay it with [`golem_core::log::replay`]; resume it with
    /// [`RunBuilder::continue_log`] or [`RunBuilder::resume_log`]. When
    /// continuing a log, `out` receives the new records only: open the file
    /// with [`LogFile::open_for_continue`](crate::LogFile::open_for_continue),
    /// which cuts off a tail the crash tore first. A write error stops the
    /// run with [`Error::Record`]. To survive crashes, record to a
    /// [`LogFile`](crate::LogFile).
    pub fn record(mut self, out: impl std::io::Write + Send + 'a) -> Self {
        self.rare().log = Some(Box::new(out));
        self
    }

    /// Continue the crashed run `log` recorded with this agent's live model
    /// and tools (SPEC LOG-05): the log is replayed, then the run goes on —
    /// the same run, with its counters and budgets. Model calls and decodes
    /// in flight at the crash are issued again; tool calls that never
    /// started run; one that started has an unknown outcome and follows its
    /// tool's [`UnknownOutcome`](golem_core::tool::UnknownOutcome) policy.
    /// Nothing that completed runs twice. The agent's configuration must be
    /// the log's. Prompt, history, resolutions and ids set on this builder
    /// are ignored: the log holds the run's start, and the run keeps the run
    /// and conversation ids of its header, so tool calls redone after the
    /// crash see the [idempotency keys](crate::ToolContext::idempotency_key)
    /// of their first attempt.
    ///
    /// A run that had reached its outcome when the process died — its end
    /// marker written or not — runs nothing: the call writes a missing end
    /// marker and returns the recorded outcome, a completed run's typed
    /// output decoded again from the recorded answer (the decoder must
    /// accept it again, as decoders that depend only on the response do).
    /// So continuing is the one step after any crash. Read the log with
    /// [`LogFile::open_for_continue`](crate::LogFile::open_for_continue),
    /// which also cuts off a tail the crash tore, before appending to it.
    pub fn continue_log(mut self, log: &golem_core::log::EventLog) -> Result<Self, Error> {
        if &log.header.config != self.agent.inner.config.config() {
            return Err(Error::NotResumable("the agent's configuration differs from the log's".into()));
        }
        let replay = golem_core::log::replay(log)?;
        let answer = accepted_answer(&replay).map(Box::new);
        self.stream = log.header.start.stream;
        self.rare().continued = Some(Continued {
            machine: Box::new(replay.machine),
            header: Box::new(log.header.clone()),
            last_at: replay.last_at,
            marked: log.end.is_some(),
            answer,
        });
        Ok(self)
    }

    /// Resume the paused run `log` recorded, with `results` resolving its
    /// deferred calls (SPEC LOG-04): a new run on the paused conversation —
    /// a new run id, the conversation id of the log's header (unless
    /// [`conversation_id`](Self::conversation_id) says otherwise).
    /// Fails closed (SPEC DEFER-06): every resolution must name a call the
    /// logged run deferred and still holds at its pause, approvals only for
    /// approval requests and external results only for external ones.
    ///
    /// This reads a log already in memory, so it cannot know whether another
    /// process resumed the same pause: resume a log file with
    /// [`resume_log_file`](Self::resume_log_file), which makes the pause
    /// single-use across processes (SPEC PAUSE-01). Either way an approved
    /// call's [idempotency key](crate::ToolContext::idempotency_key) names
    /// the paused run and the call, so a tool can refuse a second execution.
    pub fn resume_log(
        mut self,
        log: &golem_core::log::EventLog,
        results: golem_core::DeferredResults,
    ) -> Result<Self, Error> {
        let replay = golem_core::log::replay(log)?;
        let Some(golem_core::machine::Outcome::Paused { summary, deferred }) = replay.machine.outcome() else {
            return Err(Error::NotResumable("the logged run did not pause on deferred calls".into()));
        };
        deferred.admits(&results).map_err(SetupError::Resolution)?;
        let history = summary.messages.clone();
        let rare = self.rare();
        if rare.conversation_id.is_none() && !log.header.conversation_id.is_empty() {
            rare.conversation_id = Some(log.header.conversation_id.clone());
        }
        Ok(self.history(history).resume(results))
    }

    /// Resume the paused run whose log is the file at `path`, once (SPEC
    /// LOG-04, PAUSE-01): as [`resume_log`](Self::resume_log), after
    /// claiming the pause. The claim is a file created beside the log
    /// (`<path>.resumed`, naming the resuming run) with an exclusive create,
    /// which the operating system makes atomic: of any number of resumes of
    /// one log — in this process or others, racing or years apart — exactly
    /// one goes on; every other is [`Error::AlreadyResumed`] and runs
    /// nothing. The resolutions are checked first, so a refused one uses up
    /// nothing. The claim is on disk before the run starts: a crash after
    /// it loses the resumption rather than allow a second (continue the
    /// resuming run's own log instead, [`continue_log`](Self::continue_log)).
    ///
    /// Approved calls are keyed by the paused run either way
    /// ([`ToolContext::idempotency_key`](crate::ToolContext::idempotency_key)).
    ///
    /// ```
    /// use golem_core::testing::ScriptedModel;
    /// use golem_core::{Approval, DeferredResults};
    /// use golem_io::{Agent, Error, LogFile, RunOutcome, Tool, ToolError};
    /// use serde_json::json;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("paused.jsonl");
    /// let model = ScriptedModel::new().tool_call("refund", "{}").text("refunded");
    /// let refund = Tool::new("refund", "Refund the order.", json!({"type": "object"}), |ctx, _args| {
    ///     if !ctx.is_approved() {
    ///         return Err(ToolError::approval("refunds need a human"));
    ///     }
    ///     Ok("done")
    /// });
    /// let agent = Agent::<()>::builder(model).tool(refund).build()?;
    /// let outcome = agent.run_with(()).prompt("refund it").record(LogFile::create(&path)?).call_pausable()?;
    /// let RunOutcome::Paused(paused) = outcome else { panic!("the refund waits for approval") };
    /// let call_id = paused.deferred.approvals[0].call_id.clone();
    /// let approved = DeferredResults::new().approval(call_id, Approval::approve());
    ///
    /// let done = agent.run_with(()).resume_log_file(&path, approved.clone())?.call()?;
    /// assert_eq!(done.output, "refunded");
    /// // The same approval again: refused, and nothing runs.
    /// let again = agent.run_with(()).resume_log_file(&path, approved);
    /// assert!(matches!(again, Err(Error::AlreadyResumed { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resume_log_file(
        mut self,
        path: impl AsRef<std::path::Path>,
        results: golem_core::DeferredResults,
    ) -> Result<Self, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::Record(format!("{}: {e}", path.display())))?;
        let log = golem_core::log::EventLog::read_bytes(&bytes)?.log;
        self = self.resume_log(&log, results)?;
        // The claim names the resuming run, so its id is fixed now.
        let given = self.rare.as_ref().and_then(|rare| rare.run_id.clone());
        let run_id = given.unwrap_or_else(crate::run::ids::uuid_v7);
        crate::record::pause_claim::claim(path, &run_id)?;
        Ok(self.run_id(run_id))
    }

    /// Run to the end on the calling thread (the blocking driver: no async
    /// runtime; async models and tools are driven by a minimal `block_on`).
    /// A run that pauses on deferred calls is [`Error::Paused`]; see
    /// [`call_pausable`](Self::call_pausable).
    #[cfg(feature = "blocking")]
    pub fn call(self) -> Result<RunResult<O>, Error> {
        self.call_pausable()?.into_result()
    }

    /// Run to the end on the calling thread, taking a pause on deferred tool
    /// calls as an outcome (SPEC RUN-09): [`RunOutcome::Completed`] or
    /// [`RunOutcome::Paused`]. For agents whose tools ask for approval or
    /// defer to an external result.
    ///
    /// ```
    /// use golem_core::testing::ScriptedModel;
    /// use golem_core::{Approval, DeferredResults};
    /// use golem_io::{Agent, RunOutcome, Tool, ToolError};
    /// use serde_json::json;
    ///
    /// let model = ScriptedModel::new().tool_call("refund", "{}").text("refunded");
    /// let refund = Tool::new("refund", "Refund the order.", json!({"type": "object"}), |ctx, _args| {
    ///     if !ctx.is_approved() {
    ///         return Err(ToolError::approval("refunds need a human"));
    ///     }
    ///     Ok("done")
    /// });
    /// let agent = Agent::<()>::builder(model).tool(refund).build()?;
    /// let RunOutcome::Paused(paused) = agent.run_with(()).prompt("refund it").call_pausable()? else {
    ///     panic!("the refund waits for approval");
    /// };
    /// let call_id = paused.deferred.approvals[0].call_id.clone();
    /// let approved = DeferredResults::new().approval(call_id, Approval::approve());
    /// let outcome = agent.run_with(()).history(paused.messages).resume(approved).call_pausable()?;
    /// assert_eq!(outcome.completed().map(|r| r.output).as_deref(), Some("refunded"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "blocking")]
    pub fn call_pausable(self) -> Result<RunOutcome<O>, Error> {
        blocking::drive(self.launch()?)
    }

    /// Run on the async driver: a future that works under any executor —
    /// or none but a `block_on` — and spawns nothing. It is `Send` when the
    /// deps, the output and the delta callback are. Dropping it cancels the
    /// run at once: in-flight futures are dropped, blocking work on the pool
    /// sees its cancellation token set.
    ///
    /// ```
    /// use golem_core::testing::ScriptedModel;
    /// use golem_io::Agent;
    ///
    /// let agent = Agent::<()>::builder(ScriptedModel::new().text("hi")).build()?;
    /// let result = futures_lite::future::block_on(agent.run_with(()).prompt("hello").call_async())?;
    /// assert_eq!(result.output, "hi");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "async")]
    pub fn call_async(self) -> impl std::future::Future<Output = Result<RunResult<O>, Error>> + 'a {
        self.drive_async(RunOutcome::into_result)
    }

    /// [`call_pausable`](Self::call_pausable) on the async driver.
    #[cfg(feature = "async")]
    pub fn call_pausable_async(self) -> impl std::future::Future<Output = Result<RunOutcome<O>, Error>> + 'a {
        self.drive_async(Ok)
    }

    /// The async run, its outcome passed through `finish`: one future,
    /// written out by hand (see `asynchronous::Drive`) so that it is no
    /// bigger than the builder until polled and keeps only the loop's
    /// state, in one allocation, once running.
    #[cfg(feature = "async")]
    fn drive_async<T: 'a>(
        self,
        finish: fn(RunOutcome<O>) -> Result<T, Error>,
    ) -> impl std::future::Future<Output = Result<T, Error>> + 'a {
        asynchronous::Drive::new(move || self.launch(), finish)
    }

    /// The processed start of a fresh run — the preamble, without a
    /// driver: the Restate driver runs its own machine loop.
    #[cfg(feature = "restate")]
    pub(crate) fn fresh_start(self) -> Result<Start, Error> {
        match self.launch()?.begin {
            Origin::Fresh(start) => Ok(start),
            Origin::Continue { .. } => Err(Error::NotResumable("a continued log is no fresh start".into())),
        }
    }

    /// The preamble (SPEC RUN-02, RUN-03): everything before the machine.
    fn launch(self) -> Result<RunSetup<'a, Deps, O>, Error> {
        let inner = &self.agent.inner;
        let rare = self.rare.map_or_else(Rare::default, |rare| *rare);
        if let Some(continued) = rare.continued {
            // The log's run goes on: no preamble, its own timeline.
            let base = rare.clock.unwrap_or_else(|| Arc::new(SystemClock::new()));
            let clock: Arc<dyn Clock> = Arc::new(ShiftedClock::continuing(base, continued.last_at));
            let observers = Observers::new(&inner.observers, self.observers, self.on_delta);
            let begin = Origin::Continue {
                machine: continued.machine,
                header: continued.header,
                marked: continued.marked,
                answer: continued.answer,
            };
            return Ok(RunSetup {
                agent: inner,
                deps: self.deps,
                begin,
                observers,
                sub_events: SubRunSink::of(rare.sub_observers, rare.progress_observers),
                clock,
                cancel: self.cancel,
                log: rare.log,
            });
        }
        if self.stream && !inner.streams {
            return Err(SetupError::StreamingUnsupported.into());
        }
        // The conversation continues the one the caller's history belongs
        // to, as given — a processor may trim away the messages naming it.
        // The history's id is shared, not copied.
        let conversation_id = match rare.conversation_id {
            Some(given) => Id::from(given),
            None => {
                golem_core::history::latest_conversation(&self.history).cloned().unwrap_or_else(crate::run::ids::mint)
            }
        };
        let run_id = rare.run_id.map_or_else(crate::run::ids::mint, Id::from);
        // Application code: a failure keeps its error object, a panic is
        // contained as one (issue 11), like a tool's or a decoder's.
        let history = match &inner.history_processor {
            Some(processor) => match contain("the history processor", || processor(self.history)) {
                Ok(Ok(history)) => history,
                Ok(Err(error)) => return Err(SetupError::Processor(AppError::new(error)).into()),
                Err(panicked) => return Err(SetupError::Processor(AppError::new(panicked)).into()),
            },
            None => self.history,
        };
        let ids = RunIds::new(run_id, conversation_id);
        let ctx = || RunContext::new(Arc::clone(&self.deps), ids.clone());
        let instructions =
            inner.instructions.resolve(ctx).map_err(|panicked| SetupError::Instructions(AppError::new(panicked)))?;
        // A resume may go on from its resolutions alone (SPEC RUN-02).
        let prompt = if rare.resume.is_some() && self.prompt.is_empty() && self.parts.is_empty() {
            None
        } else {
            let mut prompt = Prompt::text(self.prompt);
            prompt.parts = self.parts;
            Some(prompt)
        };
        // Set in place rather than through the builder methods, each of
        // which moves the whole start (issue 37: less code every run walks).
        let mut start = Start::default();
        start.history = history;
        start.instructions = instructions;
        start.prompt = prompt;
        start.stream = self.stream;
        (start.run_id, start.conversation_id) = (ids.run_id, ids.conversation_id);
        start.resume = rare.resume;
        // Each run its own jitter from the OS (SPEC RETRY-02, JIT-01),
        // recorded in its log; the machine ignores it under a fixed seed.
        start.jitter_seed = Some(crate::run::ids::jitter_seed());
        start.limits = rare.limits;
        let clock = rare.clock.unwrap_or_else(|| Arc::new(SystemClock::new()));
        let observers = Observers::new(&inner.observers, self.observers, self.on_delta);
        let begin = Origin::Fresh(start);
        let sub_events = SubRunSink::of(rare.sub_observers, rare.progress_observers);
        Ok(RunSetup {
            agent: inner,
            deps: self.deps,
            begin,
            observers,
            sub_events,
            clock,
            cancel: self.cancel,
            log: rare.log,
        })
    }

    /// The less common options, boxed on first use.
    fn rare(&mut self) -> &mut Rare<'a> {
        self.rare.get_or_insert_with(Box::default)
    }
}

/// The answer a replayed run completed with, and the decode that accepted
/// it: the log holds the response, the driver decodes it again.
fn accepted_answer(replay: &golem_core::log::Replay) -> Option<(golem_core::machine::DecodeId, golem_core::Response)> {
    use golem_core::machine::{Command, Outcome, Output};
    let Some(Outcome::Completed { decode, .. }) = replay.machine.outcome() else { return None };
    replay.outputs.iter().flatten().find_map(|output| match output {
        Output::Command(Command::Decode { id, response }) if id == decode => {
            Some((*id, golem_core::Response::clone(response)))
        }
        _ => None,
    })
}

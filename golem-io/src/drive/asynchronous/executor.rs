//! Executing the machine's commands as futures polled inside the run: every
//! model call and tool call is an entry of the in-flight set, so a parallel
//! group runs concurrently on whatever task polls the run. A blocking model
//! or tool runs on the blocking thread pool; an async one natively.
//!
//! Waiting races three things: in-flight work (and the fragments it
//! streams), the caller's cancellation, and an `async_io::Timer` for the
//! machine's deadline. Canceled work is dropped, so it never answers late.

use super::in_flight::{Answer, InFlight};
use crate::agent::any_model::AnyModel;
use crate::agent::decode::Decoder;
use crate::agent::AgentInner;
use crate::drive::dispatch::{
    action, call_tool_async, caller_cancel, Action, Attachments, ForwardDeltas, Task, TaskId,
};
use crate::run::cancel::{Canceled, CancellationToken};
use crate::run::clock::Clock;
use crate::run::context::RunContext;
use crate::run::ids::RunIds;
use crate::run::result::RunOutcome;
use crate::run::sub_run_event::SubRunSink;
use crate::tool::context::ToolContext;
use crate::tool::Tool;
use crate::Error;
use futures_lite::{future, Stream};
use golem_core::machine::{Command, DecodeId, Input, ModelCallId, Outcome};
use golem_core::model::{BoxError, BoxFuture};
use golem_core::{Delta, ModelError, Moment, Response};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

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
    /// `ToolStarted` was fed; the body starts next (write-ahead, SPEC LOG-06).
    starting: Option<Task>,
    /// Answers ready to feed, in the order they became available.
    ready: VecDeque<Input>,
    in_flight: InFlight,
    /// Fragments of streamed calls, sent by sinks that may run on pool
    /// threads; unbounded so a sink never waits on the run.
    delta_tx: async_channel::Sender<Fragment>,
    /// Boxed: the receiver is `!Unpin`, and the executor moves.
    delta_rx: Pin<Box<async_channel::Receiver<Fragment>>>,
    /// The model call whose fragment was fed last: the one a failing delta
    /// callback stops.
    streaming: Option<ModelCallId>,
    kept: Attachments<O>,
    /// The caller's cancellation, until it fires once.
    cancel: Option<Canceled>,
    /// The caller token's after-turn flag.
    after_turn: Arc<std::sync::atomic::AtomicBool>,
}

/// A streamed fragment and the call it belongs to.
type Fragment = (ModelCallId, Delta);

/// What ended a wait.
enum Woke {
    Delta(ModelCallId, Delta),
    Answer(Answer),
    Cancel,
    Tick,
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
        let (delta_tx, delta_rx) = async_channel::unbounded();
        // A cancellation that came first is fed before any work starts.
        let mut ready = VecDeque::new();
        let after_turn = cancel.as_ref().map(CancellationToken::after_turn_flag).unwrap_or_default();
        let cancel = cancel.and_then(|token| {
            if token.is_canceled() {
                ready.push_back(caller_cancel(&after_turn));
                return None;
            }
            Some(token.canceled())
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
            in_flight: InFlight::default(),
            delta_tx,
            delta_rx: Box::pin(delta_rx),
            streaming: None,
            kept: Attachments::new(),
            cancel,
            after_turn,
        }
    }

    /// Take a command; nothing starts until the machine waits.
    pub(crate) fn accept(&mut self, command: Command) {
        match action(command) {
            Action::Start(work) => self.pending.push_back(work),
            Action::Cancel(id) => self.cancel(id),
            Action::Ignore => {}
        }
    }

    /// Canceled work is never answered: unstarted work is forgotten,
    /// started work is dropped.
    fn cancel(&mut self, id: TaskId) {
        self.pending.retain(|w| w.id() != id);
        if self.starting.as_ref().is_some_and(|w| w.id() == id) {
            self.starting = None;
        }
        self.in_flight.cancel(id);
    }

    /// The delta callback failed: the streamed call ends now with the
    /// callback's error as a sink abort (SPEC STREAM-02), fed before
    /// anything else, and the model's future is dropped.
    pub(crate) fn abort_stream(&mut self, error: BoxError) {
        let Some(id) = self.streaming.take() else { return };
        self.cancel(TaskId::Model(id));
        self.ready.retain(|input| !answers_model_call(input, id));
        self.ready.push_front(Input::ModelFinished { id, result: Err(ModelError::sink_aborted(error)) });
    }

    /// Run the decoder now (quick, local application code) and queue its
    /// verdict.
    pub(crate) fn decode(&mut self, decoder: &dyn Decoder<O, Deps>, id: DecodeId, response: &Response) {
        let ctx = RunContext::new(Arc::clone(&self.deps), self.ids.clone());
        let verdict = self.kept.decode(decoder, &ctx, id, response);
        self.ready.push_back(Input::Decoded { id, verdict });
    }

    /// The run's result from the machine's outcome.
    pub(crate) fn finish(self, outcome: Option<&Outcome>) -> Result<RunOutcome<O>, Error> {
        self.kept.finish(outcome)
    }

    /// The next input for the machine: a ready answer, the start of the next
    /// tool, or whatever arrives before `deadline` (else a `Tick`).
    pub(crate) async fn next_input(&mut self, deadline: Option<Moment>) -> Result<Input, Error> {
        let input = self.next(deadline).await?;
        if let Input::ModelDelta { id, .. } = &input {
            self.streaming = Some(*id);
        }
        Ok(input)
    }

    async fn next(&mut self, deadline: Option<Moment>) -> Result<Input, Error> {
        loop {
            if let Some(work) = self.starting.take() {
                self.launch(work);
            }
            if let Some(input) = self.ready.pop_front() {
                return Ok(input);
            }
            let Some(work) = self.pending.pop_front() else { return self.wait(deadline).await };
            match work.id() {
                // The ledger hears of a tool before its body starts (SPEC LOG-06).
                TaskId::Tool(id) => {
                    self.starting = Some(work);
                    return Ok(Input::ToolStarted { id });
                }
                TaskId::Model(_) => self.launch(work),
            }
        }
    }

    async fn wait(&mut self, deadline: Option<Moment>) -> Result<Input, Error> {
        if deadline.is_none() && self.in_flight.is_empty() {
            return Err(Error::Stalled);
        }
        let mut timer = deadline.map(|d| async_io::Timer::after(d.saturating_duration_since(self.clock.now())));
        let woke = future::poll_fn(|cx| {
            // Fragments first: a call's fragments were sent before it ended.
            if let Poll::Ready(Some((id, delta))) = self.delta_rx.as_mut().poll_next(cx) {
                return Poll::Ready(Woke::Delta(id, delta));
            }
            if let Some(canceled) = self.cancel.as_mut() {
                if Pin::new(canceled).poll(cx).is_ready() {
                    self.cancel = None;
                    return Poll::Ready(Woke::Cancel);
                }
            }
            if let Poll::Ready(Some((_, answer))) = self.in_flight.poll_next(cx) {
                return Poll::Ready(Woke::Answer(answer));
            }
            match timer.as_mut().map(|t| Pin::new(t).poll(cx)) {
                Some(Poll::Ready(_)) => Poll::Ready(Woke::Tick),
                _ => Poll::Pending,
            }
        })
        .await;
        Ok(match woke {
            Woke::Delta(id, delta) => Input::ModelDelta { id, delta },
            Woke::Cancel => caller_cancel(&self.after_turn),
            Woke::Tick => Input::Tick,
            Woke::Answer(Answer { input, error }) => {
                // The call may have streamed its last fragments in the very
                // poll that finished it; they go to the machine first.
                while let Ok((id, delta)) = self.delta_rx.try_recv() {
                    self.ready.push_back(Input::ModelDelta { id, delta });
                }
                self.keep(&input, error);
                self.ready.push_back(input);
                self.ready.pop_front().unwrap_or(Input::Tick)
            }
        })
    }

    fn launch(&mut self, work: Task) {
        let id = work.id();
        let token = CancellationToken::new();
        let future: BoxFuture<'static, Answer> = match work {
            Task::Model { id, member, request, stream, .. } => {
                let Some(model) = usize::try_from(member).ok().and_then(|m| self.models.get(m)) else {
                    let error = ModelError::other(format!("no model at fallback position {member}"));
                    self.ready.push_back(Input::ModelFinished { id, result: Err(error) });
                    return;
                };
                let sink = stream.then(|| {
                    let (tx, token) = (self.delta_tx.clone(), token.clone());
                    ForwardDeltas(move |delta| !token.is_canceled() && tx.try_send((id, delta)).is_ok())
                });
                let call = model.call_async(request, sink);
                Box::pin(async move { Answer { input: Input::ModelFinished { id, result: call.await }, error: None } })
            }
            Task::Tool { id, call, deadline, approved } => {
                let (deps, clock) = (Arc::clone(&self.deps), Arc::clone(&self.clock));
                let ids = self.ids.clone();
                let ctx = ToolContext::for_call(deps, &call, deadline, approved, token.clone(), clock, ids)
                    .forwarding(self.sub_events.clone());
                let run = call_tool_async(&self.tools, ctx, &call);
                Box::pin(async move {
                    let (outcome, error) = run.await;
                    Answer { input: Input::ToolFinished { id, outcome }, error }
                })
            }
        };
        self.in_flight.push(id, future, token);
    }

    /// Keep a tool's error object for `RunError::source`, keyed by the
    /// machine id its failure will quote.
    fn keep(&mut self, input: &Input, error: Option<BoxError>) {
        if let (Input::ToolFinished { id, .. }, Some(error)) = (input, error) {
            self.kept.tool_error(*id, error);
        }
    }
}

/// True when `input` is a fragment or the answer of model call `id`.
fn answers_model_call(input: &Input, id: ModelCallId) -> bool {
    matches!(input, Input::ModelDelta { id: i, .. } | Input::ModelFinished { id: i, .. } if *i == id)
}

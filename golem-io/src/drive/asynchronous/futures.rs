//! Where the async driver runs work, and how it waits for it: every model
//! call and tool call is an entry of the in-flight set, polled inside the
//! run, so a parallel group runs concurrently on whatever task polls the
//! run. A blocking model or tool runs on the blocking thread pool; an async
//! one natively.
//!
//! Waiting races three things: in-flight work (and the fragments it
//! streams), the caller's cancellation, and an `async_io::Timer` for the
//! machine's deadline — none when a plain model call in flight is known to
//! answer by it (its model stops at its request's timeout). Canceled work
//! is dropped, so it never answers late.

use super::in_flight::{InFlight, Work};
use crate::drive::dispatch::{
    call_tool_async, caller_cancel, stopped_at, Answer, CallerToken, Dispatcher, ForwardDeltas, Placement,
    RunResources, Task, TaskId,
};
use crate::run::cancel::{Canceled, CancellationToken};
use crate::Error;
use futures_lite::Stream;
use golem_core::machine::{Input, ModelCallId};
use golem_core::{Delta, Moment};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::task::{Context, Poll};

pub(crate) struct Futures {
    in_flight: InFlight,
    /// Fragments of streamed calls, sent by sinks that may run on pool
    /// threads; opened with the first streamed call, since most runs never
    /// stream and a run's size counts when thousands are in flight.
    deltas: Option<Deltas>,
    /// The caller's cancellation, until it fires once.
    cancel: Option<Canceled>,
    /// The caller token's after-turn flag.
    after_turn: Arc<AtomicBool>,
    /// The run's deadline timer and the moment it is armed for, kept
    /// across waits (issue 37): arming an `async_io` timer wakes the thread
    /// blocked on the reactor, a cross-thread hand-off per arming that cost
    /// runs in flight ~10% of their throughput when every model call armed
    /// its own. A timer due no later than a wait's deadline serves it; its
    /// early fire is a `Tick`, which the machine takes as a no-op.
    timer: Option<(Moment, async_io::Timer)>,
}

/// A streamed fragment and the call it belongs to.
type Fragment = (ModelCallId, Delta);

/// The fragment channel: unbounded so a sink never waits on the run.
struct Deltas {
    tx: async_channel::Sender<Fragment>,
    /// Boxed: the receiver is `!Unpin`, and the placement moves.
    rx: Pin<Box<async_channel::Receiver<Fragment>>>,
}

impl Deltas {
    fn open() -> Self {
        let (tx, rx) = async_channel::unbounded();
        Deltas { tx, rx: Box::pin(rx) }
    }
}

/// What ended a wait.
enum Woke {
    Delta(ModelCallId, Delta),
    /// An answer, and the deadline its call was known to answer by.
    Answer(Answer, Option<Moment>),
    Cancel,
    /// The caller's token fired while this answer arrived.
    CancelThen(Answer, Option<Moment>),
    Tick,
}

impl Futures {
    /// The placement for a run with the caller's `cancel` token, if any; and
    /// the cancellation to feed first when the token already fired.
    pub(crate) fn new(cancel: Option<CancellationToken>, _config: &golem_core::RunConfig) -> (Self, Option<Input>) {
        let CallerToken { live, first, after_turn } = CallerToken::new(cancel);
        let cancel = live.map(|token| token.canceled());
        let place = Futures { in_flight: InFlight::default(), deltas: None, cancel, after_turn, timer: None };
        (place, first)
    }

    /// Begin a wait until `deadline`: the deadline the wait listens to,
    /// with the timer armed for it. A model call that stops at its
    /// request's timeout answers by its deadline: it needs no timer (issue
    /// 37: in the in-memory e2e bench, arming one per run cost 256 runs in
    /// flight ~15% of their throughput in the reactor's timer bookkeeping).
    fn begin_wait(&mut self, deadline: Option<Moment>, now: Moment) -> Option<Moment> {
        let deadline = deadline.filter(|&d| !self.in_flight.answers_by(d));
        if let Some(deadline) = deadline {
            self.arm(deadline, now);
        }
        deadline
    }

    /// Whatever comes first: a fragment, the caller's cancellation, an
    /// answer, or the `deadline` a begun wait listens to.
    fn poll_wait(&mut self, cx: &mut Context<'_>, deadline: Option<Moment>) -> Poll<Woke> {
        // Fragments first: a call's fragments were sent before it ended.
        if let Some(Poll::Ready(Some((id, delta)))) = self.deltas.as_mut().map(|d| d.rx.as_mut().poll_next(cx)) {
            return Poll::Ready(Woke::Delta(id, delta));
        }
        if let Some(canceled) = self.cancel.as_mut() {
            if Pin::new(canceled).poll(cx).is_ready() {
                self.cancel = None;
                return Poll::Ready(Woke::Cancel);
            }
        }
        if let Poll::Ready(Some((_, answer, due))) = self.in_flight.poll_next(cx) {
            // The call may have fired the caller's token as it finished
            // (a tool asking to stop after this turn): the cancellation
            // goes to the machine first, before the answer can let it
            // start the next model call (SPEC MACH-07).
            if let Some(canceled) = self.cancel.as_mut() {
                if Pin::new(canceled).poll(cx).is_ready() {
                    self.cancel = None;
                    return Poll::Ready(Woke::CancelThen(answer, due));
                }
            }
            return Poll::Ready(Woke::Answer(answer, due));
        }
        // Only a wait with a deadline listens to the timer; one kept armed
        // through a wait without tells the next wait it is due.
        match self.timer.as_mut().filter(|_| deadline.is_some()).map(|(_, t)| Pin::new(t).poll(cx)) {
            Some(Poll::Ready(_)) => {
                // Spent: a fired timer never fires again.
                self.timer = None;
                Poll::Ready(Woke::Tick)
            }
            _ => Poll::Pending,
        }
    }

    /// Have the timer fire by `deadline`: the armed one if it is due no
    /// later and not yet (an earlier fire being a harmless `Tick`), else
    /// the timer re-armed or a new one.
    fn arm(&mut self, deadline: Moment, now: Moment) {
        let after = deadline.saturating_duration_since(now);
        match &mut self.timer {
            Some((armed, _)) if *armed <= deadline && *armed > now => {}
            Some((armed, timer)) => {
                timer.set_after(after);
                *armed = deadline;
            }
            None => self.timer = Some((deadline, async_io::Timer::after(after))),
        }
    }
}

impl<Deps: Send + Sync + 'static> Placement<Deps> for Futures {
    fn launch(&mut self, run: &Arc<RunResources<Deps>>, task: Task, _alone: bool) -> Option<Answer> {
        let (work, token) = match task {
            Task::Model { id, member, mut request, deadline, stream } => {
                let model = match run.model(member) {
                    Ok(model) => model,
                    Err(error) => return Some(Answer::plain(Input::ModelFinished { id, result: Err(error) })),
                };
                // A plain call to a model that stops by its request's
                // timeout is given the deadline and watched by no timer. A
                // streamed call keeps the timer: its fragments reach the
                // machine as they come, and one that came after the
                // deadline must find the call already timed out.
                let due = deadline.filter(|_| !stream && model.honours_timeout_async());
                if let Some(due) = due {
                    request.timeout = Some(due.saturating_duration_since(run.clock.now()));
                }
                // Only a streamed call's sink outlives a dropped future (it
                // may run on a pool thread), so only it needs a token: a
                // plain call is stopped by dropping it (issue 37: two
                // allocations per model call saved).
                let token = stream.then(CancellationToken::new);
                let sink = token.clone().map(|token| {
                    let tx = self.deltas.get_or_insert_with(Deltas::open).tx.clone();
                    ForwardDeltas(move |delta| !token.is_canceled() && tx.try_send((id, delta)).is_ok())
                });
                (Work::Model(id, due, model.call_async(request, sink)), token)
            }
            Task::Tool { id, call, deadline, approved, limits_left } => {
                let token = CancellationToken::new();
                let ctx = run.tool_context(&call, deadline, approved, limits_left, token.clone());
                (Work::Tool(id, call_tool_async(&run.tools, ctx, &call)), Some(token))
            }
        };
        self.in_flight.push(work, token);
        None
    }

    fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }

    fn cancel(&mut self, id: TaskId) {
        self.in_flight.cancel(id);
    }

    /// Nothing to do: the call's future was dropped with its cancellation,
    /// so it sends nothing more.
    fn answered(&mut self, _id: TaskId) {}
}

impl<Deps: Send + Sync + 'static, O> Dispatcher<Deps, O, Futures> {
    /// The next input for the machine: one ready now, or whatever arrives
    /// before `deadline` (else a `Tick`). `wait` is the wait begun for this
    /// input, `None` until the first poll begins it, and `None` again once
    /// the input is returned: readiness is checked, and the timer armed,
    /// once per input, not on every wake.
    pub(crate) fn poll_next_input(
        &mut self,
        cx: &mut Context<'_>,
        deadline: Option<Moment>,
        wait: &mut Option<Option<Moment>>,
    ) -> Poll<Result<Input, Error>> {
        let listening = match *wait {
            Some(listening) => listening,
            None => {
                if let Some(input) = self.ready_input() {
                    return Poll::Ready(Ok(input));
                }
                if deadline.is_none() && self.place.in_flight.is_empty() {
                    return Poll::Ready(Err(Error::Stalled));
                }
                let now = self.run.clock.now();
                *wait.insert(self.place.begin_wait(deadline, now))
            }
        };
        let woke = std::task::ready!(self.place.poll_wait(cx, listening));
        *wait = None;
        Poll::Ready(Ok(match woke {
            Woke::Delta(id, delta) => Input::ModelDelta { id, delta },
            Woke::Cancel => caller_cancel(&self.place.after_turn),
            Woke::Tick => Input::Tick,
            Woke::Answer(answer, due) => {
                self.queue_fragments();
                let answer = self.stopped(answer, due);
                self.arrived_next(answer)
            }
            Woke::CancelThen(answer, due) => {
                let answer = self.stopped(answer, due);
                self.settle(answer);
                caller_cancel(&self.place.after_turn)
            }
        }))
    }

    /// A model call that stopped at the deadline it was given is fed as
    /// the deadline passing, as if the driver had watched it with a timer:
    /// the machine's timeout policy decides, as in the blocking driver.
    fn stopped(&self, answer: Answer, due: Option<Moment>) -> Answer {
        if stopped_at(due, || self.run.clock.now(), &answer.input) {
            return Answer::plain(Input::Tick);
        }
        answer
    }

    /// Queue a finished call's answer behind the last fragments it streamed
    /// in the very poll that finished it.
    fn settle(&mut self, answer: Answer) {
        self.queue_fragments();
        self.arrived(answer);
    }

    /// Queue the fragments already sent.
    fn queue_fragments(&mut self) {
        while let Some(Ok((id, delta))) = self.place.deltas.as_mut().map(|d| d.rx.try_recv()) {
            self.queue(Input::ModelDelta { id, delta });
        }
    }
}

//! The async driver (SPEC DRV-01, DRV-03): executor-independent, built on
//! async-io, futures-lite and the `blocking` thread pool.
//!
//! The run is one future. It spawns nothing: model and tool futures are
//! polled inside it, the machine's deadlines are `async_io::Timer`s (served
//! by async-io's own reactor, so they fire under any executor, tokio
//! included) or, for a plain call to a model that stops by its request's
//! timeout, the model's own, and blocking models or tools run on the
//! `blocking` pool. So it
//! works under `smol::block_on`, `async_io::block_on`,
//! `futures::executor::block_on` or inside a tokio runtime, with no hidden
//! global runtime. Dropping the future cancels the run at once (SPEC
//! DRV-05).
//!
//! The loop is the blocking driver's, awaiting where that one blocks; the
//! bookkeeping is `dispatch`'s, and this room only places work (`futures`).

mod futures;
pub(crate) mod in_flight;

use crate::agent::decode::Decoder;
use crate::drive::dispatch::{Dispatcher, Drained, Observers, Opened, RunSetup};
use crate::record::RecordedMachine;
use crate::results::result::RunOutcome;
use crate::Error;
use futures::Futures;
use golem_core::machine::Output;
use golem_core::Moment;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A run on the async driver, written out as a state machine rather than
/// an `async` block (issue 37): the future a caller holds (in a task, a
/// `join_all`, a `select`) is the unlaunched builder, and on first poll the
/// launched run moves into one allocation holding only what the loop
/// needs. An `async` block would keep the builder's room for the whole run
/// and be copied whole when boxed, both cache misses when thousands of runs
/// are in flight.
pub(crate) struct Drive<'a, L, Deps, O, T> {
    state: State<'a, L, Deps, O>,
    /// What the caller gets from the outcome.
    finish: fn(RunOutcome<O>) -> Result<T, Error>,
}

enum State<'a, L, Deps, O> {
    /// Not yet polled: the preamble runs on first poll, like any future's
    /// work.
    Start(L),
    Running(Box<Running<'a, Deps, O>>),
    /// Returned its output, or failed.
    Done,
}

/// The loop's state between polls.
struct Running<'a, Deps, O> {
    machine: RecordedMachine<'a>,
    carried: VecDeque<Output>,
    work: Dispatcher<Deps, O, Futures>,
    observers: Observers<'a>,
    decoder: &'a dyn Decoder<O, Deps>,
    /// Until when the machine waits for its next input.
    deadline: Option<Moment>,
    /// The wait begun for that input (see `poll_next_input`).
    wait: Option<Option<Moment>>,
}

impl<'a, L, Deps, O, T> Drive<'a, L, Deps, O, T>
where
    L: FnOnce() -> Result<RunSetup<'a, Deps, O>, Error>,
    Deps: Send + Sync + 'static,
{
    /// The run `launch` sets up, its outcome passed through `finish`.
    pub(crate) fn new(launch: L, finish: fn(RunOutcome<O>) -> Result<T, Error>) -> Self {
        Drive { state: State::Start(launch), finish }
    }

    fn step(&mut self, cx: &mut Context<'_>) -> Poll<Result<RunOutcome<O>, Error>> {
        if let State::Start(_) = self.state {
            let State::Start(launch) = std::mem::replace(&mut self.state, State::Done) else { unreachable!() };
            let Opened { machine, next, carried, work, observers, decoder } = launch()?.open(Futures::new)?;
            let mut run = Box::new(Running { machine, carried, work, observers, decoder, deadline: None, wait: None });
            if let Drained::Done = run.advance(next)? {
                return Poll::Ready(run.work.finish(run.machine));
            }
            self.state = State::Running(run);
        }
        let State::Running(run) = &mut self.state else { panic!("a run's future was polled after it completed") };
        loop {
            let input = std::task::ready!(run.work.poll_next_input(cx, run.deadline, &mut run.wait))?;
            if let Drained::Done = run.advance(Some(input))? {
                let State::Running(mut run) = std::mem::replace(&mut self.state, State::Done) else { unreachable!() };
                return Poll::Ready(run.work.finish(run.machine));
            }
        }
    }
}

impl<Deps: Send + Sync + 'static, O> Running<'_, Deps, O> {
    /// Feed `input` and carry out the machine's commands until it waits
    /// (keeping the deadline) or is done.
    fn advance(&mut self, input: Option<golem_core::machine::Input>) -> Result<Drained, Error> {
        let drained =
            self.work.advance(&mut self.machine, input, &mut self.carried, &mut self.observers, self.decoder)?;
        if let Drained::Wait(deadline) = drained {
            self.deadline = deadline;
        }
        Ok(drained)
    }
}

impl<'a, L, Deps, O, T> Future for Drive<'a, L, Deps, O, T>
where
    L: FnOnce() -> Result<RunSetup<'a, Deps, O>, Error>,
    Deps: Send + Sync + 'static,
{
    type Output = Result<T, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let result = std::task::ready!(this.step(cx));
        // A failed run is over too: its state goes with the error.
        this.state = State::Done;
        Poll::Ready(result.and_then(this.finish))
    }
}

// Nothing in a `Drive` is ever pinned: the launcher is only called by
// value, and the loop's state lives behind a box.
impl<L, Deps, O, T> Unpin for Drive<'_, L, Deps, O, T> {}

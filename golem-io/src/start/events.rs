//! A run as a stream of its events ending with its outcome (SPEC STREAM-02,
//! the async API's form of observing a run).

use crate::results::result::RunResult;
use crate::start::RunBuilder;
use crate::Error;
use futures_lite::Stream;
use golem_core::RunEvent;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// One item of a [`RunEvents`] stream.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // Items are handed over one at a time; boxing buys nothing.
pub enum RunItem<O> {
    /// The run's next event, in the order observers see them.
    Event(RunEvent),
    /// The run's outcome: always the last item.
    Done(Result<RunResult<O>, Error>),
}

type RunFuture<'a, O> = Pin<Box<dyn Future<Output = Result<RunResult<O>, Error>> + Send + 'a>>;

/// A run on the async driver as a [`Stream`] of [`RunItem`]s: every event,
/// then the outcome. Polling the stream drives the run; dropping it cancels
/// the run. Made by [`RunBuilder::events`].
#[must_use = "streams do nothing unless polled"]
pub struct RunEvents<'a, O> {
    run: Option<RunFuture<'a, O>>,
    events: async_channel::Receiver<RunEvent>,
    outcome: Option<Result<RunResult<O>, Error>>,
}

impl<'a, Deps: Send + Sync + 'static, O: Send + 'static> RunBuilder<'a, Deps, O> {
    /// Run on the async driver, yielding each event as it happens and then
    /// the outcome (a delta callback, if set, still gets the fragments).
    ///
    /// ```
    /// use futures_lite::StreamExt;
    /// use golem_core::testing::ScriptedModel;
    /// use golem_io::{Agent, RunItem};
    ///
    /// let agent = Agent::<()>::builder(ScriptedModel::new().text("hi")).build()?;
    /// let items: Vec<RunItem<String>> = futures_lite::future::block_on(agent.run_with(()).prompt("hello").events().collect());
    /// let (last, events) = items.split_last().unwrap();
    /// assert_eq!(events.len(), 2); // model start, model end
    /// let RunItem::Done(Ok(result)) = last else { panic!("{last:?}") };
    /// assert_eq!(result.output, "hi");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn events(self) -> RunEvents<'a, O> {
        // Observers run synchronously inside the run's own poll, so every
        // event is in the channel by the time that poll returns.
        let (tx, events) = async_channel::unbounded();
        let run = self.observer(move |event| {
            let _ = tx.try_send(event.clone());
        });
        RunEvents { run: Some(Box::pin(run.call_async())), events, outcome: None }
    }
}

// No field is ever pinned in place: the run is boxed and the channel is
// only read with `try_recv`. So the stream may move freely whatever `O` is.
impl<O> Unpin for RunEvents<'_, O> {}

impl<O> Stream for RunEvents<'_, O> {
    type Item = RunItem<O>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunItem<O>>> {
        let this = &mut *self;
        if let Some(run) = this.run.as_mut() {
            if let Poll::Ready(outcome) = run.as_mut().poll(cx) {
                this.run = None;
                this.outcome = Some(outcome);
            }
        }
        if let Ok(event) = this.events.try_recv() {
            return Poll::Ready(Some(RunItem::Event(event)));
        }
        match this.run {
            // Events only arise while the run is polled, and the run's own
            // wakers wake this task: nothing else to wait on.
            Some(_) => Poll::Pending,
            None => Poll::Ready(this.outcome.take().map(RunItem::Done)),
        }
    }
}

impl<O> fmt::Debug for RunEvents<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunEvents").field("running", &self.run.is_some()).finish_non_exhaustive()
    }
}

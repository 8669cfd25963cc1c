//! The work a run waits on, polled inside the run's own future (SPEC
//! DRV-03): nothing is spawned on any executor, so the run needs none, and
//! dropping the run drops its work.

use crate::drive::dispatch::{Answer, TaskId};
use crate::run::cancel::CancellationToken;
use golem_core::model::BoxFuture;
use std::task::{Context, Poll};

struct Entry {
    id: TaskId,
    future: BoxFuture<'static, Answer>,
    /// Tells work that outlives its future (a blocking call on the pool)
    /// that the run gave up on it.
    token: CancellationToken,
}

/// A small set of boxed futures in launch order.
///
/// Every wake polls every entry: a run has at most one model call or one
/// tool group in flight, so the set is a handful of entries, and a plain
/// vector keeps each run's footprint small (many runs may share a thread).
#[derive(Default)]
pub(crate) struct InFlight {
    entries: Vec<Entry>,
}

impl InFlight {
    pub(crate) fn push(&mut self, id: TaskId, future: BoxFuture<'static, Answer>, token: CancellationToken) {
        self.entries.push(Entry { id, future, token });
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drop the work: an async future stops at once; blocking work on the
    /// pool sees its token set and is abandoned (its answer is discarded).
    pub(crate) fn cancel(&mut self, id: TaskId) {
        if let Some(at) = self.entries.iter().position(|e| e.id == id) {
            let entry = self.entries.remove(at);
            entry.token.cancel();
        }
    }

    /// The first entry, in launch order, that has finished. A finished
    /// future leaves the set before anything else is polled, so none is
    /// ever polled after completing.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<(TaskId, Answer)>> {
        if self.entries.is_empty() {
            return Poll::Ready(None);
        }
        for at in 0..self.entries.len() {
            if let Poll::Ready(answer) = self.entries[at].future.as_mut().poll(cx) {
                let entry = self.entries.remove(at);
                return Poll::Ready(Some((entry.id, answer)));
            }
        }
        Poll::Pending
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        // Dropping the run cancels its work (SPEC DRV-05): futures go with
        // the set, and blocking work on the pool is told to stop.
        self.entries.iter().for_each(|e| e.token.cancel());
    }
}

//! The work a run waits on, polled inside the run's own future (SPEC
//! DRV-03): nothing is spawned on any executor, so the run needs none, and
//! dropping the run drops its work.

use crate::drive::dispatch::{Answer, TaskId, ToolAnswer};
use crate::run::cancel::CancellationToken;
use golem_core::machine::{Input, ModelCallId, ToolCallId};
use golem_core::model::BoxFuture;
use golem_core::{ModelError, Moment, Response};
use std::task::{Context, Poll};

/// A unit of work as its caller made it: the future of a model call or of
/// a tool call, answered as the machine's input when it finishes. Kept as
/// made rather than wrapped in a future of its own, which would be a
/// second allocation per call, cold by the time it is polled when many
/// runs are in flight (issue 37).
pub(crate) enum Work {
    /// A model call, and the deadline it is known to answer by when its
    /// model stops at its request's timeout.
    Model(ModelCallId, Option<Moment>, BoxFuture<'static, Result<Response, ModelError>>),
    Tool(ToolCallId, BoxFuture<'static, ToolAnswer>),
}

impl Work {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Answer> {
        match self {
            Work::Model(id, _, call) => call
                .as_mut()
                .poll(cx)
                .map(|result| Answer::plain(Input::ModelFinished { id: *id, result: result.map(Box::new) })),
            Work::Tool(id, body) => body.as_mut().poll(cx).map(|answer| answer.into_answer(*id)),
        }
    }
}

struct Entry {
    id: TaskId,
    work: Work,
    /// Tells work that outlives its future (a blocking call on the pool, a
    /// stream's sink) that the run gave up on it; none for work that
    /// nothing outlives.
    token: Option<CancellationToken>,
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
    pub(crate) fn push(&mut self, work: Work, token: Option<CancellationToken>) {
        let id = match &work {
            Work::Model(id, ..) => TaskId::Model(*id),
            Work::Tool(id, _) => TaskId::Tool(*id),
        };
        self.entries.push(Entry { id, work, token });
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drop the work: an async future stops at once; blocking work on the
    /// pool sees its token set and is abandoned (its answer is discarded).
    pub(crate) fn cancel(&mut self, id: TaskId) {
        if let Some(at) = self.entries.iter().position(|e| e.id == id) {
            if let Some(token) = self.entries.remove(at).token {
                token.cancel();
            }
        }
    }

    /// Whether work in flight is known to answer by `deadline`: a model
    /// call that stops at its request's timeout, due no later.
    pub(crate) fn answers_by(&self, deadline: Moment) -> bool {
        self.entries.iter().any(|e| matches!(e.work, Work::Model(_, Some(due), _) if due <= deadline))
    }

    /// The first entry, in launch order, that has finished, with the
    /// deadline it was known to answer by. A finished future leaves the
    /// set before anything else is polled, so none is ever polled after
    /// completing.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<(TaskId, Answer, Option<Moment>)>> {
        if self.entries.is_empty() {
            return Poll::Ready(None);
        }
        for at in 0..self.entries.len() {
            if let Poll::Ready(answer) = self.entries[at].work.poll(cx) {
                let entry = self.entries.remove(at);
                let due = match entry.work {
                    Work::Model(_, due, _) => due,
                    Work::Tool(..) => None,
                };
                return Poll::Ready(Some((entry.id, answer, due)));
            }
        }
        Poll::Pending
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        // Dropping the run cancels its work (SPEC DRV-05): futures go with
        // the set, and blocking work on the pool is told to stop.
        self.entries.iter().filter_map(|e| e.token.as_ref()).for_each(CancellationToken::cancel);
    }
}

//! One unit of work as the blocking driver runs it: on the calling thread
//! or on a pooled worker, reporting through the driver's channel.

use crate::drive::dispatch::{call_tool_blocking, Answer, ForwardDeltas, RunResources, Task, TaskId};
use crate::run::cancel::CancellationToken;
use golem_core::machine::Input;
use golem_core::DeltaSink;
use std::sync::mpsc::Sender;
use std::sync::Arc;

/// What a worker sends back: an answer or a fragment, and whether it is the
/// last word of its work.
pub(super) struct Report {
    /// `None` for the run's own cancellation.
    pub(super) id: Option<TaskId>,
    pub(super) answer: Answer,
    pub(super) last: bool,
}

/// Everything one unit of work needs, owned so it can move to a thread.
pub(super) struct TaskRunner<Deps> {
    pub(super) run: Arc<RunResources<Deps>>,
    /// Set when the run gives up on this work.
    pub(super) token: CancellationToken,
}

impl<Deps: Send + Sync + 'static> TaskRunner<Deps> {
    /// Run `task`; a streamed call's fragments go through `tx` from a
    /// worker, or into `here` on the driver's own thread. `None`: async
    /// work was dropped on cancellation and has no answer.
    pub(super) fn run(
        &self,
        task: Task,
        tx: Option<&Sender<Report>>,
        here: Option<&mut dyn DeltaSink>,
    ) -> Option<Answer> {
        match task {
            Task::Model { id, member, request, stream, .. } => {
                let result = match self.run.model(member) {
                    Err(error) => Some(Err(error)),
                    Ok(model) => match tx.filter(|_| stream) {
                        None => model.call_blocking(&request, here.filter(|_| stream), &self.token),
                        Some(tx) => {
                            let token = &self.token;
                            let mut sink = ForwardDeltas(|delta| {
                                let answer = Answer::plain(Input::ModelDelta { id, delta });
                                let report = Report { id: Some(TaskId::Model(id)), answer, last: false };
                                !token.is_canceled() && tx.send(report).is_ok()
                            });
                            model.call_blocking(&request, Some(&mut sink), &self.token)
                        }
                    },
                }?;
                Some(Answer::plain(Input::ModelFinished { id, result: result.map(Box::new) }))
            }
            Task::Tool { id, call, deadline, approved, limits_left } => {
                let ctx = self.run.tool_context(&call, deadline, approved, limits_left, self.token.clone());
                Some(call_tool_blocking(&self.run.tools, &ctx, &call)?.into_answer(id))
            }
        }
    }
}

//! One unit of work as the blocking driver runs it: on the calling thread
//! or on a thread of its own, reporting through the driver's channel.

use crate::agent::any_model::AnyModel;
use crate::drive::dispatch::{call_tool_blocking, ForwardDeltas, Task, TaskId};
use crate::run::cancel::CancellationToken;
use crate::run::clock::Clock;
use crate::run::ids::RunIds;
use crate::run::sub_run_event::SubRunSink;
use crate::tool::context::ToolContext;
use crate::tool::Tool;
use golem_core::machine::Input;
use golem_core::model::BoxError;
use golem_core::{DeltaSink, ModelError};
use std::sync::mpsc::Sender;
use std::sync::Arc;

/// What a thread sends back: an input for the machine, whether it is the
/// final answer for its work, and a fatal error to keep.
pub(super) struct Report {
    /// `None` for the run's own cancellation.
    pub(super) id: Option<TaskId>,
    pub(super) input: Input,
    pub(super) last: bool,
    pub(super) error: Option<BoxError>,
}

/// Everything one unit of work needs, owned so it can move to a thread.
pub(super) struct TaskRunner<Deps> {
    pub(super) models: Arc<[AnyModel]>,
    pub(super) tools: Arc<[Tool<Deps>]>,
    pub(super) deps: Arc<Deps>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) ids: RunIds,
    /// The run's sub-run observers, for the tool context.
    pub(super) sub_events: Option<SubRunSink>,
    /// Set when the run gives up on this work.
    pub(super) token: CancellationToken,
}

impl<Deps: Send + Sync + 'static> TaskRunner<Deps> {
    /// Run `work`; a streamed call's fragments go through `tx` from a
    /// worker, or into `here` on the driver's own thread.
    /// `None`: async work was dropped on cancellation and has no answer.
    pub(super) fn run(
        &self,
        work: Task,
        tx: Option<&Sender<Report>>,
        here: Option<&mut dyn DeltaSink>,
    ) -> Option<Report> {
        match work {
            Task::Model { id, member, request, stream, .. } => {
                let result = match usize::try_from(member).ok().and_then(|m| self.models.get(m)) {
                    None => Some(Err(ModelError::other(format!("no model at fallback position {member}")))),
                    Some(model) => match tx.filter(|_| stream) {
                        None => model.call_blocking(&request, here.filter(|_| stream), &self.token),
                        Some(tx) => {
                            let token = &self.token;
                            let mut sink = ForwardDeltas(|delta| {
                                let input = Input::ModelDelta { id, delta };
                                let report = Report { id: Some(TaskId::Model(id)), input, last: false, error: None };
                                !token.is_canceled() && tx.send(report).is_ok()
                            });
                            model.call_blocking(&request, Some(&mut sink), &self.token)
                        }
                    },
                }?;
                let input = Input::ModelFinished { id, result };
                Some(Report { id: Some(TaskId::Model(id)), input, last: true, error: None })
            }
            Task::Tool { id, call, deadline, approved } => {
                let (deps, token, clock) = (Arc::clone(&self.deps), self.token.clone(), Arc::clone(&self.clock));
                let ctx = ToolContext::for_call(deps, &call, deadline, approved, token, clock, self.ids.clone())
                    .forwarding(self.sub_events.clone());
                let (outcome, error) = call_tool_blocking(&self.tools, &ctx, &call)?;
                Some(Report {
                    id: Some(TaskId::Tool(id)),
                    input: Input::ToolFinished { id, outcome },
                    last: true,
                    error,
                })
            }
        }
    }
}

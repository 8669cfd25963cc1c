//! What one run's work draws on — its models, tools, deps, clock, ids and
//! sub-run observers — shared behind one `Arc` so a unit of work can move
//! to another thread for the price of one reference count.

use crate::agent::any_model::AnyModel;
use crate::agent::AgentInner;
use crate::run::cancel::CancellationToken;
use crate::run::clock::Clock;
use crate::run::context::RunContext;
use crate::run::ids::RunIds;
use crate::tool::context::ToolContext;
use crate::tool::sub_run_event::SubRunSink;
use crate::tool::Tool;
use golem_core::{ModelError, Moment, ToolCall, UsageLimits};
use std::sync::Arc;

pub(crate) struct RunResources<Deps> {
    pub(crate) models: Arc<[AnyModel]>,
    pub(crate) tools: Arc<[Tool<Deps>]>,
    /// The run's deps and ids: lent to the decoder as they are, and the
    /// source of every tool context (issue 37: no copy per decode).
    pub(crate) ctx: RunContext<Deps>,
    pub(crate) clock: Arc<dyn Clock>,
    /// The run's sub-run observers, for tool contexts (SPEC DELEG-04).
    pub(crate) sub_events: Option<SubRunSink>,
    /// The machine times streamed calls chunk by chunk (SPEC TIME-01): the
    /// driver must stay free to feed it the deadline while one streams
    /// (the async driver always is).
    #[cfg_attr(not(feature = "blocking"), allow(dead_code))]
    pub(crate) chunk_limits: bool,
    /// The run's configuration, for the caps on tool results (SPEC CAP-01).
    pub(crate) config: golem_core::machine::PreparedConfig,
}

impl<Deps> RunResources<Deps> {
    pub(crate) fn new<O>(
        agent: &AgentInner<Deps, O>,
        deps: Arc<Deps>,
        clock: Arc<dyn Clock>,
        ids: RunIds,
        sub_events: Option<SubRunSink>,
    ) -> Self {
        RunResources {
            models: Arc::clone(&agent.models),
            tools: Arc::clone(&agent.tools),
            ctx: RunContext::new(deps, ids),
            clock,
            sub_events,
            config: agent.config.clone(),
            chunk_limits: {
                let config = agent.config.config();
                config.first_chunk_timeout.is_some() || config.idle_timeout.is_some()
            },
        }
    }

    /// Fallback member `member`, or the error its call answers with: the
    /// machine only names members the agent has, so this is a fault report,
    /// not a panic.
    pub(crate) fn model(&self, member: u32) -> Result<&AnyModel, ModelError> {
        usize::try_from(member)
            .ok()
            .and_then(|m| self.models.get(m))
            .ok_or_else(|| ModelError::other(format!("no model at fallback position {member}")))
    }

    /// The context a tool body runs with.
    pub(crate) fn tool_context(
        &self,
        call: &ToolCall,
        deadline: Option<Moment>,
        approved: bool,
        limits_left: Option<Box<UsageLimits>>,
        token: CancellationToken,
    ) -> ToolContext<Deps> {
        let (deps, clock) = (Arc::clone(self.ctx.deps_arc()), Arc::clone(&self.clock));
        let mut ctx = ToolContext::for_call(deps, call, deadline, approved, token, clock, self.ctx.ids.clone())
            .forwarding(self.sub_events.clone())
            .with_limits_left(limits_left.map_or_else(UsageLimits::new, |l| *l));
        ctx.result_cap = self.config.result_cap(&call.name);
        ctx
    }
}

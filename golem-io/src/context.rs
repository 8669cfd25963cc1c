//! What a tool handler sees of its run (SPEC DRV-06).

use crate::cancel::CancellationToken;
use crate::clock::Clock;
use golem_core::Moment;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The context of one tool call: the run's dependencies and the call's
/// identity, deadline, cancellation signal and approval marker.
///
/// Blocking handlers borrow it; async handlers own it (it is cheap to clone:
/// the deps are an `Arc`), so their futures can be `'static`.
pub struct ToolContext<Deps> {
    pub(crate) deps: Arc<Deps>,
    pub(crate) call_id: String,
    pub(crate) tool_name: String,
    pub(crate) deadline: Option<Moment>,
    pub(crate) cancel: CancellationToken,
    pub(crate) approved: bool,
    pub(crate) clock: Arc<dyn Clock>,
}

impl<Deps> ToolContext<Deps> {
    /// The context of `call`, as a driver builds it.
    pub(crate) fn for_call(
        deps: Arc<Deps>,
        call: &golem_core::ToolCall,
        deadline: Option<Moment>,
        approved: bool,
        cancel: CancellationToken,
        clock: Arc<dyn Clock>,
    ) -> Self {
        ToolContext { deps, call_id: call.id.clone(), tool_name: call.name.clone(), deadline, cancel, approved, clock }
    }

    /// The run's dependencies.
    pub fn deps(&self) -> &Deps {
        &self.deps
    }

    /// The run's dependencies as the shared `Arc`, for work that outlives
    /// the call (a sub-run, a spawned thread).
    pub fn deps_arc(&self) -> &Arc<Deps> {
        &self.deps
    }

    /// The provider's id of this call.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The name the model called this tool by.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// When the call must have answered, on the run's clock.
    pub fn deadline(&self) -> Option<Moment> {
        self.deadline
    }

    /// Time left before the deadline (zero once it passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(self.clock.now()))
    }

    /// True once the run no longer wants this call's result.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The call's cancellation token, to hand to nested work.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// True when this is the approved re-run of a deferred call (SPEC DEFER-03).
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// The run's clock, so nested runs share its timeline.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

// Manual, so cloning a context never asks `Deps: Clone`.
impl<Deps> Clone for ToolContext<Deps> {
    fn clone(&self) -> Self {
        ToolContext {
            deps: Arc::clone(&self.deps),
            call_id: self.call_id.clone(),
            tool_name: self.tool_name.clone(),
            deadline: self.deadline,
            cancel: self.cancel.clone(),
            approved: self.approved,
            clock: Arc::clone(&self.clock),
        }
    }
}

impl<Deps> fmt::Debug for ToolContext<Deps> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Deps may hold secrets or be huge; never print them.
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool_name", &self.tool_name)
            .field("deadline", &self.deadline)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("approved", &self.approved)
            .finish_non_exhaustive()
    }
}

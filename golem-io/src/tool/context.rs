//! What a tool handler sees of its run (SPEC DRV-06).

use crate::run::cancel::CancellationToken;
use crate::run::clock::Clock;
use crate::run::ids::RunIds;
use crate::tool::progress::ToolProgress;
use crate::tool::sub_run_event::{SubRunCall, SubRunSink};
use golem_core::{Moment, SubRunUsage, UsageLimits};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The context of one tool call: the run's dependencies and ids, and the
/// call's identity, idempotency key, deadline, cancellation signal and
/// approval marker (SPEC DRV-06).
///
/// Every handler, blocking or async, gets its own (it is cheap to clone: the
/// deps are an `Arc`), so async handlers' futures can be `'static` and both
/// kinds have one shape.
pub struct ToolContext<Deps> {
    pub(crate) deps: Arc<Deps>,
    pub(crate) call_id: String,
    pub(crate) tool_name: String,
    pub(crate) deadline: Option<Moment>,
    pub(crate) cancel: CancellationToken,
    pub(crate) approved: bool,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: RunIds,
    /// The run's sub-run observers, when it has any: where a delegation
    /// tool forwards its sub-run's events (SPEC DELEG-04).
    pub(crate) sub_events: Option<SubRunSink>,
    /// The run's budget left when the call started, and what a sub-run
    /// of this call spent (issue 31): shared by the context's clones, read
    /// by the driver when the call ends.
    pub(crate) sub_run: Arc<SubRunSlot>,
    /// The cap on this call's result text (SPEC CAP-01), applied by the
    /// driver before the result is fed and logged; the machine caps too.
    pub(crate) result_cap: Option<u64>,
}

/// The budget a call's sub-run may spend, and what it reported spending.
#[derive(Debug, Default)]
pub(crate) struct SubRunSlot {
    limits_left: UsageLimits,
    spent: Mutex<Option<SubRunUsage>>,
}

impl SubRunSlot {
    /// What the call's sub-runs reported spending, once.
    pub(crate) fn take(&self) -> Option<SubRunUsage> {
        self.spent.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }
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
        ids: RunIds,
    ) -> Self {
        let (call_id, tool_name) = (call.id.clone(), call.name.clone());
        let sub_run = Arc::default();
        ToolContext {
            deps,
            call_id,
            tool_name,
            deadline,
            cancel,
            approved,
            clock,
            ids,
            sub_events: None,
            sub_run,
            result_cap: None,
        }
    }

    /// This context with what the run's limits left when the call started.
    pub(crate) fn with_limits_left(mut self, limits_left: UsageLimits) -> Self {
        // The slot `for_call` made is not shared yet: set in place rather
        // than allocate a second one (issue 37).
        match Arc::get_mut(&mut self.sub_run) {
            Some(slot) => slot.limits_left = limits_left,
            None => self.sub_run = Arc::new(SubRunSlot { limits_left, spent: Mutex::new(None) }),
        }
        self
    }

    /// The call's sub-run slot, for the driver to read when the call ends.
    pub(crate) fn sub_run_slot(&self) -> Arc<SubRunSlot> {
        Arc::clone(&self.sub_run)
    }

    /// What the run's usage limits left when this call started: each bound
    /// minus what the run had used by then, unbounded dimensions `None`.
    /// A tool that runs model calls of its own (a delegation to another
    /// agent does) keeps within it, so the limits of the run at the top
    /// bound the whole tree.
    pub fn usage_left(&self) -> &UsageLimits {
        &self.sub_run.limits_left
    }

    /// Report what work this call started on its own spent — a sub-run's
    /// tokens, requests, tool calls and cost. When the call ends it is
    /// rolled into the run's totals and checked against its limits, and the
    /// run's result lists it per call (`RunResult::sub_runs`). Reports add
    /// up; delegation tools report their sub-runs themselves.
    pub fn report_spent(&self, spent: SubRunUsage) {
        let mut slot = self.sub_run.spent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let total = slot.get_or_insert_with(SubRunUsage::default);
        total.usage.add(&spent.usage);
        total.requests = total.requests.saturating_add(spent.requests);
        total.tool_calls = total.tool_calls.saturating_add(spent.tool_calls);
        total.cost = match (total.cost, spent.cost) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }

    /// This context with the run's sub-run observers as its forwarding sink.
    pub(crate) fn forwarding(mut self, sub_events: Option<SubRunSink>) -> Self {
        self.sub_events = sub_events;
        self
    }

    /// Where a sub-run started by this call forwards its events, tagged with
    /// this call; `None` when the run has no sub-run observers.
    pub(crate) fn sub_run_forwarder(&self) -> Option<(SubRunSink, SubRunCall)> {
        let call = SubRunCall { call_id: self.call_id.clone(), tool_name: self.tool_name.clone() };
        self.sub_events.clone().map(|sink| (sink, call))
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

    /// The id of the run making this call (SPEC EXTRA-01): a UUIDv7 the
    /// driver minted, or the one the caller gave. A crash resume
    /// ([`RunBuilder::continue_log`](crate::RunBuilder::continue_log))
    /// continues the same run, so the same id.
    pub fn run_id(&self) -> &str {
        &self.ids.run_id
    }

    /// The id of the conversation the run belongs to (SPEC EXTRA-01).
    pub fn conversation_id(&self) -> &str {
        &self.ids.conversation_id
    }

    /// A key naming this call for de-duplication by external systems (SPEC
    /// LOG-07): `"{run_id}:{call_id}"`. It depends on nothing but the run
    /// and the model's call, so when a crash resume re-runs a call whose
    /// outcome was lost ([`UnknownOutcome::Redo`](golem_core::tool::UnknownOutcome::Redo))
    /// the tool sees the key of the first attempt again: pass it to a
    /// payment API's `Idempotency-Key` header, a unique column, and so on.
    /// It is unique as long as the provider's call ids are unique within a
    /// run, as providers make them.
    ///
    /// A call approved on a resume of a paused run (SPEC PAUSE-01) is keyed
    /// by the run that paused on it — `"{paused_run_id}:{call_id}"` — not by
    /// the resuming run: should the application resume one pause twice by
    /// mistake, the tool sees the same key both times and can refuse the
    /// second.
    pub fn idempotency_key(&self) -> String {
        format!("{}:{}", self.ids.key_run(&self.call_id, self.approved), self.call_id)
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
    pub fn is_canceled(&self) -> bool {
        self.cancel.is_canceled()
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

    /// Tell the run's [progress observers](crate::RunBuilder::on_tool_progress)
    /// how far this call has come: `progress` of `total` (when known), with
    /// an optional note. Nothing happens when nobody listens.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.sub_events {
            sink.progress(&ToolProgress {
                call_id: self.call_id.clone(),
                tool_name: self.tool_name.clone(),
                progress,
                total,
                message: message.map(str::to_string),
            });
        }
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
            ids: self.ids.clone(),
            sub_events: self.sub_events.clone(),
            sub_run: Arc::clone(&self.sub_run),
            result_cap: self.result_cap,
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
            .field("canceled", &self.cancel.is_canceled())
            .field("approved", &self.approved)
            .field("run_id", &self.ids.run_id)
            .field("conversation_id", &self.ids.conversation_id)
            .finish_non_exhaustive()
    }
}

//! Sub-runs' spending rolled into the delegating run (SPEC DELEG-04 as
//! amended by issue 31): what a delegation tool's sub-run spent joins the
//! run's totals and is checked against its limits, so the limits of the run
//! at the top bound the whole tree; and the budget a run has left, which a
//! delegation hands its sub-run as limits of its own.

use super::ids::IdKind;
use super::limits;
use super::vocabulary::{ApiMisuse, ToolCallId};
use super::{Phase, RunMachine};
use crate::config::UsageLimits;
use crate::error::{Cause, Stage};
use crate::event::EventKind;
use crate::sub_run::{SubRunShare, SubRunUsage};

impl RunMachine {
    pub(super) fn on_sub_run_spent(&mut self, id: ToolCallId, spent: SubRunUsage) -> Result<(), ApiMisuse> {
        self.ids.check_known(IdKind::Tool, id.0)?;
        if !self.ids.is_pending(IdKind::Tool, id.0) {
            // The call was abandoned (a timeout, a sibling's failure): its
            // answer no longer counts, and neither does what it reports.
            return Ok(());
        }
        let call = match &self.phase {
            Phase::Tools(batch) => batch.running_call(id),
            Phase::Resuming(resume) => resume.running_call(id),
            _ => None,
        };
        let Some(call) = call else { return Ok(()) };
        let (call_id, tool) = (call.id.clone(), call.name.clone());
        self.ev.usage.add(&spent.usage);
        self.ev.requests = self.ev.requests.saturating_add(spent.requests);
        self.ev.tool_calls = self.ev.tool_calls.saturating_add(spent.tool_calls);
        if let Some(cost) = spent.cost.filter(|c| c.is_finite() && *c > 0.0) {
            self.ev.delegated_cost += cost;
            self.ev.cost = Some(self.ev.cost.unwrap_or(0.0) + cost);
        }
        self.ev.sub_runs.push(SubRunShare { call_id: call_id.clone(), tool: tool.clone(), spent });
        self.emit(EventKind::SubRunSpent { turn: self.turn, call_id, tool, spent });
        let limits = &self.limits;
        let crossed = limits::after_response(limits, &self.ev.usage, self.ev.cost)
            .or_else(|| limits::crossed_requests(limits, self.ev.requests))
            .or_else(|| limits::crossed_tool_calls(limits, self.ev.tool_calls));
        if let Some(crossed) = crossed {
            self.fail(Stage::Usage, Cause::Usage(crossed));
        }
        Ok(())
    }

    /// What the run's limits leave for a sub-run starting now: each bound
    /// minus what the run has used (the requests and tool calls it made so
    /// far included), unbounded dimensions unbounded. A delegation gives
    /// its sub-run these as limits, so the sub-run stops where the whole
    /// tree would cross.
    pub fn limits_left(&self) -> UsageLimits {
        let limits = &self.limits;
        let usage = &self.ev.usage;
        let left = |limit: Option<u64>, used: u64| limit.map(|l| l.saturating_sub(used));
        let mut out = UsageLimits::new();
        out.input_tokens = left(limits.input_tokens, usage.input_tokens);
        out.output_tokens = left(limits.output_tokens, usage.output_tokens);
        out.total_tokens = left(limits.total_tokens, usage.total_tokens());
        out.requests = left(limits.requests, self.ev.requests);
        out.tool_calls = left(limits.tool_calls, self.ev.tool_calls);
        out.cost_micro_usd =
            left(limits.cost_micro_usd, self.ev.cost.map_or(0, |usd| (usd * 1e6).round().max(0.0) as u64));
        out
    }
}

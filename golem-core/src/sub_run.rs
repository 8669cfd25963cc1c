//! What a sub-run spent, rolled into the run that delegated to it (issue 31,
//! SPEC DELEG-04 as amended): a delegated agent's tokens, requests, tool
//! calls and cost count toward the delegating run's totals and limits, so
//! the limits of the run at the top bound the whole tree.

use crate::message::Usage;
use serde::{Deserialize, Serialize};

/// The usage, requests, tool calls and estimated cost of one sub-run (and,
/// rolled up already, of the sub-runs it delegated to in turn).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubRunUsage {
    /// Tokens.
    pub usage: Usage,
    /// Provider calls, failed attempts included.
    pub requests: u64,
    /// Tool dispatches.
    pub tool_calls: u64,
    /// The estimated cost in US dollars, when the sub-run's agent prices
    /// every model it used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

impl SubRunUsage {
    /// What a sub-run spent.
    pub fn new(usage: Usage, requests: u64, tool_calls: u64, cost: Option<f64>) -> Self {
        SubRunUsage { usage, requests, tool_calls, cost }
    }

    /// True when it spent nothing at all.
    pub fn is_zero(&self) -> bool {
        self.usage.is_zero() && self.requests == 0 && self.tool_calls == 0 && self.cost.is_none_or(|c| c == 0.0)
    }
}

/// One sub-run's share of a run's totals: the delegating call and what its
/// sub-run spent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubRunShare {
    /// The provider's id of the delegating tool call.
    pub call_id: String,
    /// The delegating tool's name.
    pub tool: String,
    /// What the sub-run spent.
    pub spent: SubRunUsage,
}

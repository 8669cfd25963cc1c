//! Progress a tool reports while it runs (SPEC MCP-16): out of band, like
//! forwarded sub-run events — not a run event, no `seq`, not logged — so a
//! UI can show a long tool call moving without the run's record changing.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One progress report of a running tool call, as
/// [`RunBuilder::on_tool_progress`](crate::RunBuilder::on_tool_progress)
/// observers hear it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolProgress {
    /// The provider's id of the call (as its `tool_start` event has it).
    pub call_id: String,
    /// The name the model called the tool by.
    pub tool_name: String,
    /// How far along, in the tool's own units; it only grows.
    pub progress: f64,
    /// The total, when the tool knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable note, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A progress observer as a run stores it.
pub(crate) type ToolProgressObserver = Arc<dyn Fn(&ToolProgress) + Send + Sync>;

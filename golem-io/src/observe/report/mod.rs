//! A run you can look at (SPEC OBS-06): an event log as one HTML page.

mod html;
mod timeline;

use super::settings::TraceSettings;
use golem_core::log::{EventLog, ReplayError};

/// Why a log has no report.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The log does not replay (a log of another golem, or damaged).
    #[error("the log does not replay: {0}")]
    Replay(#[from] ReplayError),
}

/// Render the run `log` recorded as one self-contained HTML page: totals
/// (turns, model attempts, tool calls, tokens, requests, duration, estimated
/// cost when `settings` prices the models), then a timeline of every model
/// attempt and tool execution with its offset, duration and bar, retries,
/// rejected answers and errors highlighted, responses, tool arguments and
/// results and the conversation expandable.
///
/// Every string from the run is escaped: a log holds model output and tool
/// data, which are untrusted. The page loads nothing from anywhere (its
/// Content-Security-Policy forbids it) and works offline.
///
/// ```
/// use golem_core::testing::ScriptedModel;
/// use golem_io::observe::{render_html, TraceSettings};
/// use golem_io::Agent;
///
/// let agent = Agent::<()>::builder(ScriptedModel::new().text("<b>hi</b>")).build()?;
/// let mut bytes = Vec::new();
/// agent.run_with(()).prompt("hello").record(&mut bytes).call()?;
/// let log = golem_core::log::EventLog::read_bytes(&bytes)?.log;
/// let page = render_html(&log, &TraceSettings::new())?;
/// assert!(page.contains("&lt;b&gt;hi&lt;/b&gt;") && !page.contains("<b>hi</b>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_html(log: &EventLog, settings: &TraceSettings) -> Result<String, ReportError> {
    let timeline = timeline::Timeline::of(log, settings)?;
    Ok(html::page(&timeline))
}

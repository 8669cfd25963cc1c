//! How a tool call ends: a result, or one of the ways it can decline or
//! fail (SPEC TOOL-02, TOOL-03), and how that becomes the machine's record.

use golem_core::machine::ToolOutcome;
use golem_core::model::BoxError;
use golem_core::{CauseRecord, DeferKind, Part};

/// What a tool hands back to the model: text, optionally with media parts.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolResult {
    /// The text the model reads.
    pub content: String,
    /// Media parts following the text (validated by the machine).
    pub parts: Vec<Part>,
}

impl ToolResult {
    /// A text-only result.
    pub fn text(content: impl Into<String>) -> Self {
        ToolResult { content: content.into(), parts: Vec::new() }
    }

    /// Builder-style: attach media parts.
    pub fn with_parts(mut self, parts: Vec<Part>) -> Self {
        self.parts = parts;
        self
    }
}

impl From<String> for ToolResult {
    fn from(content: String) -> Self {
        ToolResult::text(content)
    }
}

impl From<&str> for ToolResult {
    fn from(content: &str) -> Self {
        ToolResult::text(content)
    }
}

/// How a tool call can end other than with a result (SPEC TOOL-03).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// Correctable: the model should fix its arguments and call again
    /// (charged to the correction budget).
    #[error("{0}")]
    Reject(String),
    /// A definitive failure shown to the model; no budget is charged.
    #[error("{0}")]
    Failed(String),
    /// Pause the run until a human approves or an external result arrives.
    #[error("deferred for {kind:?}: {reason}")]
    Defer {
        /// What the call waits for.
        kind: DeferKind,
        /// The explanation for whoever resolves it.
        reason: String,
    },
    /// Stop the whole run deliberately (canceled stage).
    #[error("the tool canceled the run: {0}")]
    CancelRun(String),
    /// Anything else: the run fails at the tool stage with this error in
    /// its `source()` chain.
    #[error(transparent)]
    Fatal(BoxError),
}

impl ToolError {
    /// A correctable rejection.
    pub fn reject(reason: impl Into<String>) -> Self {
        ToolError::Reject(reason.into())
    }

    /// A failed result shown to the model.
    pub fn failed(reason: impl Into<String>) -> Self {
        ToolError::Failed(reason.into())
    }

    /// Defer the call until a human approves it; the approved re-run sees
    /// [`ToolContext::is_approved`](crate::ToolContext::is_approved).
    pub fn approval(reason: impl Into<String>) -> Self {
        ToolError::Defer { kind: DeferKind::Approval, reason: reason.into() }
    }

    /// Defer the call until its result is produced outside the run.
    pub fn external(reason: impl Into<String>) -> Self {
        ToolError::Defer { kind: DeferKind::External, reason: reason.into() }
    }

    /// Stop the run.
    pub fn cancel_run(reason: impl Into<String>) -> Self {
        ToolError::CancelRun(reason.into())
    }

    /// A fatal error.
    pub fn fatal(error: impl Into<BoxError>) -> Self {
        ToolError::Fatal(error.into())
    }
}

/// A tool's outcome split into the serialisable record the machine gets and
/// the error object the driver keeps for `RunError::source` (SPEC MACH-02).
pub(crate) fn into_outcome(result: Result<ToolResult, ToolError>) -> (ToolOutcome, Option<BoxError>) {
    match result {
        Ok(r) => (ToolOutcome::Output { content: r.content, parts: r.parts }, None),
        Err(ToolError::Reject(reason)) => (ToolOutcome::Reject { reason }, None),
        Err(ToolError::Failed(reason)) => (ToolOutcome::Failed { reason }, None),
        Err(ToolError::Defer { kind, reason }) => (ToolOutcome::Defer { kind, reason }, None),
        Err(ToolError::CancelRun(reason)) => (ToolOutcome::CancelRun { reason }, None),
        Err(ToolError::Fatal(error)) => {
            let cause = CauseRecord::new(error_tag(error.as_ref()), error.to_string());
            (ToolOutcome::Fatal { cause }, Some(error))
        }
    }
}

/// A short, stable tag for a boxed error's kind: the cause record must be
/// serialisable, and a `dyn Error` has no type name to offer.
fn error_tag(error: &(dyn std::error::Error + Send + Sync + 'static)) -> &'static str {
    if error.is::<golem_core::RunError>() {
        "run_error"
    } else if error.is::<crate::Error>() {
        "golem_error"
    } else if error.is::<crate::exec::Panicked>() {
        "panic"
    } else {
        "error"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fatal_keeps_the_error_object_and_records_its_display() {
        let (outcome, kept) = into_outcome(Err(ToolError::fatal("disk on fire")));
        assert_eq!(outcome, ToolOutcome::Fatal { cause: CauseRecord::new("error", "disk on fire") });
        assert_eq!(kept.map(|e| e.to_string()).as_deref(), Some("disk on fire"));
    }

    #[test]
    fn each_variant_maps_to_its_outcome() {
        assert_eq!(into_outcome(Ok("x".into())).0, ToolOutcome::output("x"));
        assert_eq!(into_outcome(Err(ToolError::reject("r"))).0, ToolOutcome::Reject { reason: "r".into() });
        assert_eq!(into_outcome(Err(ToolError::failed("f"))).0, ToolOutcome::Failed { reason: "f".into() });
        assert_eq!(
            into_outcome(Err(ToolError::approval("ok?"))).0,
            ToolOutcome::Defer { kind: DeferKind::Approval, reason: "ok?".into() }
        );
        assert_eq!(
            into_outcome(Err(ToolError::external("later"))).0,
            ToolOutcome::Defer { kind: DeferKind::External, reason: "later".into() }
        );
        assert_eq!(
            into_outcome(Err(ToolError::cancel_run("stop"))).0,
            ToolOutcome::CancelRun { reason: "stop".into() }
        );
    }
}

//! How a tool call ends: a result, or one of the ways it can decline or
//! fail (SPEC TOOL-02, TOOL-03), and how that becomes the machine's record.

use golem_core::machine::ToolOutcome;
use golem_core::model::BoxError;
use golem_core::{CauseRecord, DeferKind, Part};
use serde::Serialize;
use std::fmt;

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

/// What a tool handler may return on success: a [`ToolResult`] (text and
/// media parts), or any `Serialize` value — JSON-encoded for the model,
/// except that a value serialising to a JSON string (a `String`, a `&str`)
/// is given as is, unquoted.
///
/// ```
/// use golem_io::IntoToolResult;
///
/// #[derive(serde::Serialize)]
/// struct Forecast {
///     city: &'static str,
///     celsius: i32,
/// }
///
/// assert_eq!(Forecast { city: "Lagos", celsius: 31 }.into_tool_result()?.content, r#"{"city":"Lagos","celsius":31}"#);
/// assert_eq!("sunny".into_tool_result()?.content, "sunny");
/// assert_eq!(42.into_tool_result()?.content, "42");
/// # Ok::<(), golem_io::ToolError>(())
/// ```
pub trait IntoToolResult {
    /// The result for the model; a value that cannot be encoded is a fatal
    /// error.
    fn into_tool_result(self) -> Result<ToolResult, ToolError>;
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> Result<ToolResult, ToolError> {
        Ok(self)
    }
}

impl<T: Serialize> IntoToolResult for T {
    fn into_tool_result(self) -> Result<ToolResult, ToolError> {
        // Text (a `String`, most tools' answer) is taken as it is, with no
        // trip through JSON and back.
        if let Some(text) = super::as_text::text_of(&self) {
            return Ok(ToolResult::text(text));
        }
        // Written directly, not through `Value`, so a struct keeps its field
        // order; a JSON string is unquoted again.
        let json = serde_json::to_string(&self).map_err(ToolError::fatal)?;
        if json.starts_with('"') {
            return Ok(ToolResult::text(serde_json::from_str::<String>(&json).map_err(ToolError::fatal)?));
        }
        Ok(ToolResult::text(json))
    }
}

/// How a tool call can end other than with a result (SPEC TOOL-03).
///
/// `?` works in tool bodies on any error that converts into a [`BoxError`]:
/// every `std::error::Error + Send + Sync + 'static`, a [`BoxError`]
/// itself, `anyhow::Error`, `String` and `&str`. The error becomes a
/// **failed result** ([`ToolError::FailedBy`], SPEC TOOL-02) — shown to
/// the model as its display text, flagged `failed`, no correction budget
/// charged, the run goes on — and the error object is not lost: its
/// display text and its `source()` chain go into the run's `ToolEnd`
/// event and its log ([`CauseRecord`]). That is what an I/O error, a failed lookup or
/// an HTTP error usually deserves: the model can try something else. To
/// ask the model to fix its call instead, or to fail the whole run, say so
/// with [`ToolErrorExt`] (`.or_reject()?`, `.or_fatal()?`) or the
/// constructors ([`ToolError::reject`], [`ToolError::fatal`]).
///
/// ```
/// use golem_io::{Tool, ToolErrorExt};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Read {
///     /// A number, as text.
///     n: String,
/// }
///
/// let parse = Tool::typed("parse", "Parse a number.", |_ctx, args: Read| {
///     let n: i64 = args.n.trim().parse().or_reject()?; // the model fixes its call
///     let file = std::fs::read_to_string(format!("/nonexistent/{n}"))?; // a failed result
///     Ok(file)
/// });
/// # let _: Tool<()> = parse;
/// ```
#[non_exhaustive]
pub enum ToolError {
    /// Correctable: the model should fix its arguments and call again
    /// (charged to the correction budget).
    Reject(String),
    /// A definitive failure shown to the model; no budget is charged.
    Failed(String),
    /// A failed result caused by an error — what `?` makes of one. The
    /// model sees the error's display text, as with
    /// [`Failed`](ToolError::Failed); the run's events and log keep the
    /// error's `source()` chain as well.
    FailedBy(BoxError),
    /// Pause the run until a human approves or an external result arrives.
    Defer {
        /// What the call waits for.
        kind: DeferKind,
        /// The explanation for whoever resolves it.
        reason: String,
    },
    /// Stop the whole run deliberately (canceled stage).
    CancelRun(String),
    /// Anything else: the run fails at the tool stage with this error in
    /// its `source()` chain.
    Fatal(BoxError),
}

/// `?` on any error in a tool body: a failed result carrying the error.
/// Any `Into<BoxError>` converts — concrete error types, `BoxError`,
/// `anyhow::Error` — which holds only because `ToolError` is not itself a
/// `std::error::Error`: it is a tool's verdict, never something to box and
/// pass on.
///
/// A type that is neither an error nor text does not convert, and rustc
/// says so at the `?`:
///
/// ```compile_fail
/// use golem_io::ToolError;
///
/// /// Not a `std::error::Error`: `?` cannot turn it into a `ToolError`.
/// #[derive(Debug)]
/// struct Code(u32);
///
/// fn lookup() -> Result<String, Code> {
///     Err(Code(404))
/// }
///
/// fn body() -> Result<String, ToolError> {
///     // error[E0277]: `?` couldn't convert the error to `ToolError`
///     //   the trait `From<Code>` is not implemented for `ToolError`
///     // Fix: implement `std::error::Error` for `Code`, or say what it
///     // means: `lookup().map_err(|c| ToolError::failed(format!("code {}", c.0)))?`
///     Ok(lookup()?)
/// }
/// ```
impl<E: Into<BoxError>> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::FailedBy(error.into())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Reject(reason) | ToolError::Failed(reason) => f.write_str(reason),
            ToolError::FailedBy(error) => error.fmt(f),
            ToolError::Defer { kind, reason } => write!(f, "deferred for {kind:?}: {reason}"),
            ToolError::CancelRun(reason) => write!(f, "the tool canceled the run: {reason}"),
            ToolError::Fatal(error) => error.fmt(f),
        }
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Reject(reason) => f.debug_tuple("Reject").field(reason).finish(),
            ToolError::Failed(reason) => f.debug_tuple("Failed").field(reason).finish(),
            ToolError::FailedBy(error) => f.debug_tuple("FailedBy").field(error).finish(),
            ToolError::Defer { kind, reason } => {
                f.debug_struct("Defer").field("kind", kind).field("reason", reason).finish()
            }
            ToolError::CancelRun(reason) => f.debug_tuple("CancelRun").field(reason).finish(),
            ToolError::Fatal(error) => f.debug_tuple("Fatal").field(error).finish(),
        }
    }
}

/// Say what an error in a tool body means, for `?`: by default it is a
/// failed result ([`ToolError`]'s `From`); these make it a correctable
/// rejection or a fatal error instead.
pub trait ToolErrorExt<T> {
    /// On error, a correctable rejection (SPEC TOOL-03): the model is told
    /// the error's text and asked to fix its call.
    fn or_reject(self) -> Result<T, ToolError>;

    /// On error, a fatal error: the run fails at the tool stage with the
    /// error in its `source()` chain.
    fn or_fatal(self) -> Result<T, ToolError>;
}

impl<T, E: Into<BoxError>> ToolErrorExt<T> for Result<T, E> {
    fn or_reject(self) -> Result<T, ToolError> {
        self.map_err(|e| ToolError::Reject(e.into().to_string()))
    }

    fn or_fatal(self) -> Result<T, ToolError> {
        self.map_err(ToolError::fatal)
    }
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
        Err(ToolError::Failed(reason)) => (ToolOutcome::failed(reason), None),
        Err(ToolError::FailedBy(error)) => {
            let cause = CauseRecord::of(error_tag(error.as_ref()), error.as_ref());
            (ToolOutcome::Failed { reason: cause.message.clone(), cause: Some(cause) }, None)
        }
        Err(ToolError::Defer { kind, reason }) => (ToolOutcome::Defer { kind, reason }, None),
        Err(ToolError::CancelRun(reason)) => (ToolOutcome::CancelRun { reason }, None),
        Err(ToolError::Fatal(error)) => {
            let cause = CauseRecord::of(error_tag(error.as_ref()), error.as_ref());
            (ToolOutcome::Fatal { cause }, Some(error))
        }
    }
}

/// A short, stable tag for a boxed error's kind: the cause record must be
/// serialisable, and a `dyn Error` has no type name to offer.
pub(crate) fn error_tag(error: &(dyn std::error::Error + 'static)) -> &'static str {
    if error.is::<golem_core::RunError>() {
        "run_error"
    } else if error.is::<crate::Error>() {
        "golem_error"
    } else if error.is::<crate::run::contain::Panicked>() {
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

    #[derive(Debug, thiserror::Error)]
    #[error("disk on fire")]
    struct Disk;

    fn failing() -> Result<(), Disk> {
        Err(Disk)
    }

    #[test]
    fn question_mark_makes_a_failed_result_and_the_extension_says_otherwise() {
        let body = || -> Result<(), ToolError> { Ok(failing()?) };
        let cause = Some(CauseRecord::new("error", "disk on fire"));
        assert_eq!(into_outcome_of(body()), ToolOutcome::Failed { reason: "disk on fire".into(), cause });
        let body = || -> Result<(), ToolError> { failing().or_reject() };
        assert_eq!(into_outcome_of(body()), ToolOutcome::Reject { reason: "disk on fire".into() });
        let body = || -> Result<(), ToolError> { failing().or_fatal() };
        assert_eq!(into_outcome_of(body()), ToolOutcome::Fatal { cause: CauseRecord::new("error", "disk on fire") });
    }

    fn into_outcome_of(result: Result<(), ToolError>) -> ToolOutcome {
        into_outcome(result.and_then(|()| "unused".into_tool_result())).0
    }

    #[test]
    fn serializable_values_are_json_and_strings_are_as_is() {
        #[derive(serde::Serialize)]
        struct Point {
            x: i32,
        }
        assert_eq!(Point { x: 3 }.into_tool_result().unwrap().content, r#"{"x":3}"#);
        assert_eq!(vec![1, 2].into_tool_result().unwrap().content, "[1,2]");
        assert_eq!(String::from("plain").into_tool_result().unwrap().content, "plain");
        assert_eq!(ToolResult::text("t").into_tool_result().unwrap().content, "t");
        let unencodable = std::collections::BTreeMap::from([((1, 2), "x")]);
        assert!(matches!(unencodable.into_tool_result(), Err(ToolError::Fatal(_))));
    }

    #[test]
    fn each_variant_maps_to_its_outcome() {
        assert_eq!(into_outcome(Ok("x".into())).0, ToolOutcome::output("x"));
        assert_eq!(into_outcome(Err(ToolError::reject("r"))).0, ToolOutcome::Reject { reason: "r".into() });
        assert_eq!(into_outcome(Err(ToolError::failed("f"))).0, ToolOutcome::failed("f"));
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

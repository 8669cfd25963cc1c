//! The Responses API's tuning: the shared sampling and length fields
//! ([`crate::tuning`]) — temperature, top_p and `max_output_tokens`; the
//! API takes no stop sequences, no seed and no top_k — plus its own:
//! reasoning effort and summary, parallel tool calls, truncation, the
//! service tier, the end-user id and the web search's context size.

pub use crate::tuning::TuningError;
use crate::tuning::{self, Extras, Limits, WireNames};

/// The Responses API's tuning: the shared fields and [`ResponsesExtras`].
///
/// ```
/// use golem_providers::responses::Tuning;
///
/// let tuning = Tuning::new().max_output_tokens(2048).reasoning_effort("high").reasoning_summary("auto");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().stop("END").validate().is_err(), "the Responses API takes no stop sequences");
/// assert!(Tuning::new().temperature(2.5).validate().is_err());
/// ```
pub type Tuning = tuning::Tuning<ResponsesExtras>;

/// The tuning fields only the Responses API has.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ResponsesExtras {
    /// `reasoning.effort` for reasoning models (`minimal`, `low`, `medium`,
    /// `high`, … as the model documents).
    pub reasoning_effort: Option<String>,
    /// `reasoning.summary`: `auto`, `concise` or `detailed` — what the
    /// model shows of its reasoning, decoded as thinking text.
    pub reasoning_summary: Option<String>,
    /// `parallel_tool_calls`; sent only when the request has tools.
    pub parallel_tool_calls: Option<bool>,
    /// `truncation`: `auto` lets the service drop the oldest input when
    /// the context overflows; `disabled` (its default) fails instead.
    pub truncation: Option<String>,
    /// A service tier (`auto`, `default`, `flex`, `priority`).
    pub service_tier: Option<String>,
    /// An end-user identifier for abuse monitoring (`safety_identifier`).
    pub safety_identifier: Option<String>,
    /// How much context a declared web search brings in (`low`, `medium`,
    /// `high`): the `web_search` tool's `search_context_size`.
    pub search_context_size: Option<String>,
}

impl Extras for ResponsesExtras {
    /// Temperature in [0, 2]; the output-token limit is
    /// `max_output_tokens`.
    const LIMITS: Limits =
        Limits::new("Responses", 2.0, WireNames::new("temperature", "top_p", "max_output_tokens", "stop").no_stop());

    fn check(&self) -> Result<(), TuningError> {
        tuning::text("reasoning_effort", self.reasoning_effort.as_deref())?;
        tuning::text("reasoning_summary", self.reasoning_summary.as_deref())?;
        tuning::text("truncation", self.truncation.as_deref())?;
        tuning::text("service_tier", self.service_tier.as_deref())?;
        tuning::text("safety_identifier", self.safety_identifier.as_deref())?;
        tuning::text("search_context_size", self.search_context_size.as_deref())
    }
}

impl Tuning {
    crate::macros::setters! {
        /// Set the output-token limit (`max_output_tokens`; the same as
        /// `max_tokens`).
        fn max_output_tokens(value: u32) => max_tokens = Some(value);
        /// Set the reasoning effort.
        fn reasoning_effort(value: impl Into<String>) => extras.reasoning_effort = Some(value.into());
        /// Ask for a reasoning summary (`auto`, `concise`, `detailed`).
        fn reasoning_summary(value: impl Into<String>) => extras.reasoning_summary = Some(value.into());
        /// Allow or forbid parallel tool calls.
        fn parallel_tool_calls(value: bool) => extras.parallel_tool_calls = Some(value);
        /// Set the truncation strategy (`auto` or `disabled`).
        fn truncation(value: impl Into<String>) => extras.truncation = Some(value.into());
        /// Set the service tier.
        fn service_tier(value: impl Into<String>) => extras.service_tier = Some(value.into());
        /// Set the end-user identifier.
        fn safety_identifier(value: impl Into<String>) => extras.safety_identifier = Some(value.into());
        /// Set how much context a declared web search brings in.
        fn search_context_size(value: impl Into<String>) => extras.search_context_size = Some(value.into());
    }
}

//! Chat Completions' tuning (SPEC PROV-COMMON-02, PROV-OAI-02): the shared
//! sampling and length fields ([`crate::tuning`]) plus the fields only
//! this format has — reasoning effort, parallel tool calls, penalties, the
//! end-user id and the service tier.

pub use crate::tuning::TuningError;
use crate::tuning::{self, Extras, Limits, WireNames};

/// Chat Completions' tuning: the shared fields (`top_k` is not taken) and
/// [`ChatExtras`].
///
/// ```
/// use golem_providers::chat_completions::Tuning;
///
/// let tuning = Tuning::new().temperature(0.2).max_tokens(512).reasoning_effort("low");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().temperature(2.5).validate().is_err());
/// assert!(Tuning::new().top_k(40).validate().is_err(), "not a Chat Completions field");
/// ```
pub type Tuning = tuning::Tuning<ChatExtras>;

/// The tuning fields only Chat Completions has.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ChatExtras {
    /// `reasoning_effort` for reasoning models (e.g. `low`, `medium`, `high`).
    pub reasoning_effort: Option<String>,
    /// `parallel_tool_calls`; sent only when the request has tools.
    pub parallel_tool_calls: Option<bool>,
    /// Presence penalty, `[-2, 2]`.
    pub presence_penalty: Option<f64>,
    /// Frequency penalty, `[-2, 2]`.
    pub frequency_penalty: Option<f64>,
    /// An end-user identifier for abuse monitoring.
    pub user: Option<String>,
    /// A service tier (e.g. `auto`, `flex`).
    pub service_tier: Option<String>,
    /// `response_format: {"type": "json_object"}`: the answer is some JSON
    /// object (JSON mode), for models without schema support. A native
    /// output schema, when the run has one, takes its place.
    pub json_object: bool,
    /// How much context a web search gathers (`low`, `medium`, `high`),
    /// sent in `web_search_options` when the request declares web search.
    pub search_context_size: Option<String>,
}

impl Extras for ChatExtras {
    /// Temperature in [0, 2]; the output-token limit goes in the dialect's
    /// field (`max_tokens` or `max_completion_tokens`).
    const LIMITS: Limits =
        Limits::new("Chat Completions", 2.0, WireNames::new("temperature", "top_p", "max_tokens", "stop").seed("seed"));

    fn check(&self) -> Result<(), TuningError> {
        tuning::range("presence_penalty", self.presence_penalty, -2.0, 2.0)?;
        tuning::range("frequency_penalty", self.frequency_penalty, -2.0, 2.0)?;
        tuning::text("reasoning_effort", self.reasoning_effort.as_deref())?;
        tuning::text("user", self.user.as_deref())?;
        tuning::text("service_tier", self.service_tier.as_deref())?;
        tuning::text("search_context_size", self.search_context_size.as_deref())
    }
}

impl Tuning {
    crate::macros::setters! {
        /// Set the reasoning effort.
        fn reasoning_effort(value: impl Into<String>) => extras.reasoning_effort = Some(value.into());
        /// Allow or forbid parallel tool calls.
        fn parallel_tool_calls(value: bool) => extras.parallel_tool_calls = Some(value);
        /// Set the presence penalty.
        fn presence_penalty(value: f64) => extras.presence_penalty = Some(value);
        /// Set the frequency penalty.
        fn frequency_penalty(value: f64) => extras.frequency_penalty = Some(value);
        /// Set the end-user identifier.
        fn user(value: impl Into<String>) => extras.user = Some(value.into());
        /// Set the service tier.
        fn service_tier(value: impl Into<String>) => extras.service_tier = Some(value.into());
        /// Ask for JSON mode (`response_format: json_object`).
        fn json_object(value: bool) => extras.json_object = value;
        /// Set the web search context size (`low`, `medium`, `high`).
        fn search_context_size(value: impl Into<String>) => extras.search_context_size = Some(value.into());
    }
}

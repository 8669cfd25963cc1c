//! Sampling and request-tuning fields (SPEC PROV-COMMON-02, PROV-OAI-02).
//!
//! Every field is optional and stays off the wire while unset — `0.0` is a
//! real temperature, so "unset" cannot be a number. Ranges are checked once,
//! when a provider config is built, not on every request.

/// Request-tuning fields for Chat Completions.
///
/// ```
/// use golem_providers::chat_completions::Tuning;
///
/// let tuning = Tuning::new().temperature(0.2).max_tokens(512).reasoning_effort("low");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().temperature(2.5).validate().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Tuning {
    /// Sampling temperature, `[0, 2]`.
    pub temperature: Option<f64>,
    /// Nucleus sampling, `[0, 1]`.
    pub top_p: Option<f64>,
    /// The output-token limit (≥ 1), sent in the dialect's field.
    pub max_tokens: Option<u32>,
    /// `reasoning_effort` for reasoning models (e.g. `low`, `medium`, `high`).
    pub reasoning_effort: Option<String>,
    /// `parallel_tool_calls`; sent only when the request has tools.
    pub parallel_tool_calls: Option<bool>,
    /// Stop sequences (non-empty strings).
    pub stop: Vec<String>,
    /// A sampling seed.
    pub seed: Option<i64>,
    /// Presence penalty, `[-2, 2]`.
    pub presence_penalty: Option<f64>,
    /// Frequency penalty, `[-2, 2]`.
    pub frequency_penalty: Option<f64>,
    /// An end-user identifier for abuse monitoring.
    pub user: Option<String>,
    /// A service tier (e.g. `auto`, `flex`).
    pub service_tier: Option<String>,
}

/// A tuning value out of its range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TuningError {
    /// A number outside its range (or not finite).
    #[error("{field} must be within [{min}, {max}], got {value}")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The value given.
        value: f64,
        /// The smallest value accepted.
        min: f64,
        /// The largest value accepted.
        max: f64,
    },
    /// `max_tokens` of zero.
    #[error("max_tokens must be at least 1")]
    ZeroMaxTokens,
    /// A text field that is empty or has characters a service would reject.
    #[error("{field} must be non-empty printable text, got {value:?}")]
    InvalidText {
        /// The field.
        field: &'static str,
        /// The value given.
        value: String,
    },
}

impl Tuning {
    /// No tuning: every field unset.
    pub fn new() -> Self {
        Tuning::default()
    }

    /// Set the temperature.
    pub fn temperature(mut self, value: f64) -> Self {
        self.temperature = Some(value);
        self
    }

    /// Set top_p.
    pub fn top_p(mut self, value: f64) -> Self {
        self.top_p = Some(value);
        self
    }

    /// Set the output-token limit.
    pub fn max_tokens(mut self, value: u32) -> Self {
        self.max_tokens = Some(value);
        self
    }

    /// Set the reasoning effort.
    pub fn reasoning_effort(mut self, value: impl Into<String>) -> Self {
        self.reasoning_effort = Some(value.into());
        self
    }

    /// Allow or forbid parallel tool calls.
    pub fn parallel_tool_calls(mut self, value: bool) -> Self {
        self.parallel_tool_calls = Some(value);
        self
    }

    /// Add a stop sequence.
    pub fn stop(mut self, value: impl Into<String>) -> Self {
        self.stop.push(value.into());
        self
    }

    /// Set the seed.
    pub fn seed(mut self, value: i64) -> Self {
        self.seed = Some(value);
        self
    }

    /// Set the presence penalty.
    pub fn presence_penalty(mut self, value: f64) -> Self {
        self.presence_penalty = Some(value);
        self
    }

    /// Set the frequency penalty.
    pub fn frequency_penalty(mut self, value: f64) -> Self {
        self.frequency_penalty = Some(value);
        self
    }

    /// Set the end-user identifier.
    pub fn user(mut self, value: impl Into<String>) -> Self {
        self.user = Some(value.into());
        self
    }

    /// Set the service tier.
    pub fn service_tier(mut self, value: impl Into<String>) -> Self {
        self.service_tier = Some(value.into());
        self
    }

    /// Check every set field (SPEC PROV-COMMON-02).
    pub fn validate(&self) -> Result<(), TuningError> {
        range("temperature", self.temperature, 0.0, 2.0)?;
        range("top_p", self.top_p, 0.0, 1.0)?;
        range("presence_penalty", self.presence_penalty, -2.0, 2.0)?;
        range("frequency_penalty", self.frequency_penalty, -2.0, 2.0)?;
        if self.max_tokens == Some(0) {
            return Err(TuningError::ZeroMaxTokens);
        }
        text("reasoning_effort", self.reasoning_effort.as_deref())?;
        text("user", self.user.as_deref())?;
        text("service_tier", self.service_tier.as_deref())?;
        for stop in &self.stop {
            if stop.is_empty() {
                return Err(TuningError::InvalidText { field: "stop", value: stop.clone() });
            }
        }
        Ok(())
    }
}

fn range(field: &'static str, value: Option<f64>, min: f64, max: f64) -> Result<(), TuningError> {
    match value {
        Some(v) if !(v.is_finite() && (min..=max).contains(&v)) => {
            Err(TuningError::OutOfRange { field, value: v, min, max })
        }
        _ => Ok(()),
    }
}

fn text(field: &'static str, value: Option<&str>) -> Result<(), TuningError> {
    match value {
        Some(v) if v.trim().is_empty() || v.chars().any(char::is_control) => {
            Err(TuningError::InvalidText { field, value: v.to_string() })
        }
        _ => Ok(()),
    }
}

//! The sampling and length settings every family shares (SPEC
//! PROV-COMMON-02): one [`Tuning`] type, checked once — when a config is
//! built — against the ranges the family's API documents ([`Limits`]),
//! and carrying the family's own extra fields in its own small struct
//! ([`Extras`]).
//!
//! Every field is optional and stays off the wire while unset: `0.0` is a
//! real temperature, so "unset" cannot be a number. A field the family's
//! API does not take (Bedrock's Converse has no `top_k`) is refused at
//! build rather than dropped on the way.
//!
//! Each family names its tuning type: `anthropic::Tuning`,
//! `gemini::Tuning`, `bedrock::Tuning`, `chat_completions::Tuning` (also
//! `golem_providers::Tuning`) are all `Tuning<that family's extras>`.

mod error;
mod limits;

pub use error::TuningError;
pub use limits::{range, text};
pub use limits::{Extras, Limits, WireNames};

use serde_json::{Map, Value};

/// Sampling and length settings for one family's requests; `X` holds the
/// family's own fields and names the ranges its API takes.
///
/// ```
/// use golem_providers::anthropic;
/// use golem_providers::gemini;
///
/// // The same settings, checked against each family's ranges.
/// let warm = |max| (anthropic::Tuning::new().temperature(max), gemini::Tuning::new().temperature(max));
/// let (claude, gemini) = warm(1.5);
/// assert!(claude.validate().is_err(), "Anthropic takes [0, 1]");
/// assert!(gemini.validate().is_ok(), "Gemini takes [0, 2]");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Tuning<X> {
    /// Sampling temperature, from 0 up to the family's maximum.
    pub temperature: Option<f64>,
    /// Nucleus sampling, `[0, 1]`.
    pub top_p: Option<f64>,
    /// Sampling from the `k` most likely tokens (≥ 1), where the API takes it.
    pub top_k: Option<u32>,
    /// The output-token limit (≥ 1), sent in the family's field
    /// (`max_tokens`, `maxOutputTokens`, `maxTokens`, …).
    pub max_tokens: Option<u32>,
    /// Stop sequences (non-empty).
    pub stop: Vec<String>,
    /// A sampling seed, where the API takes one.
    pub seed: Option<i64>,
    /// The family's own fields.
    pub extras: X,
}

impl<X: Extras> Tuning<X> {
    /// No tuning: every field unset.
    pub fn new() -> Self {
        Tuning::default()
    }

    crate::macros::setters! {
        /// Set the temperature.
        fn temperature(value: f64) => temperature = Some(value);
        /// Set top_p.
        fn top_p(value: f64) => top_p = Some(value);
        /// Set top_k.
        fn top_k(value: u32) => top_k = Some(value);
        /// Set the output-token limit.
        fn max_tokens(value: u32) => max_tokens = Some(value);
        /// Set the sampling seed.
        fn seed(value: i64) => seed = Some(value);
    }

    /// Add a stop sequence.
    pub fn stop(mut self, value: impl Into<String>) -> Self {
        self.stop.push(value.into());
        self
    }

    /// Check every set field against the family's [`Limits`], then the
    /// family's own fields.
    pub fn validate(&self) -> Result<(), TuningError> {
        let limits = X::LIMITS;
        let names = limits.names;
        limits::unless_taken("top_k", self.top_k.is_some(), names.top_k, limits.provider)?;
        limits::unless_taken("seed", self.seed.is_some(), names.seed, limits.provider)?;
        limits::unless_taken("stop", !self.stop.is_empty(), names.stop, limits.provider)?;
        limits::range("temperature", self.temperature, 0.0, limits.max_temperature)?;
        limits::range("top_p", self.top_p, 0.0, 1.0)?;
        limits::at_least_one("max_tokens", self.max_tokens)?;
        limits::at_least_one("top_k", self.top_k)?;
        for stop in &self.stop {
            let blank = if limits.stop_needs_text { stop.trim().is_empty() } else { stop.is_empty() };
            if blank {
                return Err(TuningError::EmptyStop { value: stop.clone() });
            }
        }
        self.extras.check()
    }

    /// The set shared fields as request members under the family's
    /// [`WireNames`] (a family whose body is typed writes its own).
    ///
    /// ```
    /// let mut members = serde_json::Map::new();
    /// golem_providers::gemini::Tuning::new().max_output_tokens(64).top_k(3).write(&mut members);
    /// assert_eq!(serde_json::Value::Object(members), serde_json::json!({"maxOutputTokens": 64, "topK": 3}));
    /// ```
    pub fn write(&self, members: &mut Map<String, Value>) {
        let names = X::LIMITS.names;
        let mut put = |name: Option<&str>, value: Option<Value>| {
            if let (Some(name), Some(value)) = (name, value) {
                members.insert(name.to_string(), value);
            }
        };
        put(Some(names.temperature), self.temperature.map(Value::from));
        put(Some(names.top_p), self.top_p.map(Value::from));
        put(names.top_k, self.top_k.map(Value::from));
        put(Some(names.max_tokens), self.max_tokens.map(Value::from));
        put(names.stop, (!self.stop.is_empty()).then(|| self.stop.clone().into()));
        put(names.seed, self.seed.map(Value::from));
    }
}

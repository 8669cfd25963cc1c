//! Generation settings (SPEC PROV-GEM-02, PROV-COMMON-02, THINK-02): the
//! `generationConfig` sampling fields, `thinkingConfig`, and safety
//! settings.
//!
//! Every field is optional and stays off the wire while unset (`0.0` is a
//! real temperature); `generationConfig` itself is sent only when something
//! in it is set. Ranges are checked once, when the config is built.

use serde_json::{json, Map, Value};

/// The `generationConfig` sampling fields.
///
/// ```
/// use golem_providers::gemini::Tuning;
///
/// let tuning = Tuning::new().temperature(0.2).max_output_tokens(2048).stop("END");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().temperature(2.5).validate().is_err()); // Gemini takes [0, 2]
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Tuning {
    /// `temperature`, `[0, 2]`.
    pub temperature: Option<f64>,
    /// `topP`, `[0, 1]`.
    pub top_p: Option<f64>,
    /// `topK` (≥ 1).
    pub top_k: Option<u32>,
    /// `maxOutputTokens` (≥ 1).
    pub max_output_tokens: Option<u32>,
    /// `stopSequences` (non-empty strings).
    pub stop: Vec<String>,
    /// `seed`.
    pub seed: Option<i64>,
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

    /// Set top_k.
    pub fn top_k(mut self, value: u32) -> Self {
        self.top_k = Some(value);
        self
    }

    /// Set the output-token limit.
    pub fn max_output_tokens(mut self, value: u32) -> Self {
        self.max_output_tokens = Some(value);
        self
    }

    /// Add a stop sequence.
    pub fn stop(mut self, value: impl Into<String>) -> Self {
        self.stop.push(value.into());
        self
    }

    /// Set the sampling seed.
    pub fn seed(mut self, value: i64) -> Self {
        self.seed = Some(value);
        self
    }

    /// Check every set field.
    pub fn validate(&self) -> Result<(), String> {
        let ranges = [("temperature", self.temperature, 2.0), ("top_p", self.top_p, 1.0)];
        for (field, value, max) in ranges {
            if let Some(v) = value.filter(|v| !(v.is_finite() && (0.0..=max).contains(v))) {
                return Err(format!("{field} must be within [0, {max}], got {v}"));
            }
        }
        if self.top_k == Some(0) {
            return Err("top_k must be at least 1".into());
        }
        if self.max_output_tokens == Some(0) {
            return Err("max_output_tokens must be at least 1".into());
        }
        if self.stop.iter().any(String::is_empty) {
            return Err("stop sequences must be non-empty".into());
        }
        Ok(())
    }

    /// The set fields as `generationConfig` members.
    pub(crate) fn write(&self, config: &mut Map<String, Value>) {
        if let Some(t) = self.temperature {
            config.insert("temperature".into(), t.into());
        }
        if let Some(p) = self.top_p {
            config.insert("topP".into(), p.into());
        }
        if let Some(k) = self.top_k {
            config.insert("topK".into(), k.into());
        }
        if let Some(max) = self.max_output_tokens {
            config.insert("maxOutputTokens".into(), max.into());
        }
        if !self.stop.is_empty() {
            config.insert("stopSequences".into(), self.stop.clone().into());
        }
        if let Some(seed) = self.seed {
            config.insert("seed".into(), seed.into());
        }
    }
}

/// `generationConfig.thinkingConfig` (SPEC THINK-02): whether the answer
/// includes thought summaries, and how much to think — a token budget or
/// a level, never both.
///
/// ```
/// use golem_providers::gemini::Thinking;
///
/// let thinking = Thinking::new().include_thoughts(true).budget(2048);
/// assert!(thinking.validate().is_ok());
/// assert_eq!(thinking.wire(), serde_json::json!({"includeThoughts": true, "thinkingBudget": 2048}));
/// assert!(Thinking::new().budget(1024).level("high").validate().is_err(), "exclusive");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Thinking {
    /// `includeThoughts`: answer with thought summaries (they come back as
    /// thinking blocks).
    pub include_thoughts: Option<bool>,
    /// `thinkingBudget` in tokens: `0` turns thinking off where the model
    /// allows it, `-1` lets the model decide.
    pub budget: Option<i32>,
    /// `thinkingLevel` (`minimal`, `low`, `medium`, `high`, … as the
    /// model documents).
    pub level: Option<String>,
}

impl Thinking {
    /// Nothing set: the model's defaults.
    pub fn new() -> Self {
        Thinking::default()
    }

    /// Ask for thought summaries (or explicitly not).
    pub fn include_thoughts(mut self, on: bool) -> Self {
        self.include_thoughts = Some(on);
        self
    }

    /// A thinking budget in tokens (exclusive with a level).
    pub fn budget(mut self, tokens: i32) -> Self {
        self.budget = Some(tokens);
        self
    }

    /// A thinking level (exclusive with a budget).
    pub fn level(mut self, level: impl Into<String>) -> Self {
        self.level = Some(level.into());
        self
    }

    /// Check the settings: budget and level exclusive, a budget of at
    /// least -1, a level of printable text.
    pub fn validate(&self) -> Result<(), String> {
        if self.budget.is_some() && self.level.is_some() {
            return Err("a thinking budget and a thinking level are exclusive; set one".into());
        }
        if let Some(budget) = self.budget.filter(|b| *b < -1) {
            return Err(format!("thinking budget must be -1 (dynamic) or at least 0, got {budget}"));
        }
        if let Some(level) = &self.level {
            if level.trim().is_empty() || level.chars().any(char::is_control) {
                return Err("thinking level must be non-empty printable text".into());
            }
        }
        Ok(())
    }

    /// The `thinkingConfig` object.
    pub fn wire(&self) -> Value {
        let mut config = Map::new();
        if let Some(include) = self.include_thoughts {
            config.insert("includeThoughts".into(), include.into());
        }
        if let Some(budget) = self.budget {
            config.insert("thinkingBudget".into(), budget.into());
        }
        if let Some(level) = &self.level {
            config.insert("thinkingLevel".into(), level.as_str().into());
        }
        Value::Object(config)
    }
}

/// One `safetySettings` entry: a harm category and the threshold at which
/// to block it, both as the API names them (`HARM_CATEGORY_HARASSMENT`,
/// `BLOCK_ONLY_HIGH`, …).
///
/// ```
/// use golem_providers::gemini::SafetySetting;
///
/// let setting = SafetySetting::new("HARM_CATEGORY_DANGEROUS_CONTENT", "BLOCK_NONE");
/// assert_eq!(setting.wire(), serde_json::json!({"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "threshold": "BLOCK_NONE"}));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SafetySetting {
    /// The harm category.
    pub category: String,
    /// The blocking threshold.
    pub threshold: String,
}

impl SafetySetting {
    /// A setting for `category` at `threshold`.
    pub fn new(category: impl Into<String>, threshold: impl Into<String>) -> Self {
        SafetySetting { category: category.into(), threshold: threshold.into() }
    }

    /// The wire object.
    pub fn wire(&self) -> Value {
        json!({"category": self.category, "threshold": self.threshold})
    }

    pub(crate) fn validate(&self) -> Result<(), String> {
        let name = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if name(&self.category) && name(&self.threshold) {
            Ok(())
        } else {
            Err(format!("safety setting {:?} / {:?} is not a pair of API enum names", self.category, self.threshold))
        }
    }
}

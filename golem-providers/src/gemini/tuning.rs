//! Generation settings (SPEC PROV-GEM-02, PROV-COMMON-02, THINK-02): the
//! `generationConfig` sampling fields, `thinkingConfig`, and safety
//! settings.
//!
//! Every field is optional and stays off the wire while unset (`0.0` is a
//! real temperature); `generationConfig` itself is sent only when something
//! in it is set. Ranges are checked once, when the config is built.

use crate::tuning::{self, Extras, Limits, WireNames};
use serde_json::{json, Map, Value};

/// The `generationConfig` sampling fields: the shared ones
/// ([`crate::tuning`]), temperature in [0, 2], top_p in [0, 1], `topK`,
/// `maxOutputTokens`, `stopSequences`, `seed`.
///
/// ```
/// use golem_providers::gemini::Tuning;
///
/// let tuning = Tuning::new().temperature(0.2).max_output_tokens(2048).stop("END");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().temperature(2.5).validate().is_err()); // Gemini takes [0, 2]
/// ```
pub type Tuning = tuning::Tuning<GeminiExtras>;

/// Gemini's tuning rules; no sampling fields beyond the shared ones.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct GeminiExtras {}

impl Extras for GeminiExtras {
    const LIMITS: Limits = Limits::new(
        "Gemini",
        2.0,
        WireNames::new("temperature", "topP", "maxOutputTokens", "stopSequences").top_k("topK").seed("seed"),
    );
}

impl Tuning {
    /// Set the output-token limit (`maxOutputTokens`): Gemini's name for
    /// [`max_tokens`](Self::max_tokens).
    pub fn max_output_tokens(self, value: u32) -> Self {
        self.max_tokens(value)
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

    /// True when both are API enum names (letters, digits, `_`).
    pub(crate) fn is_valid(&self) -> bool {
        let name = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        name(&self.category) && name(&self.threshold)
    }
}

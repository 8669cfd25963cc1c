//! Gemini configuration (SPEC PROV-GEM-01/02, THINK-02, PROV-COMMON-02):
//! a model and an API key; everything else optional. The shared shape is
//! [`crate::config`]'s; Gemini adds thinking, safety settings and the
//! legacy schema fields.

use super::tuning::{GeminiExtras, SafetySetting, Thinking};
use super::Codec;
use crate::config::{self, Builder, ConfigError, Family, Options};
use crate::tuning::TuningError;

/// The environment variables `Gemini::from_env` reads: the key from
/// `GEMINI_API_KEY`, else `GOOGLE_API_KEY`; the model from `GEMINI_MODEL`
/// (default [`DEFAULT_MODEL`]); another endpoint from `GEMINI_BASE_URL`.
pub const ENV_VARS: [&str; 4] = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_MODEL", "GEMINI_BASE_URL"];

/// The model `from_env` uses when `GEMINI_MODEL` is unset.
pub const DEFAULT_MODEL: &str = "gemini-2.5-flash";

/// Google's endpoint for the Gemini API (SPEC PROV-GEM-01).
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// The API version in every request path.
pub const API_VERSION: &str = "v1beta";

/// Gemini's own settings: thinking, safety settings, legacy schemas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeminiOptions {
    thinking: Option<Thinking>,
    safety: Vec<SafetySetting>,
    legacy_schemas: bool,
}

impl Options for GeminiOptions {
    /// The key from `GEMINI_API_KEY`, else `GOOGLE_API_KEY`.
    const FAMILY: Family = Family::new("Gemini", Some(DEFAULT_BASE_URL))
        .key_from("GEMINI_API_KEY or GOOGLE_API_KEY", &["GEMINI_API_KEY", "GOOGLE_API_KEY"])
        .model_from("GEMINI_MODEL", DEFAULT_MODEL)
        .base_url_from("GEMINI_BASE_URL");
    type Codec = Codec;
    type Extras = GeminiExtras;

    /// Model names go into the URL path unencoded, so only the characters
    /// of Google's resource names pass: letters, digits, `-`, `.`, `_`, and
    /// `/` between non-empty segments.
    fn model_problem(&self, model: &str) -> Option<&'static str> {
        if !model.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._/".contains(&b)) {
            return Some("only letters, digits, '-', '.', '_' and '/' are allowed");
        }
        if model.split('/').any(|segment| segment.is_empty() || segment == "." || segment == "..") {
            return Some("every '/'-separated segment must be a name");
        }
        None
    }

    fn check(config: &Config) -> Result<(), ConfigError> {
        let own = &config.options;
        for setting in &own.safety {
            if !setting.is_valid() {
                let value = format!("{} / {}", setting.category, setting.threshold);
                return Err(TuningError::InvalidText { field: "safety setting", value }.into());
            }
        }
        match &own.thinking {
            Some(thinking) => thinking.validate().map_err(|reason| ConfigError::InvalidThinking { reason }),
            None => Ok(()),
        }
    }
}

/// A validated Gemini configuration.
///
/// ```
/// use golem_providers::gemini::{Config, Thinking, Tuning};
///
/// let config = Config::builder("gemini-2.5-flash")
///     .api_key("AIza-test-key")
///     .tuning(Tuning::new().temperature(0.0).max_output_tokens(1024))
///     .thinking(Thinking::new().include_thoughts(true).budget(512))
///     .build()
///     .unwrap();
/// assert_eq!(config.base_url(), "https://generativelanguage.googleapis.com");
/// assert_eq!(config.model_path(), "models/gemini-2.5-flash");
/// assert!(!format!("{config:?}").contains("AIza-test-key"));
///
/// // Google's endpoint needs a key; budget and level are exclusive.
/// assert!(Config::builder("gemini-2.5-flash").build().is_err());
/// let both = Config::builder("gemini-2.5-flash").api_key("k").thinking(Thinking::new().budget(1).level("low"));
/// assert!(both.build().is_err());
/// ```
pub type Config = config::Config<GeminiOptions>;

/// Builds a [`Config`]; `build` validates. The key is required at
/// Google's endpoint; pointed at another server (a gateway that adds the
/// key, a stand-in) it is optional, since that server decides — one that
/// wants a key answers 401 or 403 without it.
pub type ConfigBuilder = Builder<GeminiOptions>;

impl Config {
    /// The model's resource name in request paths: `models/{model}` for a
    /// bare name, the name itself when it names its collection.
    pub fn model_path(&self) -> String {
        if self.model().contains('/') {
            self.model().to_string()
        } else {
            format!("models/{}", self.model())
        }
    }

    /// The thinking settings, if configured.
    pub fn thinking(&self) -> Option<&Thinking> {
        self.options.thinking.as_ref()
    }

    /// The safety settings.
    pub fn safety_settings(&self) -> &[SafetySetting] {
        &self.options.safety
    }

    /// Whether schemas go in the legacy `parameters` / `responseSchema`
    /// fields (SPEC OUT-08) rather than the JSON Schema ones.
    pub fn legacy_schemas(&self) -> bool {
        self.options.legacy_schemas
    }

    /// Start a config for `model` (`gemini-2.5-flash`, or a full resource
    /// name such as `models/gemini-2.5-flash` or `tunedModels/my-model`).
    pub fn builder(model: impl Into<String>) -> ConfigBuilder {
        Builder::new(model, GeminiOptions::default())
    }

    /// A config from variables read through `lookup` (see [`ENV_VARS`]);
    /// empty values count as unset. Codecs never read the environment
    /// themselves (SPEC PROV-COMMON-01).
    ///
    /// ```
    /// use golem_providers::gemini::Config;
    ///
    /// let vars = [("GOOGLE_API_KEY", "AIza-from-env"), ("GEMINI_MODEL", "gemini-2.5-pro")];
    /// let lookup = |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string());
    /// let config = Config::from_env(lookup).unwrap();
    /// assert_eq!(config.model(), "gemini-2.5-pro");
    /// assert_eq!(config.api_key().map(|k| k.expose()), Some("AIza-from-env"));
    /// ```
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        GeminiOptions::from_env(lookup)
    }
}

/// Gemini's setters, on the config builder and the client builder alike.
impl<T> Builder<GeminiOptions, T> {
    /// The thinking settings.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.options.thinking = Some(thinking);
        self
    }

    /// Add a safety setting.
    pub fn safety_setting(mut self, setting: SafetySetting) -> Self {
        self.options.safety.push(setting);
        self
    }

    /// Send schemas in the legacy OpenAPI-subset fields `parameters` and
    /// `responseSchema` instead of `parametersJsonSchema` and
    /// `responseJsonSchema` (SPEC OUT-08). A schema keyword the subset
    /// cannot express is then an encode error naming it — nothing is
    /// dropped silently. Off by default.
    pub fn legacy_schemas(mut self, on: bool) -> Self {
        self.options.legacy_schemas = on;
        self
    }
}

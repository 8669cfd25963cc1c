//! Gemini configuration (SPEC PROV-GEM-01/02, THINK-02, PROV-COMMON-02):
//! a model and an API key; everything else optional.

use super::error::ConfigError;
use super::tuning::{SafetySetting, Thinking, Tuning};
use crate::secret::Secret;
use crate::validate;

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
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    model: String,
    api_key: Option<Secret>,
    base_url: String,
    tuning: Tuning,
    thinking: Option<Thinking>,
    safety: Vec<SafetySetting>,
    legacy_schemas: bool,
}

impl Config {
    /// Start a config for `model` (`gemini-2.5-flash`, or a full resource
    /// name such as `models/gemini-2.5-flash` or `tunedModels/my-model`).
    pub fn builder(model: impl Into<String>) -> ConfigBuilder {
        ConfigBuilder {
            model: model.into(),
            api_key: None,
            base_url: None,
            tuning: Tuning::new(),
            thinking: None,
            safety: Vec::new(),
            legacy_schemas: false,
        }
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
        let lookup = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let model = lookup("GEMINI_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let mut builder = Config::builder(model.trim());
        if let Some(key) = lookup("GEMINI_API_KEY").or_else(|| lookup("GOOGLE_API_KEY")) {
            builder = builder.api_key(key.trim());
        }
        if let Some(url) = lookup("GEMINI_BASE_URL") {
            builder = builder.base_url(url);
        }
        builder.build()
    }

    /// The model name as given.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The model's resource name in request paths: `models/{model}` for a
    /// bare name, the name itself when it names its collection.
    pub fn model_path(&self) -> String {
        if self.model.contains('/') {
            self.model.clone()
        } else {
            format!("models/{}", self.model)
        }
    }

    /// The key, if any.
    pub fn api_key(&self) -> Option<&Secret> {
        self.api_key.as_ref()
    }

    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The sampling fields.
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// The thinking settings, if configured.
    pub fn thinking(&self) -> Option<&Thinking> {
        self.thinking.as_ref()
    }

    /// The safety settings.
    pub fn safety_settings(&self) -> &[SafetySetting] {
        &self.safety
    }

    /// Whether schemas go in the legacy `parameters` / `responseSchema`
    /// fields (SPEC OUT-08) rather than the JSON Schema ones.
    pub fn legacy_schemas(&self) -> bool {
        self.legacy_schemas
    }
}

/// Builds a [`Config`]; [`ConfigBuilder::build`] validates.
///
/// The key is required at Google's endpoint; pointed at another server (a
/// gateway that adds the key, a stand-in) it is optional, since that
/// server decides — one that wants a key answers 401 or 403 without it.
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    model: String,
    api_key: Option<Secret>,
    base_url: Option<String>,
    tuning: Tuning,
    thinking: Option<Thinking>,
    safety: Vec<SafetySetting>,
    legacy_schemas: bool,
}

impl ConfigBuilder {
    /// Set the model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Set the API key, sent as `x-goog-api-key` (never in the URL). An
    /// empty key counts as none.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        let key = key.into();
        self.api_key = (!key.is_empty()).then_some(key);
        self
    }

    /// Another base URL than [`DEFAULT_BASE_URL`] (a gateway, a stand-in
    /// server); a trailing `/` is trimmed. Paths below it stay
    /// `/v1beta/models/{model}:…`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Set the sampling fields.
    pub fn tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// Set the thinking settings.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.thinking = Some(thinking);
        self
    }

    /// Add a safety setting.
    pub fn safety_setting(mut self, setting: SafetySetting) -> Self {
        self.safety.push(setting);
        self
    }

    /// Send schemas in the legacy OpenAPI-subset fields `parameters` and
    /// `responseSchema` instead of `parametersJsonSchema` and
    /// `responseJsonSchema` (SPEC OUT-08). A schema keyword the subset
    /// cannot express is then an encode error naming it — nothing is
    /// dropped silently. Off by default.
    pub fn legacy_schemas(mut self, on: bool) -> Self {
        self.legacy_schemas = on;
        self
    }

    /// Validate and build.
    pub fn build(self) -> Result<Config, ConfigError> {
        let model = self.model.trim().to_string();
        if model.is_empty() {
            return Err(ConfigError::Missing { field: "a model", var: "GEMINI_MODEL" });
        }
        if let Some(reason) = model_problem(&model) {
            return Err(ConfigError::InvalidModel { model, reason });
        }
        let base_url = validate::trim_base_url(self.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL));
        if let Some(reason) = validate::base_url_problem(&base_url) {
            return Err(ConfigError::InvalidBaseUrl { url: base_url, reason });
        }
        match &self.api_key {
            None if base_url == DEFAULT_BASE_URL => {
                return Err(ConfigError::Missing { field: "an API key", var: "GEMINI_API_KEY or GOOGLE_API_KEY" });
            }
            Some(key) if !validate::is_credential(key.expose()) => return Err(ConfigError::InvalidKey),
            _ => {}
        }
        self.tuning.validate().map_err(|reason| ConfigError::InvalidTuning { reason })?;
        for setting in &self.safety {
            setting.validate().map_err(|reason| ConfigError::InvalidTuning { reason })?;
        }
        if let Some(thinking) = &self.thinking {
            thinking.validate().map_err(|reason| ConfigError::InvalidThinking { reason })?;
        }
        Ok(Config {
            model,
            api_key: self.api_key,
            base_url,
            tuning: self.tuning,
            thinking: self.thinking,
            safety: self.safety,
            legacy_schemas: self.legacy_schemas,
        })
    }
}

/// Model names go into the URL path unencoded, so only the characters of
/// Google's resource names pass: letters, digits, `-`, `.`, `_`, and `/`
/// between non-empty segments.
fn model_problem(model: &str) -> Option<&'static str> {
    if !model.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._/".contains(&b)) {
        return Some("only letters, digits, '-', '.', '_' and '/' are allowed");
    }
    if model.split('/').any(|segment| segment.is_empty() || segment == "." || segment == "..") {
        return Some("every '/'-separated segment must be a name");
    }
    None
}

//! Anthropic configuration (SPEC PROV-ANT-01/02/07, THINK-02,
//! PROV-COMMON-02): a model and an API key; everything else optional.

use super::error::ConfigError;
use super::tuning::{CacheControl, Thinking, Tuning};
use crate::secret::Secret;
use crate::validate;

/// The environment variables `Anthropic::from_env` reads: the key from
/// `ANTHROPIC_API_KEY`, the model from `ANTHROPIC_MODEL` (default
/// [`DEFAULT_MODEL`]), another endpoint from `ANTHROPIC_BASE_URL` (an
/// Anthropic-compatible server, a gateway, a stand-in).
pub const ENV_VARS: [&str; 3] = ["ANTHROPIC_API_KEY", "ANTHROPIC_MODEL", "ANTHROPIC_BASE_URL"];

/// The model `from_env` uses when `ANTHROPIC_MODEL` is unset.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// Anthropic's endpoint (SPEC PROV-ANT-01).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The `anthropic-version` header every request carries.
pub const API_VERSION: &str = "2023-06-01";

/// A validated Anthropic configuration.
///
/// ```
/// use golem_providers::anthropic::{Config, Thinking, Tuning};
///
/// let config = Config::builder("claude-sonnet-4-5")
///     .api_key("sk-ant-test-key")
///     .tuning(Tuning::new().max_tokens(4096).temperature(1.0))
///     .thinking(Thinking::Enabled { budget_tokens: 2048 })
///     .build()
///     .unwrap();
/// assert_eq!(config.base_url(), "https://api.anthropic.com");
/// assert!(!format!("{config:?}").contains("sk-ant-test-key"));
///
/// // Anthropic's endpoint needs a key; a budget must sit in [1024, max_tokens).
/// assert!(Config::builder("claude-sonnet-4-5").build().is_err());
/// let big = Config::builder("claude-sonnet-4-5").api_key("k").thinking(Thinking::Enabled { budget_tokens: 4096 });
/// assert!(big.build().is_err(), "the default max_tokens is 1024");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    model: String,
    api_key: Option<Secret>,
    base_url: String,
    tuning: Tuning,
    thinking: Option<Thinking>,
    effort: Option<String>,
    cache: Option<CacheControl>,
    betas: Vec<String>,
}

impl Config {
    /// Start a config for `model` (`claude-sonnet-4-5`, a dated id, or
    /// whatever name an Anthropic-compatible server knows).
    pub fn builder(model: impl Into<String>) -> ConfigBuilder {
        ConfigBuilder {
            model: model.into(),
            api_key: None,
            base_url: None,
            tuning: Tuning::new(),
            thinking: None,
            effort: None,
            cache: None,
            betas: Vec::new(),
        }
    }

    /// A config from variables read through `lookup` (see [`ENV_VARS`]);
    /// empty values count as unset. Codecs never read the environment
    /// themselves (SPEC PROV-COMMON-01).
    ///
    /// ```
    /// use golem_providers::anthropic::Config;
    ///
    /// let vars = [("ANTHROPIC_API_KEY", "sk-ant-from-env"), ("ANTHROPIC_MODEL", "claude-haiku-4-5")];
    /// let lookup = |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string());
    /// let config = Config::from_env(lookup).unwrap();
    /// assert_eq!(config.model(), "claude-haiku-4-5");
    /// assert_eq!(config.api_key().map(|k| k.expose()), Some("sk-ant-from-env"));
    /// ```
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let lookup = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let model = lookup("ANTHROPIC_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let mut builder = Config::builder(model.trim());
        if let Some(key) = lookup("ANTHROPIC_API_KEY") {
            builder = builder.api_key(key.trim());
        }
        if let Some(url) = lookup("ANTHROPIC_BASE_URL") {
            builder = builder.base_url(url);
        }
        builder.build()
    }

    /// The model name.
    pub fn model(&self) -> &str {
        &self.model
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

    /// The thinking mode, if configured.
    pub fn thinking(&self) -> Option<Thinking> {
        self.thinking
    }

    /// True while thinking is adaptive or enabled: the API then refuses a
    /// forced tool choice (SPEC PROV-ANT-04).
    pub fn thinks(&self) -> bool {
        self.thinking.is_some_and(Thinking::is_on)
    }

    /// The effort (`output_config.effort`), if configured.
    pub fn effort(&self) -> Option<&str> {
        self.effort.as_deref()
    }

    /// The cache breakpoint, if prompt caching is on.
    pub fn cache(&self) -> Option<CacheControl> {
        self.cache
    }

    /// The beta features named in the `anthropic-beta` header.
    pub fn betas(&self) -> &[String] {
        &self.betas
    }
}

/// Builds a [`Config`]; [`ConfigBuilder::build`] validates.
///
/// The key is required at Anthropic's endpoint; pointed at another server
/// (a gateway that adds the key, a compatible server, a stand-in) it is
/// optional, since that server decides.
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    model: String,
    api_key: Option<Secret>,
    base_url: Option<String>,
    tuning: Tuning,
    thinking: Option<Thinking>,
    effort: Option<String>,
    cache: Option<CacheControl>,
    betas: Vec<String>,
}

impl ConfigBuilder {
    /// Set the model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Set the API key, sent as `x-api-key`. An empty key counts as none.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        let key = key.into();
        self.api_key = (!key.is_empty()).then_some(key);
        self
    }

    /// Another base URL than [`DEFAULT_BASE_URL`]; a trailing `/` is
    /// trimmed. Requests go to `{base}/v1/messages`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Set the sampling fields.
    pub fn tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// Set the thinking mode.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.thinking = Some(thinking);
        self
    }

    /// Set the effort (`low`, `medium`, `high`, … as the model documents),
    /// sent as `output_config.effort` (SPEC PROV-ANT-02).
    pub fn effort(mut self, effort: impl Into<String>) -> Self {
        self.effort = Some(effort.into());
        self
    }

    /// Turn on prompt caching with this breakpoint (SPEC PROV-ANT-07).
    pub fn cache_control(mut self, cache: CacheControl) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Name a beta feature in the `anthropic-beta` header (repeatable).
    pub fn beta(mut self, name: impl Into<String>) -> Self {
        self.betas.push(name.into());
        self
    }

    /// Validate and build.
    pub fn build(self) -> Result<Config, ConfigError> {
        let model = self.model.trim().to_string();
        if model.is_empty() {
            return Err(ConfigError::Missing { field: "a model", var: "ANTHROPIC_MODEL" });
        }
        if model.chars().any(char::is_control) {
            return Err(ConfigError::InvalidModel { model, reason: "control characters are not allowed" });
        }
        let base_url = validate::trim_base_url(self.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL));
        if let Some(reason) = validate::base_url_problem(&base_url) {
            return Err(ConfigError::InvalidBaseUrl { url: base_url, reason });
        }
        match &self.api_key {
            None if base_url == DEFAULT_BASE_URL => {
                return Err(ConfigError::Missing { field: "an API key", var: "ANTHROPIC_API_KEY" });
            }
            Some(key) if !validate::is_credential(key.expose()) => return Err(ConfigError::InvalidKey),
            _ => {}
        }
        self.tuning.validate().map_err(|reason| ConfigError::InvalidTuning { reason })?;
        if let Some(Thinking::Enabled { budget_tokens }) = self.thinking {
            let max = self.tuning.effective_max_tokens();
            if budget_tokens < Thinking::MIN_BUDGET {
                return Err(ConfigError::InvalidThinking {
                    reason: format!("budget_tokens must be at least {}, got {budget_tokens}", Thinking::MIN_BUDGET),
                });
            }
            if budget_tokens >= max {
                return Err(ConfigError::InvalidThinking {
                    reason: format!(
                        "budget_tokens ({budget_tokens}) must be below max_tokens ({max}); raise max_tokens"
                    ),
                });
            }
        }
        if let Some(effort) = &self.effort {
            if effort.trim().is_empty() || effort.chars().any(char::is_control) {
                return Err(ConfigError::InvalidThinking { reason: "effort must be non-empty printable text".into() });
            }
        }
        if let Some(name) = self
            .betas
            .iter()
            .find(|b| b.is_empty() || !b.bytes().all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c)))
        {
            return Err(ConfigError::InvalidBeta { name: name.clone() });
        }
        Ok(Config {
            model,
            api_key: self.api_key,
            base_url,
            tuning: self.tuning,
            thinking: self.thinking,
            effort: self.effort,
            cache: self.cache,
            betas: self.betas,
        })
    }
}

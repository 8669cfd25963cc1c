//! Anthropic configuration (SPEC PROV-ANT-01/02/07, THINK-02,
//! PROV-COMMON-02): a model and an API key; everything else optional. The
//! shared shape is [`crate::config`]'s; Anthropic adds thinking, effort,
//! prompt caching and beta names.

use super::tuning::{AnthropicExtras, CacheControl, Tuning};
use super::Codec;
use crate::config::{self, Builder, ConfigError, Family, Options, Reasoning};

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

/// Anthropic's own settings: thinking, effort, prompt caching, betas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnthropicOptions {
    reasoning: Reasoning,
    /// The breakpoints' lifetime; caching is on unless `no_cache`.
    cache: CacheControl,
    no_cache: bool,
    betas: Vec<String>,
}

impl Options for AnthropicOptions {
    type Codec = Codec;
    type Extras = AnthropicExtras;
    const FAMILY: Family = Family::new("Anthropic", Some(DEFAULT_BASE_URL))
        .model_from("ANTHROPIC_MODEL", DEFAULT_MODEL)
        .base_url_from("ANTHROPIC_BASE_URL")
        .key_from("ANTHROPIC_API_KEY", &["ANTHROPIC_API_KEY"]);

    fn check(config: &Config) -> Result<(), ConfigError> {
        let own = &config.options;
        own.reasoning.check(true, Some(config.tuning.effective_max_tokens()))?;
        if config.thinks() {
            sampling_with_thinking(config.tuning())?;
        }
        let bad = |b: &String| b.is_empty() || !b.bytes().all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c));
        match own.betas.iter().find(|b| bad(b)) {
            Some(name) => Err(ConfigError::InvalidBeta { name: name.clone() }),
            None => Ok(()),
        }
    }
}

/// A validated Anthropic configuration.
///
/// ```
/// use golem_providers::anthropic::{Config, Thinking, Tuning};
///
/// let config = Config::builder("claude-sonnet-4-5")
///     .api_key("sk-ant-test-key")
///     .tuning(Tuning::new().max_tokens(4096))
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
pub type Config = config::Config<AnthropicOptions>;

/// Builds a [`Config`]; `build` validates. The key is required at
/// Anthropic's endpoint; pointed at another server (a gateway that adds
/// the key, a compatible server, a stand-in) it is optional, since that
/// server decides.
pub type ConfigBuilder = Builder<AnthropicOptions>;

impl Config {
    /// Start a config for `model` (`claude-sonnet-4-5`, a dated id, or
    /// whatever name an Anthropic-compatible server knows).
    pub fn builder(model: impl Into<String>) -> ConfigBuilder {
        Builder::new(model, AnthropicOptions::default())
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
        AnthropicOptions::from_env(lookup)
    }

    /// The cache breakpoints' setting while prompt caching is on, as it is
    /// unless turned off with `no_cache` (issue 37).
    ///
    /// ```
    /// use golem_providers::anthropic::{CacheControl, CacheTtl, Config};
    ///
    /// let on = Config::builder("claude-haiku-4-5").api_key("k").build().unwrap();
    /// assert_eq!(on.cache(), Some(CacheControl::new()));
    /// let hour = Config::builder("claude-haiku-4-5").api_key("k").cache_control(CacheControl::new().ttl(CacheTtl::OneHour));
    /// assert_eq!(hour.build().unwrap().cache(), Some(CacheControl::new().ttl(CacheTtl::OneHour)));
    /// let off = Config::builder("claude-haiku-4-5").api_key("k").no_cache().build().unwrap();
    /// assert_eq!(off.cache(), None);
    /// ```
    pub fn cache(&self) -> Option<CacheControl> {
        (!self.options.no_cache).then_some(self.options.cache)
    }

    /// The beta features named in the `anthropic-beta` header.
    pub fn betas(&self) -> &[String] {
        &self.options.betas
    }
}

config::reasons!(AnthropicOptions);

/// Anthropic's setters (`thinking` and `effort` are [`Reasons`](config::Reasons)'), on its config builder and its client builder alike.
impl<T> Builder<AnthropicOptions, T> {
    /// Prompt caching with these breakpoints (SPEC PROV-ANT-07): the
    /// lifetime (five minutes unless set). Caching is on by default; this
    /// overrides the default breakpoints and turns it back on after
    /// [`no_cache`](Self::no_cache).
    pub fn cache_control(mut self, cache: CacheControl) -> Self {
        self.options.cache = cache;
        self.options.no_cache = false;
        self
    }

    /// Turn automatic prompt caching off: no `cache_control` mark is sent,
    /// so no cache write is billed (at 1.25× the input price for five
    /// minutes, 2× for an hour) and no read is discounted.
    pub fn no_cache(mut self) -> Self {
        self.options.no_cache = true;
        self
    }

    /// Name a beta feature in the `anthropic-beta` header (repeatable).
    pub fn beta(mut self, name: impl Into<String>) -> Self {
        self.options.betas.push(name.into());
        self
    }
}

/// Anthropic documents thinking as incompatible with changes to
/// `temperature` or `top_k`, and `top_p` as limited to [0.95, 1] while
/// thinking: the API refuses such a request, so the config is refused
/// where it was written (issue 32).
fn sampling_with_thinking(tuning: &Tuning) -> Result<(), ConfigError> {
    let refused = |reason: String| Err(ConfigError::InvalidThinking { reason });
    if let Some(t) = tuning.temperature.filter(|t| *t != 1.0) {
        return refused(format!("thinking takes no temperature but 1, got {t}; leave it unset"));
    }
    if let Some(k) = tuning.top_k {
        return refused(format!("thinking takes no top_k, got {k}; leave it unset"));
    }
    if let Some(p) = tuning.top_p.filter(|p| *p < 0.95) {
        return refused(format!("thinking takes top_p in [0.95, 1] only, got {p}"));
    }
    Ok(())
}

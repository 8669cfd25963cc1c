//! [`Anthropic`](super::Anthropic) constructors and its builder (SPEC
//! PROV-ANT-01, PROV-COMMON-02); token counting is `count_tokens.rs`'s.

use super::builder::{ClientBuilder, CodecBuilder};
use super::{env, Client};
use crate::anthropic::{CacheControl, Codec, Config, ConfigBuilder, ConfigError, Thinking, Tuning};
use crate::secret::Secret;

/// The builder [`Anthropic::builder`](super::Anthropic::builder) returns:
/// the Anthropic settings plus the shared transport settings (timeouts,
/// proxy, transports).
pub type AnthropicBuilder = ClientBuilder<ConfigBuilder>;

impl Client<Codec> {
    /// A client for a validated `config`.
    pub fn new(config: Config) -> Self {
        Client::with_codec(Codec::new(config))
    }

    /// A client from the environment: the key from `ANTHROPIC_API_KEY`;
    /// the model from `ANTHROPIC_MODEL` (default
    /// [`crate::anthropic::DEFAULT_MODEL`]); `ANTHROPIC_BASE_URL` for an
    /// Anthropic-compatible server (optional; away from Anthropic's
    /// endpoint the key is optional too).
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self::new(Config::from_env(env)?))
    }

    /// A builder: a model and (at Anthropic's endpoint) a key are
    /// required; the transport settings are [`ClientBuilder`]'s.
    ///
    /// ```
    /// use golem_providers::anthropic::{Thinking, Tuning};
    /// use golem_providers::Anthropic;
    ///
    /// let model = Anthropic::builder()
    ///     .model("claude-sonnet-4-5")
    ///     .api_key("sk-ant-test")
    ///     .tuning(Tuning::new().max_tokens(8192))
    ///     .thinking(Thinking::Enabled { budget_tokens: 4096 })
    ///     .read_timeout(std::time::Duration::from_secs(300))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(model.config().base_url(), "https://api.anthropic.com");
    /// assert!(Anthropic::builder().model("claude-sonnet-4-5").build().is_err(), "no key");
    /// let small = Anthropic::builder().model("m").api_key("k").thinking(Thinking::Enabled { budget_tokens: 100 });
    /// assert!(small.build().is_err(), "a budget below 1024");
    /// ```
    pub fn builder() -> AnthropicBuilder {
        ClientBuilder::new(Config::builder(""))
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.codec.config()
    }
}

impl CodecBuilder for ConfigBuilder {
    type Codec = Codec;
    type Error = ConfigError;

    fn build_codec(self) -> Result<Codec, ConfigError> {
        self.build().map(Codec::new)
    }
}

/// The provider half of [`AnthropicBuilder`]: each method is
/// [`ConfigBuilder`]'s of the same name.
impl ClientBuilder<ConfigBuilder> {
    /// The model (required).
    pub fn model(self, model: impl Into<String>) -> Self {
        self.configure(|c| c.model(model))
    }

    /// The API key, sent as `x-api-key` (required at Anthropic's endpoint).
    pub fn api_key(self, key: impl Into<Secret>) -> Self {
        self.configure(|c| c.api_key(key))
    }

    /// Another endpoint (an Anthropic-compatible server, a gateway, a
    /// stand-in).
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.configure(|c| c.base_url(url))
    }

    /// The sampling fields (and `max_tokens`).
    pub fn tuning(self, tuning: Tuning) -> Self {
        self.configure(|c| c.tuning(tuning))
    }

    /// The thinking mode (checked at build: 1024 ≤ budget < max_tokens).
    pub fn thinking(self, thinking: Thinking) -> Self {
        self.configure(|c| c.thinking(thinking))
    }

    /// The effort, sent as `output_config.effort`.
    pub fn effort(self, effort: impl Into<String>) -> Self {
        self.configure(|c| c.effort(effort))
    }

    /// Prompt caching with this breakpoint.
    pub fn cache_control(self, cache: CacheControl) -> Self {
        self.configure(|c| c.cache_control(cache))
    }

    /// A beta feature for the `anthropic-beta` header.
    pub fn beta(self, name: impl Into<String>) -> Self {
        self.configure(|c| c.beta(name))
    }
}

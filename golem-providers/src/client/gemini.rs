//! [`Gemini`](super::Gemini) constructors and its builder (SPEC
//! PROV-GEM-01, PROV-COMMON-02); token counting is `count_tokens.rs`'s.

use super::builder::{ClientBuilder, CodecBuilder};
use super::{env, Client};
use crate::gemini::{Codec, Config, ConfigBuilder, ConfigError, SafetySetting, Thinking, Tuning};
use crate::secret::Secret;

/// The builder [`Gemini::builder`](super::Gemini::builder) returns: the
/// Gemini settings plus the shared transport settings (timeouts, proxy,
/// transports).
pub type GeminiBuilder = ClientBuilder<ConfigBuilder>;

impl Client<Codec> {
    /// A client for a validated `config`.
    pub fn new(config: Config) -> Self {
        Client::with_codec(Codec::new(config))
    }

    /// A client from the environment: the key from `GEMINI_API_KEY`, else
    /// `GOOGLE_API_KEY`; the model from `GEMINI_MODEL` (default
    /// [`crate::gemini::DEFAULT_MODEL`]); `GEMINI_BASE_URL` for another
    /// endpoint (optional; away from Google's the key is optional too).
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self::new(Config::from_env(env)?))
    }

    /// A builder: a model and (at Google's endpoint) a key are required;
    /// the transport settings are [`ClientBuilder`]'s.
    ///
    /// ```
    /// use golem_providers::gemini::{Thinking, Tuning};
    /// use golem_providers::Gemini;
    ///
    /// let model = Gemini::builder()
    ///     .model("gemini-2.5-flash")
    ///     .api_key("AIza-test")
    ///     .tuning(Tuning::new().temperature(0.2))
    ///     .thinking(Thinking::new().include_thoughts(true))
    ///     .read_timeout(std::time::Duration::from_secs(120))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(model.config().base_url(), "https://generativelanguage.googleapis.com");
    /// assert!(Gemini::builder().model("gemini-2.5-flash").build().is_err(), "no key");
    /// ```
    pub fn builder() -> GeminiBuilder {
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

/// The provider half of [`GeminiBuilder`]: each method is
/// [`ConfigBuilder`]'s of the same name.
impl ClientBuilder<ConfigBuilder> {
    /// The model (required).
    pub fn model(self, model: impl Into<String>) -> Self {
        self.configure(|c| c.model(model))
    }

    /// The API key, sent as `x-goog-api-key` (required at Google's
    /// endpoint).
    pub fn api_key(self, key: impl Into<Secret>) -> Self {
        self.configure(|c| c.api_key(key))
    }

    /// Another endpoint (a gateway, a stand-in server).
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.configure(|c| c.base_url(url))
    }

    /// The sampling fields.
    pub fn tuning(self, tuning: Tuning) -> Self {
        self.configure(|c| c.tuning(tuning))
    }

    /// The thinking settings.
    pub fn thinking(self, thinking: Thinking) -> Self {
        self.configure(|c| c.thinking(thinking))
    }

    /// Add a safety setting.
    pub fn safety_setting(self, setting: SafetySetting) -> Self {
        self.configure(|c| c.safety_setting(setting))
    }

    /// Schemas in the legacy fields (see [`ConfigBuilder::legacy_schemas`]).
    pub fn legacy_schemas(self, on: bool) -> Self {
        self.configure(|c| c.legacy_schemas(on))
    }
}

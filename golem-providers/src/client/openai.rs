//! [`OpenAi`](super::OpenAi) constructors and its builder (SPEC
//! PROV-OAI-01, PROV-OAI-08, PROV-COMMON-02).

use super::builder::{ClientBuilder, CodecBuilder};
use super::{env, Client};
use crate::chat_completions::{Dialect, Tuning};
use crate::openai::{Codec, Config, ConfigBuilder, ConfigError, Preset};
use crate::secret::Secret;

/// The builder [`OpenAi::builder`](super::OpenAi::builder) returns.
pub type OpenAiBuilder = ClientBuilder<ConfigBuilder>;

/// The model [`Client::from_env`] uses when `OPENAI_MODEL` is unset.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";

impl Client<Codec> {
    /// A client for a validated `config`.
    pub fn new(config: Config) -> Self {
        Client::with_codec(Codec::new(config))
    }

    /// Build a client: OpenAI unless [`preset`](OpenAiBuilder::preset) or
    /// [`base_url`](OpenAiBuilder::base_url) says otherwise; a
    /// [`model`](OpenAiBuilder::model) is required, a key only where the
    /// preset's own service needs one. Nothing is read from the
    /// environment ([`from_env`](Self::from_env) does that).
    ///
    /// ```
    /// use golem_providers::openai::Preset;
    /// use golem_providers::OpenAi;
    ///
    /// let openai = OpenAi::builder().model("gpt-4o-mini").api_key("sk-test").build()?;
    /// assert_eq!(openai.config().base_url(), "https://api.openai.com/v1");
    ///
    /// // Any OpenAI-compatible server; it decides whether it wants a key.
    /// let vllm = OpenAi::builder().model("qwen2.5").base_url("http://gpu-box:8000/v1").build()?;
    /// assert!(vllm.config().api_key().is_none());
    ///
    /// // A preset brings its base URL, key rule and dialect.
    /// let groq = OpenAi::builder().preset(Preset::groq()).model("llama-3.3-70b-versatile").api_key("gsk-test").build()?;
    /// assert_eq!(groq.config().base_url(), "https://api.groq.com/openai/v1");
    ///
    /// // OpenAI itself still needs its key.
    /// assert!(OpenAi::builder().model("gpt-4o-mini").build().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder() -> OpenAiBuilder {
        ClientBuilder::new(Config::builder(Preset::openai(), ""))
    }

    /// A client for `model` on `preset`, its key read from the preset's
    /// environment variable (`GROQ_API_KEY` for Groq, none for Ollama, …).
    ///
    /// ```
    /// use golem_providers::openai::Preset;
    /// use golem_providers::OpenAi;
    ///
    /// let local = OpenAi::preset(Preset::ollama(), "llama3.2").unwrap();
    /// assert_eq!(local.config().base_url(), "http://localhost:11434/v1");
    /// ```
    pub fn preset(preset: Preset, model: impl Into<String>) -> Result<Self, ConfigError> {
        Ok(Self::new(Config::from_env(preset, model, env)?))
    }

    /// An OpenAI client from the environment: the model from
    /// `OPENAI_MODEL` (default [`DEFAULT_OPENAI_MODEL`]), the base URL from
    /// `OPENAI_BASE_URL` when set (a gateway or a compatible server), and
    /// the key from `OPENAI_API_KEY` — required for OpenAI itself,
    /// optional once `OPENAI_BASE_URL` points elsewhere.
    pub fn from_env() -> Result<Self, ConfigError> {
        let model = env("OPENAI_MODEL").unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_string());
        let mut builder = Config::builder(Preset::openai(), model).key_from_env(env);
        if let Some(url) = env("OPENAI_BASE_URL") {
            builder = builder.base_url(url);
        }
        Ok(Self::new(builder.build()?))
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

/// The provider half of [`OpenAiBuilder`]: each method is
/// [`ConfigBuilder`]'s of the same name.
impl ClientBuilder<ConfigBuilder> {
    /// The model name (required).
    pub fn model(self, model: impl Into<String>) -> Self {
        self.configure(|c| c.model(model))
    }

    /// An OpenAI-compatible preset (default [`Preset::openai`]): base URL,
    /// key rule and dialect, unless set explicitly.
    pub fn preset(self, preset: Preset) -> Self {
        self.configure(|c| c.preset(preset))
    }

    /// The API key; optional away from the preset's own service.
    pub fn api_key(self, key: impl Into<Secret>) -> Self {
        self.configure(|c| c.api_key(key))
    }

    /// The key from the preset's variable (`OPENAI_API_KEY`,
    /// `GROQ_API_KEY`, …) through `lookup`, e.g. `|name|
    /// std::env::var(name).ok()`; an explicit key is kept.
    pub fn key_from_env(self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        self.configure(|c| c.key_from_env(lookup))
    }

    /// Another server: a gateway, a local or self-hosted compatible one.
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.configure(|c| c.base_url(url))
    }

    /// The sampling fields.
    pub fn tuning(self, tuning: Tuning) -> Self {
        self.configure(|c| c.tuning(tuning))
    }

    /// Override the preset's dialect.
    pub fn dialect(self, dialect: Dialect) -> Self {
        self.configure(|c| c.dialect(dialect))
    }

    /// A header sent with every request, redacted in `Debug`.
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.configure(|c| c.header(name, value))
    }

    /// A header declared non-secret, shown by `Debug`.
    pub fn plain_header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.configure(|c| c.plain_header(name, value))
    }
}

//! [`OpenAi`](super::OpenAi) constructors (SPEC PROV-OAI-01, PROV-OAI-08,
//! PROV-COMMON-02).

use super::{env, Client};
use crate::openai::{Codec, Config, ConfigError, Preset};

/// The model [`Client::from_env`] uses when `OPENAI_MODEL` is unset.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";

impl Client<Codec> {
    /// A client for a validated `config`.
    pub fn new(config: Config) -> Self {
        Client::with_codec(Codec::new(config))
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

    /// An OpenAI client from the environment: the key from
    /// `OPENAI_API_KEY` (required), the model from `OPENAI_MODEL` (default
    /// [`DEFAULT_OPENAI_MODEL`]), and the base URL from `OPENAI_BASE_URL`
    /// when set (a proxy or a compatible server).
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

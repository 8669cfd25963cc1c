//! What only [`OpenAi`](super::OpenAi) has beside the generic constructors:
//! a client for a named preset (SPEC PROV-OAI-01, PROV-OAI-08).

use super::Client;
use crate::config::{env, ConfigError};
use crate::openai::{Codec, Config, Preset};

impl Client<Codec> {
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
}

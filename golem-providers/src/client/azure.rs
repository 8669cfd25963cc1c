//! [`AzureOpenAi`](super::AzureOpenAi) constructors (SPEC PROV-AZ-01).

use super::{env, Client};
use crate::azure::{Codec, Config, ConfigError};

impl Client<Codec> {
    /// A client for a validated `config`.
    pub fn new(config: Config) -> Self {
        Client::with_codec(Codec::new(config))
    }

    /// A client from `AZURE_OPENAI_ENDPOINT`, `AZURE_OPENAI_DEPLOYMENT`,
    /// `AZURE_OPENAI_API_VERSION` and `AZURE_OPENAI_API_KEY`, all required.
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self::new(Config::from_env(env)?))
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.codec.config()
    }
}

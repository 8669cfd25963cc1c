//! [`AzureOpenAi`](super::AzureOpenAi) constructors and its builder (SPEC
//! PROV-AZ-01).

use super::builder::{ClientBuilder, CodecBuilder};
use super::{env, Client};
use crate::azure::{Codec, Config, ConfigBuilder, ConfigError};
use crate::chat_completions::{Dialect, Tuning};
use crate::secret::Secret;

/// The builder [`AzureOpenAi::builder`](super::AzureOpenAi::builder) returns.
pub type AzureOpenAiBuilder = ClientBuilder<ConfigBuilder>;

impl Client<Codec> {
    /// A client for a validated `config`.
    pub fn new(config: Config) -> Self {
        Client::with_codec(Codec::new(config))
    }

    /// Build a client: endpoint, deployment, api-version and a credential
    /// are all required (Azure has no defaults for them, SPEC PROV-AZ-01).
    ///
    /// ```
    /// use golem_providers::AzureOpenAi;
    ///
    /// let azure = AzureOpenAi::builder()
    ///     .endpoint("https://example.openai.azure.com")
    ///     .deployment("gpt-4o")
    ///     .api_version("2024-12-01-preview")
    ///     .api_key("azure-test-key")
    ///     .build()?;
    /// assert_eq!(azure.config().deployment(), "gpt-4o");
    /// assert!(AzureOpenAi::builder().endpoint("https://example.openai.azure.com").build().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder() -> AzureOpenAiBuilder {
        ClientBuilder::new(Config::builder("", "", ""))
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

impl CodecBuilder for ConfigBuilder {
    type Codec = Codec;
    type Error = ConfigError;

    fn build_codec(self) -> Result<Codec, ConfigError> {
        self.build().map(Codec::new)
    }
}

/// The provider half of [`AzureOpenAiBuilder`]: each method is
/// [`ConfigBuilder`]'s of the same name.
impl ClientBuilder<ConfigBuilder> {
    /// The resource endpoint, `https://<resource>.openai.azure.com`.
    pub fn endpoint(self, endpoint: impl Into<String>) -> Self {
        self.configure(|c| c.endpoint(endpoint))
    }

    /// The deployment name.
    pub fn deployment(self, deployment: impl Into<String>) -> Self {
        self.configure(|c| c.deployment(deployment))
    }

    /// The api-version, e.g. `2024-12-01-preview`.
    pub fn api_version(self, api_version: impl Into<String>) -> Self {
        self.configure(|c| c.api_version(api_version))
    }

    /// Authenticate with an `api-key` header.
    pub fn api_key(self, key: impl Into<Secret>) -> Self {
        self.configure(|c| c.api_key(key))
    }

    /// Authenticate with an Entra ID bearer token.
    pub fn bearer_token(self, token: impl Into<Secret>) -> Self {
        self.configure(|c| c.bearer_token(token))
    }

    /// The sampling fields.
    pub fn tuning(self, tuning: Tuning) -> Self {
        self.configure(|c| c.tuning(tuning))
    }

    /// Override the dialect (e.g. `max_tokens` for old api-versions).
    pub fn dialect(self, dialect: Dialect) -> Self {
        self.configure(|c| c.dialect(dialect))
    }
}

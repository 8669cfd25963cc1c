//! [`Bedrock`](super::Bedrock) constructors and its builder (SPEC
//! PROV-BR-01, PROV-COMMON-02); token counting is `count_tokens.rs`'s.

use super::builder::{ClientBuilder, CodecBuilder};
use super::{env, Client};
use crate::bedrock::{CachePoint, Codec, Config, ConfigBuilder, ConfigError, CredentialsProvider, Thinking, Tuning};
use crate::sigv4::Credentials;

/// The builder [`Bedrock::builder`](super::Bedrock::builder) returns: the
/// Bedrock settings plus the shared transport settings (timeouts, proxy,
/// transports).
pub type BedrockBuilder = ClientBuilder<ConfigBuilder>;

impl Client<Codec> {
    /// A client for a validated `config`.
    pub fn new(config: Config) -> Self {
        Client::with_codec(Codec::new(config))
    }

    /// A client from the environment: `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` (optional),
    /// `AWS_REGION` (else `AWS_DEFAULT_REGION`), `BEDROCK_MODEL`, and
    /// `BEDROCK_BASE_URL` for another endpoint (optional). Nothing else of
    /// the AWS credential chain is read: no profiles, no SSO, no metadata
    /// service — give [`BedrockBuilder::credentials_provider`] a provider
    /// for those.
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self::new(Config::from_env(env)?))
    }

    /// A builder: region, model and credentials are required; the
    /// transport settings are [`ClientBuilder`]'s.
    ///
    /// ```
    /// use golem_providers::sigv4::Credentials;
    /// use golem_providers::Bedrock;
    ///
    /// let model = Bedrock::builder()
    ///     .region("us-west-2")
    ///     .model("us.anthropic.claude-sonnet-4-20250514-v1:0")
    ///     .credentials(Credentials::new("AKIDEXAMPLE", "secret").with_session_token("token"))
    ///     .read_timeout(std::time::Duration::from_secs(120))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(model.config().base_url(), "https://bedrock-runtime.us-west-2.amazonaws.com");
    /// assert!(Bedrock::builder().region("us-west-2").build().is_err(), "no model, no credentials");
    /// ```
    pub fn builder() -> BedrockBuilder {
        ClientBuilder::new(Config::builder("", ""))
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

/// The provider half of [`BedrockBuilder`]: each method is
/// [`ConfigBuilder`]'s of the same name.
impl ClientBuilder<ConfigBuilder> {
    /// The region (required).
    pub fn region(self, region: impl Into<String>) -> Self {
        self.configure(|c| c.region(region))
    }

    /// The model id, inference profile id or ARN (required).
    pub fn model(self, model: impl Into<String>) -> Self {
        self.configure(|c| c.model(model))
    }

    /// Fixed credentials (these or a provider are required).
    pub fn credentials(self, credentials: Credentials) -> Self {
        self.configure(|c| c.credentials(credentials))
    }

    /// A provider asked for credentials on every request.
    pub fn credentials_provider(self, provider: impl CredentialsProvider + 'static) -> Self {
        self.configure(|c| c.credentials_provider(provider))
    }

    /// Another endpoint (a VPC endpoint, a proxy, a stand-in server).
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.configure(|c| c.base_url(url))
    }

    /// The inference settings.
    pub fn tuning(self, tuning: Tuning) -> Self {
        self.configure(|c| c.tuning(tuning))
    }

    /// The thinking mode.
    pub fn thinking(self, thinking: Thinking) -> Self {
        self.configure(|c| c.thinking(thinking))
    }

    /// The effort (`outputConfig.effort`).
    pub fn effort(self, effort: impl Into<String>) -> Self {
        self.configure(|c| c.effort(effort))
    }

    /// Prompt caching with this cache point.
    pub fn cache_point(self, cache: CachePoint) -> Self {
        self.configure(|c| c.cache_point(cache))
    }

    /// Send forced tool choices (see [`ConfigBuilder::tool_choice`]).
    pub fn tool_choice(self, on: bool) -> Self {
        self.configure(|c| c.tool_choice(on))
    }
}

//! [`Bedrock`](super::Bedrock) constructors (SPEC PROV-BR-01, PROV-COMMON-02)
//! and token counting (SPEC PROV-BR-06).

use super::{env, Bedrock, Client};
use crate::bedrock::{CachePoint, Codec, Config, ConfigBuilder, ConfigError, CredentialsProvider, Thinking, Tuning};
use crate::codec::HttpCodec;
use crate::sigv4::Credentials;
use crate::transport::TransportConfig;
use golem_core::model::{ModelError, Request};
use std::time::SystemTime;

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

    /// A builder: region, model and credentials are required.
    ///
    /// ```
    /// use golem_providers::sigv4::Credentials;
    /// use golem_providers::Bedrock;
    ///
    /// let model = Bedrock::builder()
    ///     .region("us-west-2")
    ///     .model("us.anthropic.claude-sonnet-4-20250514-v1:0")
    ///     .credentials(Credentials::new("AKIDEXAMPLE", "secret").with_session_token("token"))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(model.config().base_url(), "https://bedrock-runtime.us-west-2.amazonaws.com");
    /// ```
    pub fn builder() -> BedrockBuilder {
        BedrockBuilder { config: Config::builder("", ""), transport: None }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.codec.config()
    }

    /// How many input tokens `request`'s messages, system texts and tools
    /// come to for the configured model (`count-tokens`, SPEC PROV-BR-06),
    /// on the blocking transport. Not a model call: nothing is generated.
    #[cfg(feature = "blocking")]
    pub fn count_tokens(&self, request: &Request) -> Result<u64, ModelError> {
        let http = self.codec.authorize(self.codec.encode_count_tokens(request)?, SystemTime::now())?;
        let response = self.blocking.send(&http)?;
        let body = response.body.read_to_end();
        self.codec.decode_count_tokens(&response.head, &body.unwrap_or_default())
    }

    /// [`count_tokens`](Self::count_tokens) on the async transport.
    #[cfg(feature = "async")]
    pub async fn count_tokens_async(&self, request: &Request) -> Result<u64, ModelError> {
        let http = self.codec.authorize(self.codec.encode_count_tokens(request)?, SystemTime::now())?;
        let response = self.asynchronous.send(&http).await?;
        let body = response.body.read_to_end().await;
        self.codec.decode_count_tokens(&response.head, &body.unwrap_or_default())
    }
}

/// Builds a [`Bedrock`] client: the [`ConfigBuilder`] settings plus the
/// transport configuration.
#[derive(Debug)]
#[must_use]
pub struct BedrockBuilder {
    config: ConfigBuilder,
    transport: Option<TransportConfig>,
}

impl BedrockBuilder {
    /// The region (required).
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.config = self.config.region(region);
        self
    }

    /// The model id, inference profile id or ARN (required).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.config = self.config.model(model);
        self
    }

    /// Fixed credentials (these or a provider are required).
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.config = self.config.credentials(credentials);
        self
    }

    /// A provider asked for credentials on every request.
    pub fn credentials_provider(mut self, provider: impl CredentialsProvider + 'static) -> Self {
        self.config = self.config.credentials_provider(provider);
        self
    }

    /// Another endpoint (a VPC endpoint, a proxy, a stand-in server).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.config = self.config.base_url(url);
        self
    }

    /// The inference settings.
    pub fn tuning(mut self, tuning: Tuning) -> Self {
        self.config = self.config.tuning(tuning);
        self
    }

    /// The thinking mode.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.config = self.config.thinking(thinking);
        self
    }

    /// The effort (`outputConfig.effort`).
    pub fn effort(mut self, effort: impl Into<String>) -> Self {
        self.config = self.config.effort(effort);
        self
    }

    /// Prompt caching with this cache point.
    pub fn cache_point(mut self, cache: CachePoint) -> Self {
        self.config = self.config.cache_point(cache);
        self
    }

    /// Send forced tool choices (see [`ConfigBuilder::tool_choice`]).
    pub fn tool_choice(mut self, on: bool) -> Self {
        self.config = self.config.tool_choice(on);
        self
    }

    /// Own transports built from `config` instead of the shared ones.
    pub fn transport_config(mut self, config: TransportConfig) -> Self {
        self.transport = Some(config);
        self
    }

    /// Validate and build the client.
    pub fn build(self) -> Result<Bedrock, ConfigError> {
        let client = Bedrock::new(self.config.build()?);
        Ok(match self.transport {
            Some(config) => client.transport_config(config),
            None => client,
        })
    }
}

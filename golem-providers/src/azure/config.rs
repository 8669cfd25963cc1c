//! Azure OpenAI configuration (SPEC PROV-AZ-01): endpoint, deployment,
//! api-version and a credential, all required — Azure has no default
//! version, and guessing one breaks silently when it is retired. The
//! shared shape is [`crate::config`]'s: the endpoint is its base URL, the
//! deployment its model.

use super::Codec;
use crate::chat_completions::{ChatExtras, Dialect};
use crate::config::{self, non_empty, Builder, ConfigError, Family, Options};
use crate::secret::Secret;

/// The environment variables [`Config::from_env`] reads.
pub const ENV_VARS: [&str; 4] =
    ["AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_DEPLOYMENT", "AZURE_OPENAI_API_VERSION", "AZURE_OPENAI_API_KEY"];

/// How requests authenticate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Auth {
    /// An `api-key` header.
    ApiKey(Secret),
    /// An Entra ID token, as `Authorization: Bearer <token>`.
    Bearer(Secret),
}

/// Azure's own settings: the api-version, whether the credential is an
/// Entra ID token, and the dialect.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AzureOptions {
    api_version: String,
    bearer: bool,
    dialect: Dialect,
}

impl Options for AzureOptions {
    type Codec = Codec;
    type Extras = ChatExtras;
    /// No default endpoint, so the credential is always required.
    const FAMILY: Family = Family::new("Azure OpenAI", None)
        .endpoint_named("an endpoint", ENV_VARS[0])
        .model_named("a deployment", ENV_VARS[1])
        .key_from(ENV_VARS[3], &[ENV_VARS[3]])
        .key_named("an API key or bearer token");

    fn check_own(&self) -> Result<(), ConfigError> {
        if self.api_version.trim().is_empty() {
            return Err(ConfigError::Missing {
                provider: self.provider(),
                field: "an api-version",
                var: Some(ENV_VARS[2]),
            });
        }
        Ok(())
    }

    fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let version = non_empty(&lookup)(ENV_VARS[2]).unwrap_or_default();
        config::env_builder::<Self>(lookup).api_version(version).build()
    }

    /// A key replaces a bearer token set before.
    fn key_set(&mut self) {
        self.bearer = false;
    }
}

/// A validated Azure OpenAI configuration.
///
/// ```
/// use golem_providers::azure::Config;
///
/// let config = Config::builder("https://example.openai.azure.com/", "gpt-4o", "2024-12-01-preview")
///     .api_key("azure-test-key")
///     .build()
///     .unwrap();
/// assert_eq!(config.endpoint(), "https://example.openai.azure.com");
/// assert!(!format!("{config:?}").contains("azure-test-key"));
/// ```
pub type Config = config::Config<AzureOptions>;

/// Builds a [`Config`]; `build` validates.
pub type ConfigBuilder = Builder<AzureOptions>;

impl Config {
    /// Start a config for `deployment` at `endpoint` with `api_version`.
    pub fn builder(
        endpoint: impl Into<String>,
        deployment: impl Into<String>,
        api_version: impl Into<String>,
    ) -> ConfigBuilder {
        Builder::new(deployment, AzureOptions::default()).endpoint(endpoint).api_version(api_version)
    }

    /// A config from the [`ENV_VARS`] read through `lookup` (e.g. `|name|
    /// std::env::var(name).ok()`); codecs never read the environment
    /// themselves.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        AzureOptions::from_env(lookup)
    }

    /// The endpoint, without a trailing slash.
    pub fn endpoint(&self) -> &str {
        self.base_url()
    }

    /// The deployment name.
    pub fn deployment(&self) -> &str {
        self.model()
    }

    /// The api-version.
    pub fn api_version(&self) -> &str {
        &self.options.api_version
    }

    /// The credential (always set once built).
    pub fn auth(&self) -> Option<Auth> {
        let secret = self.api_key()?.clone();
        Some(if self.options.bearer { Auth::Bearer(secret) } else { Auth::ApiKey(secret) })
    }

    /// The credential's secret, for scrubbing error messages.
    pub fn secret(&self) -> Option<&Secret> {
        self.api_key()
    }

    /// The dialect (everything supported, `max_completion_tokens`, unless
    /// overridden).
    pub fn dialect(&self) -> &Dialect {
        &self.options.dialect
    }
}

/// Azure's setters, on the config builder and the client builder alike.
impl<T> Builder<AzureOptions, T> {
    /// The resource endpoint, `https://<resource>.openai.azure.com` (the
    /// base URL; an empty one counts as unset).
    pub fn endpoint(mut self, endpoint: impl Into<String>) -> Self {
        let endpoint = endpoint.into();
        self.base_url = (!endpoint.trim().is_empty()).then_some(endpoint);
        self
    }

    /// The deployment name (the model).
    pub fn deployment(self, deployment: impl Into<String>) -> Self {
        self.model(deployment)
    }

    /// The api-version, e.g. `2024-12-01-preview`.
    pub fn api_version(mut self, api_version: impl Into<String>) -> Self {
        self.options.api_version = api_version.into().trim().to_string();
        self
    }

    /// Authenticate with an Entra ID bearer token (instead of an `api-key`).
    pub fn bearer_token(self, token: impl Into<Secret>) -> Self {
        let mut builder = self.api_key(token);
        builder.options.bearer = true;
        builder
    }

    /// Override the dialect — e.g. `max_tokens` for api-versions older than
    /// 2024-09-01-preview, which lack `max_completion_tokens`.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.options.dialect = dialect;
        self
    }
}

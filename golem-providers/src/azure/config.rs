//! Azure OpenAI configuration (SPEC PROV-AZ-01): endpoint, deployment,
//! api-version and a credential, all required — Azure has no default
//! version, and guessing one breaks silently when it is retired.

use super::error::ConfigError;
use crate::chat_completions::{Dialect, Tuning};
use crate::secret::Secret;
use crate::validate;

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

impl Auth {
    fn secret(&self) -> &Secret {
        match self {
            Auth::ApiKey(s) | Auth::Bearer(s) => s,
        }
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
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    endpoint: String,
    deployment: String,
    api_version: String,
    auth: Option<Auth>,
    tuning: Tuning,
    dialect: Dialect,
}

impl Config {
    /// Start a config for `deployment` at `endpoint` with `api_version`.
    pub fn builder(
        endpoint: impl Into<String>,
        deployment: impl Into<String>,
        api_version: impl Into<String>,
    ) -> ConfigBuilder {
        ConfigBuilder {
            config: Config {
                endpoint: endpoint.into(),
                deployment: deployment.into(),
                api_version: api_version.into(),
                auth: None,
                tuning: Tuning::new(),
                dialect: Dialect::FULL,
            },
        }
    }

    /// A config from the [`ENV_VARS`] read through `lookup` (e.g. `|name|
    /// std::env::var(name).ok()`); codecs never read the environment
    /// themselves.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |name: &str| lookup(name).unwrap_or_default();
        let mut builder = Config::builder(get(ENV_VARS[0]), get(ENV_VARS[1]), get(ENV_VARS[2]));
        let key = get(ENV_VARS[3]);
        if !key.is_empty() {
            builder = builder.api_key(key);
        }
        builder.build()
    }

    /// The endpoint, without a trailing slash.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The deployment name.
    pub fn deployment(&self) -> &str {
        &self.deployment
    }

    /// The api-version.
    pub fn api_version(&self) -> &str {
        &self.api_version
    }

    /// The credential (always set once built).
    pub fn auth(&self) -> Option<&Auth> {
        self.auth.as_ref()
    }

    /// The credential's secret, for scrubbing error messages.
    pub fn secret(&self) -> Option<&Secret> {
        self.auth.as_ref().map(Auth::secret)
    }

    /// The tuning fields.
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// The dialect (everything supported, `max_completion_tokens`, unless
    /// overridden).
    pub fn dialect(&self) -> &Dialect {
        &self.dialect
    }
}

/// Builds a [`Config`]; [`ConfigBuilder::build`] validates.
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    config: Config,
}

impl ConfigBuilder {
    /// The resource endpoint, `https://<resource>.openai.azure.com`.
    pub fn endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.config.endpoint = endpoint.into();
        self
    }

    /// The deployment name.
    pub fn deployment(mut self, deployment: impl Into<String>) -> Self {
        self.config.deployment = deployment.into();
        self
    }

    /// The api-version, e.g. `2024-12-01-preview`.
    pub fn api_version(mut self, api_version: impl Into<String>) -> Self {
        self.config.api_version = api_version.into();
        self
    }

    /// Authenticate with an `api-key` header.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.config.auth = Some(Auth::ApiKey(key.into()));
        self
    }

    /// Authenticate with an Entra ID bearer token.
    pub fn bearer_token(mut self, token: impl Into<Secret>) -> Self {
        self.config.auth = Some(Auth::Bearer(token.into()));
        self
    }

    /// Set the tuning fields.
    pub fn tuning(mut self, tuning: Tuning) -> Self {
        self.config.tuning = tuning;
        self
    }

    /// Override the dialect — e.g. `max_tokens` for api-versions older than
    /// 2024-09-01-preview, which lack `max_completion_tokens`.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.config.dialect = dialect;
        self
    }

    /// Validate and build.
    pub fn build(self) -> Result<Config, ConfigError> {
        let mut config = self.config;
        config.endpoint = validate::trim_base_url(&config.endpoint);
        config.deployment = config.deployment.trim().to_string();
        config.api_version = config.api_version.trim().to_string();
        let missing = |field, var| Err(ConfigError::Missing { field, var });
        if config.endpoint.is_empty() {
            return missing("an endpoint", ENV_VARS[0]);
        }
        if config.deployment.is_empty() {
            return missing("a deployment", ENV_VARS[1]);
        }
        if config.api_version.is_empty() {
            return missing("an api-version", ENV_VARS[2]);
        }
        if let Some(reason) = validate::base_url_problem(&config.endpoint) {
            return Err(ConfigError::InvalidEndpoint { url: config.endpoint, reason });
        }
        match config.auth.as_ref().map(Auth::secret) {
            None => return missing("an API key or bearer token", ENV_VARS[3]),
            Some(secret) if secret.is_empty() => return missing("an API key or bearer token", ENV_VARS[3]),
            Some(secret) if !validate::is_credential(secret.expose()) => return Err(ConfigError::InvalidCredential),
            Some(_) => {}
        }
        config.tuning.validate()?;
        Ok(config)
    }
}

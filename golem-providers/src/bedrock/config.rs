//! Bedrock configuration (SPEC PROV-BR-01/03, THINK-02, PROV-COMMON-02):
//! region, model and credentials required; everything else optional.

use super::credentials::{CredentialsProvider, SharedProvider};
use super::error::ConfigError;
use super::tuning::{CachePoint, Thinking, Tuning};
use crate::sigv4::Credentials;
use crate::validate;
use std::sync::Arc;

/// The environment variables `Bedrock::from_env` reads:
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`
/// (optional), `AWS_REGION` (else `AWS_DEFAULT_REGION`), `BEDROCK_MODEL`,
/// and `BEDROCK_BASE_URL` (optional: a proxy or a stand-in server).
pub const ENV_VARS: [&str; 7] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "BEDROCK_MODEL",
    "BEDROCK_BASE_URL",
];

/// The variables an example needs set (the optional ones left out).
pub const REQUIRED_ENV_VARS: [&str; 4] = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "BEDROCK_MODEL"];

/// The signing name of the Bedrock runtime (SPEC PROV-BR-02).
pub const SERVICE: &str = "bedrock";

/// A validated Bedrock Converse configuration.
///
/// ```
/// use golem_providers::bedrock::{Config, Thinking, Tuning};
/// use golem_providers::sigv4::Credentials;
///
/// let config = Config::builder("us-east-1", "us.anthropic.claude-sonnet-4-20250514-v1:0")
///     .credentials(Credentials::new("AKIDEXAMPLE", "wJalrXUtnFEMI"))
///     .tuning(Tuning::new().max_tokens(4096))
///     .thinking(Thinking::Enabled { budget_tokens: 2048 })
///     .build()
///     .unwrap();
/// assert_eq!(config.base_url(), "https://bedrock-runtime.us-east-1.amazonaws.com");
/// assert!(!format!("{config:?}").contains("AKIDEXAMPLE"));
///
/// // Anthropic models need a budget of at least 1024, below max_tokens.
/// let small = Config::builder("us-east-1", "anthropic.claude-3-7-sonnet-20250219-v1:0")
///     .credentials(Credentials::new("AKIDEXAMPLE", "wJalrXUtnFEMI"))
///     .thinking(Thinking::Enabled { budget_tokens: 512 })
///     .build();
/// assert!(small.is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    region: String,
    model: String,
    base_url: String,
    credentials: SharedProvider,
    tuning: Tuning,
    thinking: Option<Thinking>,
    effort: Option<String>,
    cache: Option<CachePoint>,
    tool_choice: bool,
}

impl Config {
    /// Start a config for `model` (a model id, inference profile id or ARN)
    /// in `region`.
    pub fn builder(region: impl Into<String>, model: impl Into<String>) -> ConfigBuilder {
        ConfigBuilder {
            region: region.into(),
            model: model.into(),
            base_url: None,
            credentials: None,
            fixed: None,
            tuning: Tuning::new(),
            thinking: None,
            effort: None,
            cache: None,
            tool_choice: false,
        }
    }

    /// A config from variables read through `lookup` (see [`ENV_VARS`]);
    /// empty values count as unset. Codecs never read the environment
    /// themselves (SPEC PROV-COMMON-01).
    ///
    /// ```
    /// use golem_providers::bedrock::Config;
    ///
    /// let vars = [("AWS_ACCESS_KEY_ID", "AKID"), ("AWS_SECRET_ACCESS_KEY", "secret"),
    ///             ("AWS_DEFAULT_REGION", "eu-west-1"), ("BEDROCK_MODEL", "amazon.nova-micro-v1:0")];
    /// let lookup = |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string());
    /// let config = Config::from_env(lookup).unwrap();
    /// assert_eq!((config.region(), config.model()), ("eu-west-1", "amazon.nova-micro-v1:0"));
    /// ```
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let lookup = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let region = lookup("AWS_REGION")
            .or_else(|| lookup("AWS_DEFAULT_REGION"))
            .ok_or(ConfigError::Missing { field: "a region", var: "AWS_REGION" })?;
        let model = lookup("BEDROCK_MODEL").ok_or(ConfigError::Missing { field: "a model", var: "BEDROCK_MODEL" })?;
        let key_id = lookup("AWS_ACCESS_KEY_ID")
            .ok_or(ConfigError::Missing { field: "an access key id", var: "AWS_ACCESS_KEY_ID" })?;
        let secret = lookup("AWS_SECRET_ACCESS_KEY")
            .ok_or(ConfigError::Missing { field: "a secret access key", var: "AWS_SECRET_ACCESS_KEY" })?;
        let mut credentials = Credentials::new(key_id, secret);
        if let Some(token) = lookup("AWS_SESSION_TOKEN") {
            credentials = credentials.with_session_token(token);
        }
        let mut builder = Config::builder(region, model).credentials(credentials);
        if let Some(url) = lookup("BEDROCK_BASE_URL") {
            builder = builder.base_url(url);
        }
        builder.build()
    }

    /// The region.
    pub fn region(&self) -> &str {
        &self.region
    }

    /// The model id.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The credentials provider.
    pub fn credentials(&self) -> &Arc<dyn CredentialsProvider> {
        &self.credentials.0
    }

    /// The inference settings.
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// The thinking mode, if configured.
    pub fn thinking(&self) -> Option<Thinking> {
        self.thinking
    }

    /// The effort (`outputConfig.effort`), if configured.
    pub fn effort(&self) -> Option<&str> {
        self.effort.as_deref()
    }

    /// The cache point, if caching is on.
    pub fn cache(&self) -> Option<CachePoint> {
        self.cache
    }

    /// Whether a forced tool choice may be sent (and is reported as a
    /// capability): on only when configured and thinking is off.
    pub fn sends_tool_choice(&self) -> bool {
        self.tool_choice && !self.thinking.is_some_and(Thinking::is_on)
    }

    /// True for Anthropic models (ids, profiles and ARNs naming
    /// `anthropic.`), whose thinking rules are checked at construction.
    pub fn is_anthropic(&self) -> bool {
        self.model.contains("anthropic.")
    }
}

/// Builds a [`Config`]; [`ConfigBuilder::build`] validates.
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    region: String,
    model: String,
    base_url: Option<String>,
    credentials: Option<SharedProvider>,
    /// Fixed credentials, kept to be checked at build.
    fixed: Option<Credentials>,
    tuning: Tuning,
    thinking: Option<Thinking>,
    effort: Option<String>,
    cache: Option<CachePoint>,
    tool_choice: bool,
}

impl ConfigBuilder {
    /// Set the region.
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.region = region.into();
        self
    }

    /// Set the model id.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Another base URL than `https://bedrock-runtime.{region}.amazonaws.com`
    /// (a VPC endpoint, a proxy, a stand-in server); a trailing `/` is
    /// trimmed. Requests are still signed for the configured region.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Fixed credentials; [`build`](Self::build) checks they can go in
    /// HTTP headers.
    pub fn credentials(self, credentials: Credentials) -> Self {
        let mut builder = self.credentials_provider(credentials.clone());
        builder.fixed = Some(credentials);
        builder
    }

    /// A provider asked for credentials on every request (refreshing ones).
    pub fn credentials_provider(mut self, provider: impl CredentialsProvider + 'static) -> Self {
        self.credentials = Some(SharedProvider(Arc::new(provider)));
        self.fixed = None;
        self
    }

    /// Set the inference settings.
    pub fn tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// Set the thinking mode.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.thinking = Some(thinking);
        self
    }

    /// Set the effort (`low`, `medium`, `high`, …), sent as
    /// `outputConfig.effort`.
    pub fn effort(mut self, effort: impl Into<String>) -> Self {
        self.effort = Some(effort.into());
        self
    }

    /// Turn on prompt caching with this cache point.
    pub fn cache_point(mut self, cache: CachePoint) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Send a forced tool choice (`toolConfig.toolChoice`) when the run
    /// forces a tool (SPEC PROV-BR-03). Off by default: only some model
    /// families accept it (Anthropic, Mistral Large, Nova). Ignored while
    /// thinking is on, which the API refuses with a forced choice.
    pub fn tool_choice(mut self, on: bool) -> Self {
        self.tool_choice = on;
        self
    }

    /// Validate and build.
    pub fn build(self) -> Result<Config, ConfigError> {
        let region = self.region.trim().to_string();
        if region.is_empty() {
            return Err(ConfigError::Missing { field: "a region", var: "AWS_REGION" });
        }
        if !region.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            return Err(ConfigError::InvalidRegion { region });
        }
        let model = self.model.trim().to_string();
        if model.is_empty() {
            return Err(ConfigError::Missing { field: "a model", var: "BEDROCK_MODEL" });
        }
        let base_url = validate::trim_base_url(
            &self.base_url.unwrap_or_else(|| format!("https://bedrock-runtime.{region}.amazonaws.com")),
        );
        if let Some(reason) = validate::base_url_problem(&base_url) {
            return Err(ConfigError::InvalidBaseUrl { url: base_url, reason });
        }
        let credentials = self
            .credentials
            .ok_or(ConfigError::Missing { field: "credentials", var: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" })?;
        if let Some(fixed) = &self.fixed {
            let parts = [Some(fixed.access_key_id()), Some(fixed.secret_access_key()), fixed.session_token()];
            if !parts.into_iter().flatten().all(|part| validate::is_credential(part.expose())) {
                return Err(ConfigError::InvalidCredentials);
            }
        }
        self.tuning.validate().map_err(|reason| ConfigError::InvalidTuning { reason })?;
        if let Some(effort) = &self.effort {
            if effort.trim().is_empty() || effort.chars().any(char::is_control) {
                return Err(ConfigError::InvalidTuning { reason: "effort must be non-empty printable text".into() });
            }
        }
        let config = Config {
            region,
            model,
            base_url,
            credentials,
            tuning: self.tuning,
            thinking: self.thinking,
            effort: self.effort,
            cache: self.cache,
            tool_choice: self.tool_choice,
        };
        check_thinking(&config)?;
        Ok(config)
    }
}

/// THINK-02 for Anthropic models: 1024 ≤ budget, and budget < max_tokens
/// when a limit is set (Bedrock's default limit applies otherwise).
fn check_thinking(config: &Config) -> Result<(), ConfigError> {
    let Some(Thinking::Enabled { budget_tokens }) = config.thinking else { return Ok(()) };
    if !config.is_anthropic() {
        return Ok(());
    }
    if budget_tokens < Thinking::MIN_BUDGET {
        return Err(ConfigError::InvalidThinking {
            reason: format!("budget_tokens must be at least {}, got {budget_tokens}", Thinking::MIN_BUDGET),
        });
    }
    if let Some(max) = config.tuning.max_tokens.filter(|max| budget_tokens >= *max) {
        return Err(ConfigError::InvalidThinking {
            reason: format!("budget_tokens ({budget_tokens}) must be below max_tokens ({max})"),
        });
    }
    Ok(())
}

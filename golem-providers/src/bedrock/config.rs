//! Bedrock configuration (SPEC PROV-BR-01/03, THINK-02, PROV-COMMON-02):
//! region, model and credentials required; everything else optional. The
//! shared shape is [`crate::config`]'s (Bedrock takes no API key: it signs
//! with AWS credentials); Bedrock adds the region, credentials, thinking,
//! effort, cache points and forced tool choice.

use super::credentials::{CredentialsProvider, SharedProvider};
use super::tuning::{BedrockExtras, CachePoint};
use super::Codec;
use crate::config::{self, non_empty, validate, Builder, ConfigError, Family, KeyRule, Options, Reasoning, Setting};
use crate::sigv4::Credentials;
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

/// Bedrock's own settings: the region, the credentials, thinking, effort,
/// the cache point and forced tool choice.
#[derive(Clone, Debug, Default)]
pub struct BedrockOptions {
    region: String,
    /// Asked on every request; until one is set, a provider that has
    /// none to give (and `build` refuses the config).
    credentials: SharedProvider,
    provided: bool,
    /// Fixed credentials, kept to be checked at build.
    fixed: Option<Credentials>,
    reasoning: Reasoning,
    /// An explicit point; without one, the model's default (issue 37).
    cache: Option<CachePoint>,
    no_cache: bool,
    tool_choice: bool,
}

impl Options for BedrockOptions {
    type Codec = Codec;
    type Extras = BedrockExtras;
    /// The key is the AWS credentials; `from_env` reads them itself.
    const FAMILY: Family = Family::new("Bedrock", None)
        .model_named("a model", "BEDROCK_MODEL")
        .endpoint_named("a region", "AWS_REGION")
        .key_from("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", &[])
        .key_named("credentials");

    fn default_base_url(&self) -> Result<String, ConfigError> {
        self.check_region()?;
        Ok(format!("https://bedrock-runtime.{}.amazonaws.com", self.region))
    }

    fn key_rule(&self, _: &str) -> KeyRule {
        KeyRule::NotTaken { hint: "it signs requests with AWS credentials; set credentials or a credentials provider" }
    }

    fn check_own(&self) -> Result<(), ConfigError> {
        self.check_region()?;
        if !self.provided {
            let Setting { what, var } = Self::FAMILY.key;
            return Err(ConfigError::Missing { provider: self.provider(), field: what, var });
        }
        if let Some(fixed) = &self.fixed {
            let parts = [Some(fixed.access_key_id()), Some(fixed.secret_access_key()), fixed.session_token()];
            if !parts.into_iter().flatten().all(|part| validate::is_credential(part.expose())) {
                return Err(ConfigError::InvalidKey);
            }
        }
        Ok(())
    }

    /// THINK-02 for Anthropic models: 1024 ≤ budget, and budget <
    /// max_tokens when a limit is set (Bedrock's default limit applies
    /// otherwise).
    fn check(config: &Config) -> Result<(), ConfigError> {
        config.options.reasoning.check(config.is_anthropic(), config.tuning.max_tokens)
    }

    fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let lookup = non_empty(lookup);
        let missing = |field, var| ConfigError::Missing { provider: "Bedrock", field, var: Some(var) };
        let region =
            lookup("AWS_REGION").or_else(|| lookup("AWS_DEFAULT_REGION")).ok_or(missing("a region", "AWS_REGION"))?;
        let model = lookup("BEDROCK_MODEL").ok_or(missing("a model", "BEDROCK_MODEL"))?;
        let key_id = lookup("AWS_ACCESS_KEY_ID").ok_or(missing("an access key id", "AWS_ACCESS_KEY_ID"))?;
        let secret = lookup("AWS_SECRET_ACCESS_KEY").ok_or(missing("a secret access key", "AWS_SECRET_ACCESS_KEY"))?;
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
}

impl BedrockOptions {
    /// A region is required (it is signed, and names the default endpoint)
    /// and is a region name: lowercase letters, digits, `-`.
    fn check_region(&self) -> Result<(), ConfigError> {
        if self.region.is_empty() {
            let Setting { what, var } = Self::FAMILY.endpoint;
            return Err(ConfigError::Missing { provider: self.provider(), field: what, var });
        }
        if !self.region.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            return Err(ConfigError::InvalidRegion { region: self.region.clone() });
        }
        Ok(())
    }
}

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
pub type Config = config::Config<BedrockOptions>;

/// Builds a [`Config`]; `build` validates.
pub type ConfigBuilder = Builder<BedrockOptions>;

impl Config {
    /// Start a config for `model` (a model id, inference profile id or ARN)
    /// in `region`.
    pub fn builder(region: impl Into<String>, model: impl Into<String>) -> ConfigBuilder {
        Builder::new(model, BedrockOptions::default()).region(region)
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
        BedrockOptions::from_env(lookup)
    }

    /// The region.
    pub fn region(&self) -> &str {
        &self.options.region
    }

    /// The credentials provider, asked on every request.
    pub fn credentials(&self) -> &Arc<dyn CredentialsProvider> {
        &self.options.credentials.0
    }

    /// The cache point while prompt caching is on: the one set with
    /// `cache_point`, else a default point for the models that document
    /// caching ([`caches_by_default`](super::caches_by_default): Claude and
    /// Nova); none after `no_cache` (issue 37).
    ///
    /// ```
    /// use golem_providers::bedrock::{CachePoint, Config};
    /// use golem_providers::sigv4::Credentials;
    ///
    /// let config = |model: &str| Config::builder("us-east-1", model).credentials(Credentials::new("AKID", "secret"));
    /// assert_eq!(config("amazon.nova-pro-v1:0").build().unwrap().cache(), Some(CachePoint::new()));
    /// assert_eq!(config("meta.llama3-70b-instruct-v1:0").build().unwrap().cache(), None);
    /// assert_eq!(config("amazon.nova-pro-v1:0").no_cache().build().unwrap().cache(), None);
    /// ```
    pub fn cache(&self) -> Option<CachePoint> {
        if self.options.no_cache {
            return None;
        }
        self.options.cache.or_else(|| super::caches_by_default(self.model()).then(CachePoint::new))
    }

    /// Whether a forced tool choice may be sent (and is reported as a
    /// capability): on only when configured and thinking is off.
    pub fn sends_tool_choice(&self) -> bool {
        self.options.tool_choice && !self.thinks()
    }

    /// True for Anthropic models (ids, profiles and ARNs naming
    /// `anthropic.`), whose thinking rules are checked at construction.
    pub fn is_anthropic(&self) -> bool {
        self.model().contains("anthropic.")
    }
}

config::reasons!(BedrockOptions);

/// Bedrock's setters (`thinking` and `effort` are [`Reasons`](config::Reasons)'), on the config builder and the client builder alike.
impl<T> Builder<BedrockOptions, T> {
    /// The region (required).
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.options.region = region.into().trim().to_string();
        self
    }

    /// Fixed credentials (these or a provider are required); `build`
    /// checks they can go in HTTP headers.
    pub fn credentials(self, credentials: Credentials) -> Self {
        let mut builder = self.credentials_provider(credentials.clone());
        builder.options.fixed = Some(credentials);
        builder
    }

    /// A provider asked for credentials on every request (refreshing ones).
    pub fn credentials_provider(mut self, provider: impl CredentialsProvider + 'static) -> Self {
        self.options.credentials = SharedProvider(Arc::new(provider));
        self.options.provided = true;
        self.options.fixed = None;
        self
    }

    /// Prompt caching with this cache point (its TTL): overrides the
    /// default point, and turns caching on for a model that has it off by
    /// default or after [`no_cache`](Self::no_cache).
    pub fn cache_point(mut self, cache: CachePoint) -> Self {
        self.options.cache = Some(cache);
        self.options.no_cache = false;
        self
    }

    /// Turn automatic prompt caching off: no `cachePoint` block is sent.
    pub fn no_cache(mut self) -> Self {
        self.options.no_cache = true;
        self
    }

    /// Send a forced tool choice (`toolConfig.toolChoice`) when the run
    /// forces a tool (SPEC PROV-BR-03). Off by default: only some model
    /// families accept it (Anthropic, Mistral Large, Nova). Ignored while
    /// thinking is on, which the API refuses with a forced choice.
    pub fn tool_choice(mut self, on: bool) -> Self {
        self.options.tool_choice = on;
        self
    }
}

//! Responses API configuration: the shared shape ([`crate::config`]) —
//! model, key, base URL, headers, [`Tuning`](super::Tuning) — plus where
//! the API is served (OpenAI, an Azure OpenAI resource, any server that
//! serves `/v1/responses`) and how the conversation is kept: stateless by
//! default (`store: false`, the reasoning carried back encrypted), or
//! chained on the service with `previous_response_id`.

use super::tuning::ResponsesExtras;
use super::Codec;
use crate::config::{self, validate, Builder, ConfigError, Family, KeyRule, Options, Setting};
use crate::secret::Secret;

/// OpenAI's endpoint, the base URL by default.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The model `OpenAiResponses::from_env` uses when `OPENAI_MODEL` is unset:
/// a reasoning model, which is what the Responses API is for.
pub const DEFAULT_MODEL: &str = "gpt-5-mini";

/// The environment variables `from_env` reads — OpenAI's, the same the
/// Chat Completions client reads: the key, the model (default
/// [`DEFAULT_MODEL`]) and another base URL.
pub const ENV_VARS: [&str; 3] = ["OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_BASE_URL"];

/// Where an Azure OpenAI resource serves the API, after its endpoint.
const AZURE_PATH: &str = "/openai/v1";

/// The Responses API's own settings: the service and the conversation
/// state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResponsesOptions {
    azure: bool,
    bearer: bool,
    store: bool,
    chain: bool,
    without_encrypted_reasoning: bool,
}

impl Options for ResponsesOptions {
    type Codec = Codec;
    type Extras = ResponsesExtras;
    const FAMILY: Family = Family::new("OpenAI Responses", Some(DEFAULT_BASE_URL))
        .model_from(ENV_VARS[1], DEFAULT_MODEL)
        .base_url_from(ENV_VARS[2])
        .key_from(ENV_VARS[0], &[ENV_VARS[0]]);

    fn provider(&self) -> &'static str {
        if self.azure {
            "Azure OpenAI Responses"
        } else {
            Self::FAMILY.provider
        }
    }

    /// An Azure resource always needs its key or token; elsewhere as for
    /// every family (required at OpenAI's endpoint, optional at another
    /// server, which decides).
    fn key_rule(&self, base_url: &str) -> KeyRule {
        match Self::FAMILY.base_url {
            _ if self.azure => KeyRule::Required(Setting::new("an API key or bearer token", None)),
            Some(own) if own != base_url => KeyRule::Optional,
            _ => KeyRule::Required(Self::FAMILY.key),
        }
    }

    /// A key replaces a bearer token set before.
    fn key_set(&mut self) {
        self.bearer = false;
    }
}

/// A validated Responses API configuration.
///
/// ```
/// use golem_providers::responses::{Config, Tuning};
///
/// let config = Config::builder("gpt-5-mini")
///     .api_key("sk-test")
///     .tuning(Tuning::new().reasoning_effort("low").reasoning_summary("auto"))
///     .build()
///     .unwrap();
/// assert_eq!(config.url(), "https://api.openai.com/v1/responses");
/// assert!(!config.store(), "stateless by default: the reasoning comes back encrypted");
/// assert!(!format!("{config:?}").contains("sk-test"));
///
/// // An Azure OpenAI resource: the v1 API under its endpoint, an `api-key` header.
/// let azure = Config::builder("gpt-5-nano")
///     .azure_endpoint("https://example.openai.azure.com/")
///     .api_key("azure-key")
///     .build()
///     .unwrap();
/// assert_eq!(azure.url(), "https://example.openai.azure.com/openai/v1/responses");
/// assert!(Config::builder("m").azure_endpoint("https://example.openai.azure.com").build().is_err(), "no key");
/// ```
pub type Config = config::Config<ResponsesOptions>;

/// Builds a [`Config`]; `build` validates.
pub type ConfigBuilder = Builder<ResponsesOptions>;

impl Config {
    /// Start a config for `model` at OpenAI (`base_url` or
    /// `azure_endpoint` point it elsewhere).
    pub fn builder(model: impl Into<String>) -> ConfigBuilder {
        Builder::new(model, ResponsesOptions::default())
    }

    /// A config from the [`ENV_VARS`] read through `lookup` (e.g. `|name|
    /// std::env::var(name).ok()`); empty values count as unset. Codecs
    /// never read the environment themselves.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        ResponsesOptions::from_env(lookup)
    }

    /// Where every request goes: `{base_url}/responses`.
    pub fn url(&self) -> String {
        format!("{}/responses", self.base_url())
    }

    /// True for an Azure OpenAI resource.
    pub fn is_azure(&self) -> bool {
        self.options.azure
    }

    /// The credential header: Azure's `api-key` (unless a bearer token was
    /// given), else `Authorization: Bearer`; none without a key.
    pub fn auth(&self) -> Option<(&'static str, Secret)> {
        let key = self.api_key()?;
        if self.options.azure && !self.options.bearer {
            return Some(("api-key", key.clone()));
        }
        Some(("authorization", Secret::new(format!("Bearer {}", key.expose()))))
    }

    /// Whether the service keeps the responses (`store`): off unless set,
    /// or implied by [`chains`](Self::chains).
    pub fn store(&self) -> bool {
        self.options.store || self.options.chain
    }

    /// Whether a request continues the response it follows by
    /// `previous_response_id` rather than resending the history (when
    /// this codec produced that response; else the history is sent whole).
    pub fn chains(&self) -> bool {
        self.options.chain
    }

    /// Whether requests ask for the reasoning's encrypted content
    /// (`include: ["reasoning.encrypted_content"]`), so it can be carried
    /// into the next request: on unless turned off.
    pub fn encrypted_reasoning(&self) -> bool {
        !self.options.without_encrypted_reasoning
    }
}

/// The Responses API's setters, on the config builder and the client
/// builder alike.
impl<T> Builder<ResponsesOptions, T> {
    /// An Azure OpenAI resource, `https://<resource>.openai.azure.com` (or
    /// an AI Foundry `…services.ai.azure.com`): requests go to its v1 API,
    /// `{endpoint}/openai/v1/responses`, with the key in an `api-key`
    /// header. The model is the deployment name; a key is required.
    pub fn azure_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        let endpoint = validate::trim_base_url(&endpoint.into());
        let base = if endpoint.ends_with(AZURE_PATH) { endpoint } else { format!("{endpoint}{AZURE_PATH}") };
        self.base_url = Some(base);
        self.options.azure = true;
        self
    }

    /// Authenticate with a bearer token (an Entra ID token for Azure)
    /// instead of an API key.
    pub fn bearer_token(self, token: impl Into<Secret>) -> Self {
        let mut builder = self.api_key(token);
        builder.options.bearer = true;
        builder
    }

    /// Let the service keep the responses (`store: true`). Off by
    /// default: nothing is kept, and the reasoning of earlier turns is
    /// carried back in each request, encrypted.
    pub fn store(mut self, store: bool) -> Self {
        self.options.store = store;
        self
    }

    /// Continue a conversation on the service: when a request's history
    /// ends with an answer this codec decoded (and nothing before it
    /// changed), send `previous_response_id` and only the messages after
    /// that answer, instead of the whole history. Implies `store: true`.
    /// Any other history — another process, another model's answer, an
    /// edited or trimmed history — is sent whole, so the answer never
    /// depends on what this process remembers.
    pub fn chain_responses(mut self, chain: bool) -> Self {
        self.options.chain = chain;
        self
    }

    /// Whether to ask for the reasoning's encrypted content (default on).
    /// Turn it off for a model or server that refuses the `include`
    /// (models without reasoning, some compatible servers).
    pub fn encrypted_reasoning(mut self, on: bool) -> Self {
        self.options.without_encrypted_reasoning = !on;
        self
    }
}

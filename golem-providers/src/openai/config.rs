//! OpenAI-compatible client configuration (SPEC PROV-COMMON-02, PROV-OAI-01).

use super::error::ConfigError;
use super::presets::{KeyRule, Preset};
use crate::chat_completions::{Dialect, Tuning};
use crate::http::HeaderValue;
use crate::secret::Secret;
use crate::validate;

/// A validated configuration: a preset, a model, credentials and tuning.
///
/// ```
/// use golem_providers::openai::{Config, Preset};
/// use golem_providers::chat_completions::Tuning;
///
/// let config = Config::builder(Preset::openai(), "gpt-4o-mini")
///     .api_key("sk-test")
///     .tuning(Tuning::new().temperature(0.0))
///     .build()
///     .unwrap();
/// assert_eq!(config.base_url(), "https://api.openai.com/v1");
/// assert!(!format!("{config:?}").contains("sk-test"));
///
/// // Added headers are secret unless declared plain.
/// let proxied = Config::builder(Preset::openai(), "gpt-4o-mini")
///     .api_key("sk-test")
///     .header("x-proxy-token", "pt-secret")
///     .plain_header("http-referer", "https://example.com")
///     .build()
///     .unwrap();
/// let shown = format!("{proxied:?}");
/// assert!(!shown.contains("pt-secret") && shown.contains("https://example.com"));
///
/// // Keys come from the environment through a lookup you pass in.
/// let env = |name: &str| (name == "GROQ_API_KEY").then(|| "gsk-test".to_string());
/// let groq = Config::from_env(Preset::groq(), "llama-3.3-70b-versatile", env).unwrap();
/// assert_eq!(groq.api_key().map(|k| k.expose()), Some("gsk-test"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    preset: Preset,
    base_url: String,
    api_key: Option<Secret>,
    model: String,
    tuning: Tuning,
    dialect: Dialect,
    headers: Vec<(String, HeaderValue)>,
}

impl Config {
    /// Start a config for `model` on `preset`.
    pub fn builder(preset: Preset, model: impl Into<String>) -> ConfigBuilder {
        ConfigBuilder {
            preset,
            model: model.into(),
            base_url: None,
            api_key: None,
            tuning: Tuning::new(),
            dialect: None,
            headers: Vec::new(),
        }
    }

    /// A config for `model` on `preset` with the key read from the preset's
    /// variable through `lookup` (e.g. `|name| std::env::var(name).ok()`).
    /// Codecs never read the environment themselves (SPEC PROV-COMMON-01).
    pub fn from_env(
        preset: Preset,
        model: impl Into<String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        Config::builder(preset, model).key_from_env(lookup).build()
    }

    /// The preset.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The key, if any.
    pub fn api_key(&self) -> Option<&Secret> {
        self.api_key.as_ref()
    }

    /// The model name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The tuning fields.
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// The dialect in force (the preset's, unless overridden).
    pub fn dialect(&self) -> &Dialect {
        &self.dialect
    }

    /// The extra headers sent with every request: [secret](HeaderValue::Secret)
    /// unless added with [`ConfigBuilder::plain_header`].
    pub fn headers(&self) -> &[(String, HeaderValue)] {
        &self.headers
    }
}

/// Builds a [`Config`]; [`ConfigBuilder::build`] validates.
///
/// The base URL and dialect follow the preset unless set explicitly, in
/// whatever order the calls come. A preset that needs a key (OpenAI, Groq,
/// …) needs it only at its own base URL: pointed at another server (a
/// local or self-hosted one, a gateway) the key is optional, since that
/// server decides — one that wants a key answers 401 without it.
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    preset: Preset,
    model: String,
    base_url: Option<String>,
    api_key: Option<Secret>,
    tuning: Tuning,
    dialect: Option<Dialect>,
    headers: Vec<(String, HeaderValue)>,
}

impl ConfigBuilder {
    /// Use another preset: its base URL, key rule and dialect, unless
    /// those are set explicitly.
    pub fn preset(mut self, preset: Preset) -> Self {
        self.preset = preset;
        self
    }

    /// The model name.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Use another base URL (a proxy, a self-hosted server); a trailing `/`
    /// is trimmed.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Set the API key. An empty key counts as none.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        let key = key.into();
        self.api_key = (!key.is_empty()).then_some(key);
        self
    }

    /// Read the key from the preset's variable through `lookup`, if the
    /// preset names one and it is set; a key set explicitly is kept.
    pub fn key_from_env(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        if self.api_key.is_none() {
            if let Some(key) = self.preset.key_env.and_then(lookup) {
                self = self.api_key(key);
            }
        }
        self
    }

    /// Set the tuning fields.
    pub fn tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// Override the preset's dialect (e.g. to turn on forced tool choice
    /// for a service known to honour it).
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = Some(dialect);
        self
    }

    /// Add a header sent with every request — a gateway's or proxy's
    /// token, say. Its value is treated as a secret: `Debug` shows
    /// `[redacted]` (SPEC ERR-06). Use [`Self::plain_header`] for values
    /// that may be shown; the API key itself goes in [`Self::api_key`].
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), HeaderValue::Secret(Secret::new(value))));
        self
    }

    /// Add a header declared non-secret (OpenRouter's `HTTP-Referer`, an
    /// organisation id): `Debug` shows its value.
    pub fn plain_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), HeaderValue::Plain(value.into().into())));
        self
    }

    /// Validate and build.
    pub fn build(self) -> Result<Config, ConfigError> {
        let preset = self.preset;
        let base_url = validate::trim_base_url(self.base_url.as_deref().unwrap_or(preset.base_url));
        if let Some(reason) = validate::base_url_problem(&base_url) {
            return Err(ConfigError::InvalidBaseUrl { url: base_url, reason });
        }
        if self.model.trim().is_empty() {
            return Err(ConfigError::MissingModel);
        }
        let at_presets_service = base_url == validate::trim_base_url(preset.base_url);
        match &self.api_key {
            None if preset.key == KeyRule::Required && at_presets_service => {
                return Err(ConfigError::MissingKey { preset: preset.name, var: preset.key_env });
            }
            Some(key) if !validate::is_credential(key.expose()) => return Err(ConfigError::InvalidKey),
            _ => {}
        }
        for (name, value) in &self.headers {
            let reason = if !validate::is_header_name(name) {
                Some("not a valid header name")
            } else if validate::CREDENTIAL_HEADERS.iter().any(|c| c.eq_ignore_ascii_case(name)) {
                Some("credentials go in api_key, which is kept secret")
            } else if !validate::is_header_value(value.expose()) {
                Some("the value holds line breaks or non-ASCII characters")
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(ConfigError::InvalidHeader { name: name.clone(), reason });
            }
        }
        self.tuning.validate()?;
        Ok(Config {
            preset,
            base_url,
            api_key: self.api_key,
            model: self.model,
            tuning: self.tuning,
            dialect: self.dialect.unwrap_or(preset.dialect),
            headers: self.headers,
        })
    }
}

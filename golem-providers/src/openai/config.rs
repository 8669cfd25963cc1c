//! OpenAI-compatible client configuration (SPEC PROV-COMMON-02,
//! PROV-OAI-01): the shared shape ([`crate::config`]) plus a [`Preset`]
//! and a dialect override.

use super::presets::{KeyRule as PresetKey, Preset};
use super::Codec;
use crate::chat_completions::{ChatExtras, Dialect};
use crate::config::{self, validate, Builder, ConfigError, Family, KeyRule, Options, Setting};

/// The model `OpenAi::from_env` uses when `OPENAI_MODEL` is unset.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";

/// The OpenAI-compatible settings: the preset and a dialect override.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenAiOptions {
    preset: Preset,
    dialect: Option<Dialect>,
}

impl Options for OpenAiOptions {
    type Codec = Codec;
    type Extras = ChatExtras;
    /// OpenAI itself; the preset decides the name, the endpoint and the
    /// key's variable. From the environment: the model from `OPENAI_MODEL`
    /// (default [`DEFAULT_OPENAI_MODEL`]), the base URL from
    /// `OPENAI_BASE_URL` when set, the key from `OPENAI_API_KEY` —
    /// required for OpenAI itself, optional once the base URL points
    /// elsewhere.
    const FAMILY: Family = Family::new("openai", Some("https://api.openai.com/v1"))
        .model_from("OPENAI_MODEL", DEFAULT_OPENAI_MODEL)
        .base_url_from("OPENAI_BASE_URL")
        .key_from("OPENAI_API_KEY", &["OPENAI_API_KEY"]);

    fn provider(&self) -> &'static str {
        self.preset.name
    }

    /// `OPENAI_MODEL` is read for OpenAI itself only.
    fn model_setting(&self) -> Setting {
        let var = (self.preset.name == Preset::openai().name).then_some("OPENAI_MODEL");
        Setting::new("a model", var)
    }

    fn default_base_url(&self) -> Result<String, ConfigError> {
        Ok(self.preset.base_url.into())
    }

    fn key_rule(&self, base_url: &str) -> KeyRule {
        let at_presets_service = base_url == validate::trim_base_url(self.preset.base_url);
        if self.preset.key == PresetKey::Required && at_presets_service {
            KeyRule::Required(Setting::new("an API key", self.preset.key_env))
        } else {
            KeyRule::Optional
        }
    }
}

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
pub type Config = config::Config<OpenAiOptions>;

/// Builds a [`Config`]; `build` validates.
///
/// The base URL and dialect follow the preset unless set explicitly, in
/// whatever order the calls come. A preset that needs a key (OpenAI, Groq,
/// …) needs it only at its own base URL: pointed at another server (a
/// local or self-hosted one, a gateway) the key is optional, since that
/// server decides — one that wants a key answers 401 without it.
pub type ConfigBuilder = Builder<OpenAiOptions>;

impl Config {
    /// Start a config for `model` on `preset`.
    pub fn builder(preset: Preset, model: impl Into<String>) -> ConfigBuilder {
        Builder::new(model, OpenAiOptions { preset, dialect: None })
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
        &self.options.preset
    }

    /// The dialect in force (the preset's, unless overridden).
    pub fn dialect(&self) -> &Dialect {
        self.options.dialect.as_ref().unwrap_or(&self.options.preset.dialect)
    }
}

/// The OpenAI-compatible setters, on the config builder and the client
/// builder alike.
impl<T> Builder<OpenAiOptions, T> {
    /// An OpenAI-compatible preset (default [`Preset::openai`]): its base
    /// URL, key rule and dialect, unless those are set explicitly.
    pub fn preset(mut self, preset: Preset) -> Self {
        self.options.preset = preset;
        self
    }

    /// Read the key from the preset's variable (`OPENAI_API_KEY`,
    /// `GROQ_API_KEY`, …) through `lookup`, e.g. `|name|
    /// std::env::var(name).ok()`, if the preset names one and it is set; a
    /// key set explicitly is kept.
    pub fn key_from_env(self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        match self.options.preset.key_env.and_then(lookup).filter(|_| self.api_key.is_none()) {
            Some(key) => self.api_key(key),
            None => self,
        }
    }

    /// Override the preset's dialect (e.g. to turn on forced tool choice
    /// for a service known to honour it, or `max_tokens` for an old Azure
    /// api-version).
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.options.dialect = Some(dialect);
        self
    }
}

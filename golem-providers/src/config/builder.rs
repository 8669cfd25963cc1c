//! The builder every family's config (and client) is made with: the shared
//! settings set here once, the family's own in its module, all checked by
//! one `build`.

use super::validate;
use super::{Config, ConfigError, KeyRule, Options};
use crate::http::HeaderValue;
use crate::secret::Secret;
use crate::tuning::Tuning;

/// Builds a [`Config`] of family `O` — or, with `T` the client's transport
/// settings, a client (`Anthropic::builder()`, …). The shared setters are
/// here; each family's module adds its own (`thinking`, `preset`,
/// `region`, …). Nothing is checked until `build`.
///
/// ```
/// use golem_providers::gemini::{Config, Tuning};
///
/// let config = Config::builder("gemini-2.5-flash")
///     .api_key("AIza-test")
///     .base_url("https://gateway.example/gemini/")
///     .header("x-gateway-token", "gt-secret")
///     .tuning(Tuning::new().temperature(0.2))
///     .build()
///     .unwrap();
/// assert_eq!(config.base_url(), "https://gateway.example/gemini");
/// assert!(!format!("{config:?}").contains("gt-secret"));
/// ```
/// `Debug` shows the settings; keys and secret headers redact themselves.
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder<O: Options, T = ()> {
    pub(crate) model: String,
    pub(crate) api_key: Option<Secret>,
    pub(crate) base_url: Option<String>,
    pub(crate) headers: Vec<(String, HeaderValue)>,
    pub(crate) tuning: Tuning<O::Extras>,
    pub(crate) options: O,
    /// What else the builder makes its product with (a client's
    /// transports); nothing for a config.
    #[cfg_attr(not(any(feature = "blocking", feature = "async")), allow(dead_code))]
    pub(crate) rest: T,
}

impl<O: Options> Builder<O> {
    /// A builder for a config of `model` with the family's `options`.
    pub(crate) fn new(model: impl Into<String>, options: O) -> Self {
        Builder {
            model: model.into(),
            api_key: None,
            base_url: None,
            headers: Vec::new(),
            tuning: Tuning::default(),
            options,
            rest: (),
        }
    }

    /// Validate and build.
    pub fn build(self) -> Result<Config<O>, ConfigError> {
        let options = self.options;
        let provider = options.provider();
        let model = self.model.trim().to_string();
        if model.is_empty() {
            let setting = options.model_setting();
            return Err(ConfigError::Missing { provider, field: setting.what, var: setting.var });
        }
        if let Some(reason) = options.model_problem(&model) {
            return Err(ConfigError::InvalidModel { model, reason });
        }
        let base_url = match self.base_url {
            Some(url) => validate::trim_base_url(&url),
            None => validate::trim_base_url(&options.default_base_url()?),
        };
        if let Some(reason) = validate::base_url_problem(&base_url) {
            return Err(ConfigError::InvalidBaseUrl { url: base_url, reason });
        }
        options.check_own()?;
        match (options.key_rule(&base_url), &self.api_key) {
            (KeyRule::Required(setting), None) => {
                return Err(ConfigError::Missing { provider, field: setting.what, var: setting.var })
            }
            (KeyRule::NotTaken { hint }, Some(_)) => {
                return Err(ConfigError::NotTaken { provider, setting: "API key", hint })
            }
            (_, Some(key)) if !validate::is_credential(key.expose()) => return Err(ConfigError::InvalidKey),
            _ => {}
        }
        for (name, value) in &self.headers {
            if let Some(reason) = validate::header_problem(name, value.expose()) {
                return Err(ConfigError::InvalidHeader { name: name.clone(), reason });
            }
        }
        self.tuning.validate()?;
        let config =
            Config { model, api_key: self.api_key, base_url, headers: self.headers, tuning: self.tuning, options };
        O::check(&config)?;
        Ok(config)
    }
}

impl<O: Options, T> Builder<O, T> {
    /// The same settings, for another product.
    #[cfg(any(feature = "blocking", feature = "async"))]
    pub(crate) fn with_rest<U>(self, rest: U) -> (Builder<O, U>, T) {
        let Builder { model, api_key, base_url, headers, tuning, options, rest: old } = self;
        (Builder { model, api_key, base_url, headers, tuning, options, rest }, old)
    }

    /// The model (required): a name, an id, a resource name — whatever the
    /// provider calls it.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// The API key, held as a [`Secret`] so it never reaches a log line or
    /// an error; an empty key counts as none. Required at a provider's own
    /// endpoint; elsewhere the server decides.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        let key = key.into();
        self.api_key = (!key.is_empty()).then_some(key);
        self.options.key_set();
        self
    }

    /// Another server than the provider's own (a gateway, a proxy, a
    /// compatible or stand-in server); a trailing `/` is trimmed.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
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

    /// The sampling and length settings, checked against the family's
    /// ranges at build.
    pub fn tuning(mut self, tuning: Tuning<O::Extras>) -> Self {
        self.tuning = tuning;
        self
    }
}

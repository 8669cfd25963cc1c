//! One shape for every provider's configuration (SPEC PROV-COMMON-01/02).
//!
//! A [`Config`] holds what every family has — a model, an API key, a base
//! URL, extra headers and [`Tuning`] — and the family's own settings
//! (thinking, a preset, a region, …) in its [`Options`]. A [`Builder`]
//! takes them in any order and checks them together once, at `build`, so a
//! bad value fails where it was written rather than on the first request;
//! [`ConfigError`] says why, for every family alike.
//!
//! The same builder, with transport settings beside, makes a client
//! (`Anthropic::builder()`, `OpenAi::builder()`, …; see
//! [`crate::client`]): a family's setters are written once and serve both.
//!
//! A family plugs in by implementing [`Options`] for its own settings
//! (what its model setting is called, its default base URL, when it needs
//! a key, its own checks, `from_env`) and [`Configured`] for its codec.
//!
//! ```
//! use golem_providers::anthropic::{Config, Thinking, Tuning};
//!
//! let config = Config::builder("claude-sonnet-4-5")
//!     .api_key("sk-ant-test-key")
//!     .plain_header("x-team", "search")
//!     .tuning(Tuning::new().max_tokens(4096))
//!     .thinking(Thinking::Enabled { budget_tokens: 2048 })
//!     .build()
//!     .unwrap();
//! assert_eq!((config.model(), config.base_url()), ("claude-sonnet-4-5", "https://api.anthropic.com"));
//! assert_eq!(config.headers().len(), 1);
//! assert!(!format!("{config:?}").contains("sk-ant-test-key"));
//! ```

mod builder;
mod error;
mod reasoning;
pub mod validate;

pub use builder::Builder;
pub use error::ConfigError;
pub use reasoning::{Reasoning, Reasons, Thinking};

use crate::codec::HttpCodec;
use crate::http::HeaderValue;
use crate::secret::Secret;
use crate::tuning::{Extras, Tuning};
use std::fmt;

/// A setting as errors name it, and the environment variable `from_env`
/// reads it from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// What it is, as in "needs {what}": `a model`, `a deployment`, …
    pub what: &'static str,
    /// The variable it is read from, if any.
    pub var: Option<&'static str>,
}

impl Setting {
    /// A setting called `what`, read from `var`.
    pub const fn new(what: &'static str, var: Option<&'static str>) -> Self {
        Setting { what, var }
    }
}

/// Whether a config at some base URL needs an API key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyRule {
    /// Required (a provider's own endpoint: it answers 401 without one).
    Required(Setting),
    /// Optional: another server (a gateway adding the key, a local or
    /// compatible server) decides.
    Optional,
    /// Not taken: the family authenticates otherwise (Bedrock signs with
    /// AWS credentials); `hint` says how.
    NotTaken {
        /// What to use instead.
        hint: &'static str,
    },
}

/// What a family's config falls back on, as data: its name, its model
/// setting, its endpoint, when it needs a key, and the environment
/// variables `from_env` reads. The [`Options`] methods read it unless a
/// family overrides them (a preset, a region decide).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Family {
    /// The provider, as errors name it.
    pub provider: &'static str,
    /// What the model setting is called, and its variable.
    pub model: Setting,
    /// The model `from_env` uses when its variable is unset.
    pub default_model: Option<&'static str>,
    /// The provider's own endpoint, the base URL by default; `None` where
    /// there is none (then `endpoint` says what is missing).
    pub base_url: Option<&'static str>,
    /// What the endpoint setting is called, and the variable `from_env`
    /// reads another base URL from.
    pub endpoint: Setting,
    /// The key at the provider's own endpoint (elsewhere the server
    /// decides), or at every endpoint when there is no default one; `var`
    /// as errors show it.
    pub key: Setting,
    /// The variables `from_env` reads the key from, first set first.
    pub key_vars: &'static [&'static str],
}

impl Family {
    /// A family called `provider` with its own endpoint at `base_url`
    /// (where a key is required), or none; nothing read from the
    /// environment yet.
    pub const fn new(provider: &'static str, base_url: Option<&'static str>) -> Self {
        Family {
            provider,
            model: Setting::new("a model", None),
            default_model: None,
            base_url,
            endpoint: Setting::new("a base URL", None),
            key: Setting::new("an API key", None),
            key_vars: &[],
        }
    }

    /// Builder-style: the model comes from `var`, else is `default`.
    pub const fn model_from(mut self, var: &'static str, default: &'static str) -> Self {
        self.model.var = Some(var);
        self.default_model = Some(default);
        self
    }

    /// Builder-style: the model setting is called `what`, read from `var`.
    pub const fn model_named(mut self, what: &'static str, var: &'static str) -> Self {
        self.model = Setting::new(what, Some(var));
        self
    }

    /// Builder-style: the endpoint setting is called `what`, read from
    /// `var` (for a family without a default one).
    pub const fn endpoint_named(mut self, what: &'static str, var: &'static str) -> Self {
        self.endpoint = Setting::new(what, Some(var));
        self
    }

    /// Builder-style: the key setting is called `what` in errors.
    pub const fn key_named(mut self, what: &'static str) -> Self {
        self.key.what = what;
        self
    }

    /// Builder-style: another base URL comes from `var`.
    pub const fn base_url_from(mut self, var: &'static str) -> Self {
        self.endpoint.var = Some(var);
        self
    }

    /// Builder-style: the key comes from the first of `vars` that is set
    /// (`shown` names them in errors).
    pub const fn key_from(mut self, shown: &'static str, vars: &'static [&'static str]) -> Self {
        self.key.var = Some(shown);
        self.key_vars = vars;
        self
    }
}

/// A builder with what the environment holds for family `O` (see
/// [`Family`]), read through `lookup`; empty values count as unset.
pub fn env_builder<O: Options>(lookup: impl Fn(&str) -> Option<String>) -> Builder<O> {
    let lookup = non_empty(lookup);
    let family = O::FAMILY;
    let model = family.model.var.and_then(&lookup).or(family.default_model.map(String::from));
    let key = family.key_vars.iter().find_map(|var| lookup(var)).unwrap_or_default();
    let builder = Builder::new(model.unwrap_or_default(), O::default()).api_key(key.trim());
    match family.endpoint.var.and_then(&lookup) {
        Some(url) => builder.base_url(url),
        None => builder,
    }
}

/// One family's own part of a config, and the rules of its shared part.
pub trait Options: Clone + fmt::Debug + Default + Send + Sync + 'static {
    /// The codec a valid config of this family makes.
    type Codec: Configured<Options = Self>;
    /// The family's own tuning fields and the ranges its API documents.
    type Extras: Extras;

    /// The family's defaults and names.
    const FAMILY: Family;

    /// The provider, as errors name it (`Anthropic`, `groq`, …).
    fn provider(&self) -> &'static str {
        Self::FAMILY.provider
    }

    /// What the model setting is called, and its variable.
    fn model_setting(&self) -> Setting {
        Self::FAMILY.model
    }

    /// Why `model` (trimmed, not empty) cannot be sent; `None` when it can.
    /// By default only control characters are refused.
    fn model_problem(&self, model: &str) -> Option<&'static str> {
        model.chars().any(char::is_control).then_some("control characters are not allowed")
    }

    /// The base URL when none is set, or why there is none (Azure has no
    /// default endpoint; Bedrock's needs a valid region).
    fn default_base_url(&self) -> Result<String, ConfigError> {
        let Family { provider, base_url, endpoint, .. } = Self::FAMILY;
        base_url.map(String::from).ok_or(ConfigError::Missing { provider, field: endpoint.what, var: endpoint.var })
    }

    /// Whether requests to `base_url` need an API key: at the family's own
    /// endpoint, or anywhere when it has none.
    fn key_rule(&self, base_url: &str) -> KeyRule {
        match Self::FAMILY.base_url {
            Some(own) if own != base_url => KeyRule::Optional,
            _ => KeyRule::Required(Self::FAMILY.key),
        }
    }

    /// The family's checks of its own settings alone, made once the model
    /// and base URL passed and before the key is looked at (a missing
    /// api-version is reported before a missing key).
    fn check_own(&self) -> Result<(), ConfigError> {
        Ok(())
    }

    /// The family's checks across its settings and the shared ones, on the
    /// config as built (thinking against the tuning, say).
    fn check(config: &Config<Self>) -> Result<(), ConfigError> {
        let _ = config;
        Ok(())
    }

    /// A config from variables read through `lookup` (codecs never read
    /// the environment themselves, SPEC PROV-COMMON-01); empty values
    /// count as unset. By default the variables [`Self::FAMILY`] names.
    fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config<Self>, ConfigError> {
        env_builder(lookup).build()
    }

    /// Called when an API key is set, for a family whose own settings hold
    /// another credential the key replaces (Azure's bearer token).
    fn key_set(&mut self) {}
}

/// A codec made from, and holding, one family's [`Config`].
pub trait Configured: HttpCodec + Sized {
    /// The family's own settings.
    type Options: Options<Codec = Self>;

    /// The codec for a validated `config`.
    fn with_config(config: Config<Self::Options>) -> Self;

    /// The configuration.
    fn config(&self) -> &Config<Self::Options>;
}

/// Implements [`Configured`] for a family's codec `$codec`, which `new`
/// makes from a config and which holds it in its `config` field; with
/// `and new`, writes that `new` and a `config` accessor too (for a codec
/// that holds nothing else).
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "bedrock", feature = "responses"))]
macro_rules! configured {
    ($codec:ident, $options:ty) => {
        impl $crate::config::Configured for $codec {
            type Options = $options;

            fn with_config(config: $crate::config::Config<$options>) -> Self {
                $codec::new(config)
            }

            fn config(&self) -> &$crate::config::Config<$options> {
                &self.config
            }
        }
    };
    ($codec:ident, $options:ty, and new) => {
        impl $codec {
            /// A codec for `config`.
            pub fn new(config: $crate::config::Config<$options>) -> Self {
                $codec { config }
            }

            /// The configuration.
            pub fn config(&self) -> &$crate::config::Config<$options> {
                &self.config
            }
        }

        $crate::config::configured!($codec, $options);
    };
}
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "bedrock", feature = "responses"))]
pub(crate) use configured;

/// Implements [`Reasons`] for a family's options `$options`, which hold
/// their [`Reasoning`] in a `reasoning` field.
#[cfg(any(feature = "anthropic", feature = "bedrock"))]
macro_rules! reasons {
    ($options:ty) => {
        impl $crate::config::Reasons for $options {
            fn reasoning(&self) -> &$crate::config::Reasoning {
                &self.reasoning
            }

            fn reasoning_mut(&mut self) -> &mut $crate::config::Reasoning {
                &mut self.reasoning
            }
        }
    };
}
#[cfg(any(feature = "anthropic", feature = "bedrock"))]
pub(crate) use reasons;

/// A validated configuration of family `O`: the shared fields, and the
/// family's own settings (read through the accessors its module adds).
#[derive(Clone, Debug, PartialEq)]
pub struct Config<O: Options> {
    pub(crate) model: String,
    pub(crate) api_key: Option<Secret>,
    pub(crate) base_url: String,
    pub(crate) headers: Vec<(String, HeaderValue)>,
    pub(crate) tuning: Tuning<O::Extras>,
    pub(crate) options: O,
}

impl<O: Options> Config<O> {
    /// The model name (Azure's deployment), trimmed.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The key, if any.
    pub fn api_key(&self) -> Option<&Secret> {
        self.api_key.as_ref()
    }

    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The extra headers sent with every request: [secret](HeaderValue::Secret)
    /// unless added with [`Builder::plain_header`].
    pub fn headers(&self) -> &[(String, HeaderValue)] {
        &self.headers
    }

    /// The sampling and length settings.
    pub fn tuning(&self) -> &Tuning<O::Extras> {
        &self.tuning
    }
}

/// The process environment as a lookup; empty values count as unset.
#[cfg(any(feature = "blocking", feature = "async"))]
pub(crate) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

/// `lookup` with empty (or blank) values read as unset.
pub(crate) fn non_empty(lookup: impl Fn(&str) -> Option<String>) -> impl Fn(&str) -> Option<String> {
    move |name| lookup(name).filter(|value| !value.trim().is_empty())
}

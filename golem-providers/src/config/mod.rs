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

/// One family's own part of a config, and the rules of its shared part.
pub trait Options: Clone + fmt::Debug + Default + Send + Sync + 'static {
    /// The codec a valid config of this family makes.
    type Codec: Configured<Options = Self>;
    /// The family's own tuning fields and the ranges its API documents.
    type Extras: Extras;

    /// The provider, as errors name it (`Anthropic`, `groq`, …).
    fn provider(&self) -> &'static str;

    /// What the model setting is called, and where `from_env` reads it.
    fn model_setting(&self) -> Setting {
        Setting::new("a model", None)
    }

    /// Why `model` (trimmed, not empty) cannot be sent; `None` when it can.
    /// By default only control characters are refused.
    fn model_problem(&self, model: &str) -> Option<&'static str> {
        model.chars().any(char::is_control).then_some("control characters are not allowed")
    }

    /// The base URL when none is set, or why there is none (Azure has no
    /// default endpoint; Bedrock's needs a valid region).
    fn default_base_url(&self) -> Result<String, ConfigError>;

    /// Whether requests to `base_url` need an API key.
    fn key_rule(&self, base_url: &str) -> KeyRule;

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
    /// count as unset.
    fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Config<Self>, ConfigError>;

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
/// makes from a config and which holds it in its `config` field.
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
}
pub(crate) use configured;

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

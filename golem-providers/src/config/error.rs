//! Why a config was refused (SPEC PROV-COMMON-02, PROV-AZ-01, THINK-02):
//! one error type for every family.

use crate::tuning::TuningError;

/// A config that cannot be built. Never holds a key or credential.
///
/// ```
/// use golem_providers::{Anthropic, ConfigError};
///
/// let error = Anthropic::builder().model("claude-sonnet-4-5").build().unwrap_err();
/// assert_eq!(error, ConfigError::Missing { provider: "Anthropic", field: "an API key", var: Some("ANTHROPIC_API_KEY") });
/// assert_eq!(error.to_string(), "Anthropic needs an API key (set ANTHROPIC_API_KEY)");
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required setting is empty: a model, a key, a region, an endpoint, …
    #[error("{provider} needs {field}{}", var.map(|v| format!(" (set {v})")).unwrap_or_default())]
    Missing {
        /// The provider (or the OpenAI-compatible preset) that needs it.
        provider: &'static str,
        /// The setting.
        field: &'static str,
        /// The environment variable `from_env` reads it from, if any.
        var: Option<&'static str>,
    },
    /// The model name holds characters its place in the request cannot
    /// carry.
    #[error("invalid model name {model:?}: {reason}")]
    InvalidModel {
        /// The name given.
        model: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The base URL (Azure's endpoint) is not an absolute http(s) URL
    /// without query or fragment.
    #[error("invalid base URL {url:?}: {reason}")]
    InvalidBaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The key, token or credentials hold characters an HTTP header cannot
    /// carry (a line break read with an environment variable, say).
    #[error("the API key or credentials hold characters that cannot go in an HTTP header")]
    InvalidKey,
    /// An extra header that is malformed or reserved for credentials.
    #[error("invalid extra header {name:?}: {reason}")]
    InvalidHeader {
        /// The header name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A tuning value the family's API would refuse.
    #[error(transparent)]
    InvalidTuning(#[from] TuningError),
    /// A thinking or effort setting the API would refuse (a budget out of
    /// range, a budget and a level together, an empty effort, thinking
    /// with sampling settings it excludes).
    #[error("invalid thinking setting: {reason}")]
    InvalidThinking {
        /// What is wrong.
        reason: String,
    },
    /// The region is not a region name (lowercase letters, digits, `-`).
    #[error("invalid AWS region {region:?}")]
    InvalidRegion {
        /// The region given.
        region: String,
    },
    /// A beta name that cannot go in the `anthropic-beta` header.
    #[error("invalid beta name {name:?}: only letters, digits, '-', '_' and '.' are allowed")]
    InvalidBeta {
        /// The name given.
        name: String,
    },
    /// A setting this family does not take (an API key for Bedrock, which
    /// signs with AWS credentials).
    #[error("{provider} takes no {setting}: {hint}")]
    NotTaken {
        /// The provider.
        provider: &'static str,
        /// The setting.
        setting: &'static str,
        /// What to use instead.
        hint: &'static str,
    },
}

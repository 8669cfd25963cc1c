//! Why an OpenAI-compatible config was refused (SPEC PROV-COMMON-02).

use crate::chat_completions::TuningError;

/// A config that cannot be built. Never holds the key itself.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No model name.
    #[error("a model name is required")]
    MissingModel,
    /// The preset needs a key and none was given.
    #[error("{preset} needs an API key{}", var.map(|v| format!(" (set {v})")).unwrap_or_default())]
    MissingKey {
        /// The preset's name.
        preset: &'static str,
        /// The variable `from_env` reads it from.
        var: Option<&'static str>,
    },
    /// The key holds characters an HTTP header cannot carry.
    #[error("the API key holds characters that cannot go in an HTTP header")]
    InvalidKey,
    /// The base URL is not an absolute http(s) URL without query or fragment.
    #[error("invalid base URL {url:?}: {reason}")]
    InvalidBaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An extra header that is malformed or reserved for credentials.
    #[error("invalid extra header {name:?}: {reason}")]
    InvalidHeader {
        /// The header name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A tuning value out of range.
    #[error(transparent)]
    Tuning(#[from] TuningError),
}

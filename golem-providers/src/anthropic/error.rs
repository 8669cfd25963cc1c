//! Why an Anthropic config was refused (SPEC PROV-COMMON-02, THINK-02).

/// A config that cannot be built. Never holds the key itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required field is empty.
    #[error("Anthropic needs {field} (set {var})")]
    Missing {
        /// The field.
        field: &'static str,
        /// The variable `from_env` reads it from.
        var: &'static str,
    },
    /// The model name is empty or holds characters a JSON string field
    /// should not carry (control characters).
    #[error("invalid model name {model:?}: {reason}")]
    InvalidModel {
        /// The name given.
        model: String,
        /// What is wrong with it.
        reason: &'static str,
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
    /// A sampling setting out of range.
    #[error("invalid generation setting: {reason}")]
    InvalidTuning {
        /// What is wrong.
        reason: String,
    },
    /// A thinking setting the API would refuse (a budget below 1024 or not
    /// below `max_tokens`, an empty effort).
    #[error("invalid thinking setting: {reason}")]
    InvalidThinking {
        /// What is wrong.
        reason: String,
    },
    /// A beta name that cannot go in the `anthropic-beta` header.
    #[error("invalid beta name {name:?}: only letters, digits, '-', '_' and '.' are allowed")]
    InvalidBeta {
        /// The name given.
        name: String,
    },
}

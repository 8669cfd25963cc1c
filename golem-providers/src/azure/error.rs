//! Why an Azure OpenAI config was refused (SPEC PROV-AZ-01, PROV-COMMON-02).

use crate::chat_completions::TuningError;

/// A config that cannot be built. Never holds the credential itself.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required field is empty: endpoint, deployment, api-version or
    /// credential — Azure has no defaults for any of them.
    #[error("Azure OpenAI needs {field} (set {var})")]
    Missing {
        /// The field.
        field: &'static str,
        /// The variable `from_env` reads it from.
        var: &'static str,
    },
    /// The endpoint is not an absolute http(s) URL without query or fragment.
    #[error("invalid Azure endpoint {url:?}: {reason}")]
    InvalidEndpoint {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The credential holds characters an HTTP header cannot carry.
    #[error("the Azure credential holds characters that cannot go in an HTTP header")]
    InvalidCredential,
    /// A tuning value out of range.
    #[error(transparent)]
    Tuning(#[from] TuningError),
}

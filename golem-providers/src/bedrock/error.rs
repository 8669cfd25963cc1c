//! Why a Bedrock config was refused (SPEC PROV-COMMON-02, THINK-02).

/// A config that cannot be built. Never holds a credential.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required field is empty.
    #[error("Bedrock needs {field} (set {var})")]
    Missing {
        /// The field.
        field: &'static str,
        /// The variable `from_env` reads it from.
        var: &'static str,
    },
    /// The region is not a region name (lowercase letters, digits, `-`).
    #[error("invalid AWS region {region:?}")]
    InvalidRegion {
        /// The region given.
        region: String,
    },
    /// The base URL is not an absolute http(s) URL without query or fragment.
    #[error("invalid base URL {url:?}: {reason}")]
    InvalidBaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A credential holds characters an HTTP header cannot carry (a line
    /// break read with an environment variable, say), or is empty.
    #[error("the AWS credentials hold characters that cannot go in an HTTP header")]
    InvalidCredentials,
    /// An inference setting out of range.
    #[error("invalid inference setting: {reason}")]
    InvalidTuning {
        /// What is wrong.
        reason: String,
    },
    /// A thinking setting the model would refuse.
    #[error("invalid thinking setting: {reason}")]
    InvalidThinking {
        /// What is wrong.
        reason: String,
    },
}

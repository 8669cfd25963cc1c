//! Why a tuning value was refused.

/// A tuning value the family's API would refuse, found when the config is
/// built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TuningError {
    /// A number outside its range (or not finite).
    #[error("{field} must be within [{min}, {max}], got {value}")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The value given.
        value: f64,
        /// The smallest value accepted.
        min: f64,
        /// The largest value accepted.
        max: f64,
    },
    /// A count of zero where at least one is needed (`max_tokens`, `top_k`).
    #[error("{field} must be at least 1")]
    Zero {
        /// The field.
        field: &'static str,
    },
    /// A stop sequence that is empty (or, where the API says so, blank).
    #[error("stop sequences must hold something the model could write, got {value:?}")]
    EmptyStop {
        /// The sequence given.
        value: String,
    },
    /// A text field that is empty or has characters a service would reject.
    #[error("{field} must be non-empty printable text, got {value:?}")]
    InvalidText {
        /// The field.
        field: &'static str,
        /// The value given.
        value: String,
    },
    /// A server tool version set for a tool the family has no server
    /// tool of that name.
    #[error("{provider} has no server tool named {tool:?}")]
    UnknownServerTool {
        /// The tool name given.
        tool: String,
        /// The provider, as its errors name it.
        provider: &'static str,
    },
    /// A server tool version that is not one of that tool's: it must be the
    /// tool's type prefix (`web_search_`) followed by letters, digits or
    /// `_` (`web_search_20260209`).
    #[error(
        "{version:?} is not a version of the {tool} server tool (expected {tool}_ and a date, as {tool}_20260209)"
    )]
    ServerToolVersion {
        /// The tool.
        tool: String,
        /// The version given.
        version: String,
    },
    /// A field the family's API does not take.
    #[error("{provider} takes no {field}")]
    NotTaken {
        /// The field.
        field: &'static str,
        /// The provider, as its errors name it.
        provider: &'static str,
    },
}

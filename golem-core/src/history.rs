//! History repair, validation and trimming (SPEC HIST).
//!
//! Providers require every tool call to be answered by exactly one result
//! before the next assistant turn. Histories from crashed, cancelled, paused
//! or hand-edited runs break that; these pure functions restore it.

use crate::message::{Message, PartError};

/// Why a history was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// Parts on a message whose role cannot carry them.
    #[error("message {index} ({role}) carries parts; only user and tool messages may")]
    PartsNotAllowed {
        /// Message index.
        index: usize,
        /// Its role.
        role: crate::message::Role,
    },
    /// A malformed part.
    #[error("message {index} part {part} is invalid: {error}")]
    InvalidPart {
        /// Message index.
        index: usize,
        /// Part index.
        part: usize,
        /// What is wrong.
        error: PartError,
    },
    /// Thinking blocks on a non-assistant message.
    #[error("message {index} ({role}) carries thinking; only assistant messages may")]
    ThinkingNotAllowed {
        /// Message index.
        index: usize,
        /// Its role.
        role: crate::message::Role,
    },
    /// A malformed thinking block.
    #[error("message {index} thinking block {block} is invalid: exactly one of text/redacted, no signature on redacted data")]
    InvalidThinking {
        /// Message index.
        index: usize,
        /// Block index.
        block: usize,
    },
    /// `trim_history` with a budget below 1.
    #[error("history trim budget must be at least 1, got {0}")]
    InvalidTrimBudget(usize),
    /// Trimming left nothing that can open a request.
    #[error("history trimming left no message that can open a request")]
    NothingLeft,
}

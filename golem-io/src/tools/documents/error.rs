//! Why an extraction produced no Markdown: [`ExtractError`] for callers
//! (its `Display` is what the model reads), and the path-free `Fault` the
//! extractors raise, which the front door names the file in.

use super::texts;
use crate::tools::confine::Refusal;
use crate::ToolError;
use std::fmt;

/// A cap that a document reached (each configurable on the
/// [builder](super::DocumentsBuilder)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// The file is larger than this many bytes.
    FileBytes(u64),
    /// The office file's zip package holds more than this many entries.
    Entries(usize),
    /// Reading the document would inflate more than this many bytes.
    InflatedBytes(u64),
    /// The office file's XML nests elements deeper than this.
    XmlDepth(usize),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::FileBytes(n) => write!(f, "it is larger than {n} bytes"),
            Limit::Entries(n) => write!(f, "its zip package holds more than {n} entries"),
            Limit::InflatedBytes(n) => write!(f, "reading it would decompress more than {n} bytes"),
            Limit::XmlDepth(n) => write!(f, "its XML nests elements more than {n} deep"),
        }
    }
}

/// Why an extraction produced no Markdown. Its `Display` is the text the
/// model reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractError {
    /// The model should fix its call: a path outside the root or missing,
    /// a bad page list, an unknown sheet, the other tool's kind of file.
    #[error("{0}")]
    Rejected(String),
    /// The document is password-protected.
    #[error("{}", texts::encrypted(path))]
    Encrypted {
        /// The path as the model gave it.
        path: String,
    },
    /// The document reached a cap before it was read.
    #[error("{}", texts::limit(path, limit))]
    Limit {
        /// The path as the model gave it.
        path: String,
        /// The cap reached.
        limit: Limit,
    },
    /// The file is damaged or not what it claims to be.
    #[error("{}", texts::malformed(path, reason))]
    Malformed {
        /// The path as the model gave it.
        path: String,
        /// What the reader found wrong (bounded).
        reason: String,
    },
    /// The file is none of PDF, DOCX, XLSX or PPTX.
    #[error("{}", texts::unsupported(path, what))]
    Unsupported {
        /// The path as the model gave it.
        path: String,
        /// What the file looks like instead.
        what: String,
    },
    /// The file changed while it was opened, or could not be read.
    #[error("{0}")]
    Failed(String),
}

impl ExtractError {
    /// True for a correctable rejection.
    pub fn is_rejection(&self) -> bool {
        matches!(self, ExtractError::Rejected(_))
    }

    /// The tool's verdict: a rejection stays correctable, everything else
    /// is a failed result.
    pub fn into_tool_error(self) -> ToolError {
        match self {
            ExtractError::Rejected(reason) => ToolError::Reject(reason),
            other => ToolError::Failed(other.to_string()),
        }
    }

    pub(super) fn refused(refusal: Refusal) -> ExtractError {
        match refusal {
            Refusal::Rejected(text) => ExtractError::Rejected(text),
            Refusal::Failed(text) => ExtractError::Failed(text),
        }
    }
}

/// What went wrong inside an extractor, before the file is named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Password-protected.
    Encrypted,
    /// A cap reached.
    Limit(Limit),
    /// Damaged or not the format it claims.
    Malformed(String),
    /// A correctable mistake in the call (the text names it).
    Rejected(String),
    /// Not a document these tools read (the text says what it is).
    Unsupported(String),
}

impl Fault {
    /// A malformed document, its reason bounded.
    pub(crate) fn malformed(reason: impl fmt::Display) -> Fault {
        Fault::Malformed(crate::tools::clip::prefix(&reason.to_string(), texts::REASON_BYTES).to_string())
    }

    pub(crate) fn named(self, path: &str) -> ExtractError {
        let path = path.to_string();
        match self {
            Fault::Encrypted => ExtractError::Encrypted { path },
            Fault::Limit(limit) => ExtractError::Limit { path, limit },
            Fault::Malformed(reason) => ExtractError::Malformed { path, reason },
            Fault::Rejected(text) => ExtractError::Rejected(text),
            Fault::Unsupported(what) => ExtractError::Unsupported { path, what },
        }
    }
}

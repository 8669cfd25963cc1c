//! How much one extraction may read, inflate, nest and return, and the
//! running count of inflated bytes that a call draws from.

use super::error::{Fault, Limit};

/// The most bytes of a document file read, unless configured.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 32 << 20;

/// The most characters of Markdown returned, unless configured.
pub const DEFAULT_MAX_OUTPUT_CHARS: usize = 200_000;

/// The most bytes one call inflates (zip entries, PDF streams), unless
/// configured.
pub const DEFAULT_MAX_INFLATED_BYTES: u64 = 256 << 20;

/// The most entries an office file's zip package may hold, unless
/// configured.
pub const DEFAULT_MAX_ENTRIES: usize = 10_000;

/// The deepest element nesting an office file's XML may have, unless
/// configured.
pub const DEFAULT_MAX_XML_DEPTH: usize = 256;

/// The caps of one extraction, checked before the work they bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max_file_bytes: u64,
    pub(crate) max_output_chars: usize,
    pub(crate) max_inflated_bytes: u64,
    pub(crate) max_entries: usize,
    pub(crate) max_xml_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_output_chars: DEFAULT_MAX_OUTPUT_CHARS,
            max_inflated_bytes: DEFAULT_MAX_INFLATED_BYTES,
            max_entries: DEFAULT_MAX_ENTRIES,
            max_xml_depth: DEFAULT_MAX_XML_DEPTH,
        }
    }
}

/// The inflated bytes a call has left: every decompressed byte is drawn
/// from it after it is counted, whatever its container declared.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    left: u64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Budget {
        Budget { limit, left: limit }
    }

    /// What is left.
    pub(crate) fn left(&self) -> u64 {
        self.left
    }

    /// Draw `bytes`, or fail once the budget is spent.
    pub(crate) fn take(&mut self, bytes: u64) -> Result<(), Fault> {
        self.left = self.left.checked_sub(bytes).ok_or(Fault::Limit(Limit::InflatedBytes(self.limit)))?;
        Ok(())
    }

    /// The error for reaching the budget.
    pub(crate) fn exceeded(&self) -> Fault {
        Fault::Limit(Limit::InflatedBytes(self.limit))
    }
}

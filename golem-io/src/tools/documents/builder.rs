//! Configuring [`Documents`]: the root, the caps, the OCR hook; checked
//! when built.

use super::limits::Limits;
use super::{Documents, Inner, Ocr};
use crate::tools::confine::{Root, RootError};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Configuration for [`Documents`].
#[derive(Clone)]
pub struct DocumentsBuilder {
    root: PathBuf,
    limits: Limits,
    ocr: Option<Arc<dyn Ocr>>,
}

impl std::fmt::Debug for DocumentsBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocumentsBuilder")
            .field("root", &self.root)
            .field("limits", &self.limits)
            .field("ocr", &self.ocr.is_some())
            .finish()
    }
}

impl DocumentsBuilder {
    pub(super) fn new(root: PathBuf) -> DocumentsBuilder {
        DocumentsBuilder { root, limits: Limits::default(), ocr: None }
    }

    /// The largest file read, in bytes (default
    /// [`DEFAULT_MAX_FILE_BYTES`](super::DEFAULT_MAX_FILE_BYTES)); a larger
    /// one is refused before it is opened.
    pub fn max_file_bytes(mut self, bytes: u64) -> Self {
        self.limits.max_file_bytes = bytes;
        self
    }

    /// The most characters of Markdown one call returns (default
    /// [`DEFAULT_MAX_OUTPUT_CHARS`](super::DEFAULT_MAX_OUTPUT_CHARS)); past
    /// it the output is cut with a marker naming the arguments that read
    /// on.
    pub fn max_output_chars(mut self, chars: usize) -> Self {
        self.limits.max_output_chars = chars;
        self
    }

    /// The most bytes one call inflates from zip entries and PDF streams
    /// (default [`DEFAULT_MAX_INFLATED_BYTES`](super::DEFAULT_MAX_INFLATED_BYTES)):
    /// the cap a decompression bomb meets.
    pub fn max_inflated_bytes(mut self, bytes: u64) -> Self {
        self.limits.max_inflated_bytes = bytes;
        self
    }

    /// The most entries an office file's zip package may hold (default
    /// [`DEFAULT_MAX_ENTRIES`](super::DEFAULT_MAX_ENTRIES)).
    pub fn max_entries(mut self, entries: usize) -> Self {
        self.limits.max_entries = entries;
        self
    }

    /// The deepest element nesting an office file's XML may have (default
    /// [`DEFAULT_MAX_XML_DEPTH`](super::DEFAULT_MAX_XML_DEPTH)).
    pub fn max_xml_depth(mut self, depth: usize) -> Self {
        self.limits.max_xml_depth = depth;
        self
    }

    /// Recognise the text of PDF pages that have none (scans) with `ocr`.
    pub fn ocr(mut self, ocr: impl Ocr) -> Self {
        self.ocr = Some(Arc::new(ocr));
        self
    }

    /// Check the root (an existing directory, stored canonical) and the
    /// caps, and build.
    pub fn build(self) -> Result<Documents, BuildError> {
        let limits = self.limits;
        if limits.max_file_bytes == 0
            || limits.max_output_chars == 0
            || limits.max_inflated_bytes == 0
            || limits.max_entries == 0
            || limits.max_xml_depth == 0
        {
            return Err(BuildError::ZeroLimit);
        }
        let root = Root::new(&self.root).map_err(|e| match e {
            RootError::Resolve(source) => BuildError::Root { root: self.root.clone(), source: Arc::new(source) },
            RootError::NotADirectory => BuildError::NotADirectory(self.root.clone()),
        })?;
        Ok(Documents { inner: Arc::new(Inner { root, limits, ocr: self.ocr }) })
    }
}

/// A [`DocumentsBuilder`] configuration that cannot work.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A cap is zero.
    #[error("documents: every limit must be greater than zero")]
    ZeroLimit,
    /// The root cannot be resolved.
    #[error("documents: root {}: {source}", root.display())]
    Root {
        /// The root as given.
        root: PathBuf,
        /// Why it cannot be resolved.
        #[source]
        source: Arc<io::Error>,
    },
    /// The root is not a directory.
    #[error("documents: root {} is not a directory", .0.display())]
    NotADirectory(PathBuf),
}

//! The document extractors (SPEC EXTRA-03, feature `documents`): PDF,
//! Word, Excel and PowerPoint files under a root folder, as Markdown.
//!
//! Two tools, with upstream's names, built from one [`Documents`]:
//!
//! | tool | reads | arguments |
//! |---|---|---|
//! | `extract_pdf` | PDF | `path`, optional `pages` (`"1-3,5,8-"`) |
//! | `extract_doc` | DOCX, XLSX, PPTX | `path`, optional `sheets` (names) or `slides` (like pages) |
//!
//! Two tools rather than one that dispatches: each schema holds only the
//! filters that apply to its kinds, and an application can offer one
//! without the other. A file is told by its signature, not its name; a
//! PDF given to `extract_doc` (or the reverse) is a correctable rejection
//! naming the right tool. [`Documents::extract`] dispatches by itself, for
//! programs.
//!
//! - **Confined** exactly as `read_file` is (SPEC FILE-02, FILE-03; the
//!   same code): a relative path without `..` resolving inside the root,
//!   a regular file (FIFOs and devices are never opened), opened without
//!   following symlinks and checked to be the file that was resolved.
//! - **Markdown.** A PDF page by page (`## Page N`, lines and paragraphs
//!   laid out from the text operators); a Word document's headings, list
//!   items and tables; each sheet of a workbook as a table with column
//!   letters and row numbers (cached values; dates in ISO form); each slide
//!   titled, with its text, tables and speaker notes. A first line names
//!   the pages, sheets or slides there are.
//! - **Bounded.** The file's size is checked before it is read (32 MiB);
//!   an office package may hold at most 10,000 entries and nest its XML at
//!   most 256 deep; one call inflates at most 256 MiB (a part's declared
//!   size is checked first, then the bytes actually inflated are counted;
//!   a PDF's load-time streams each get an equal share); the output is cut
//!   at 200,000 characters with a marker naming the `pages`, `sheets` or
//!   `slides` that read on. All configurable on the [`DocumentsBuilder`].
//! - **Hostile files** (zip bombs, deep nesting, huge pages, garbage,
//!   truncation) are failed results within those caps; a panic in a
//!   reader is contained and reads as a damaged file. A password-protected
//!   document is [`ExtractError::Encrypted`].
//! - **OCR** is a hook ([`Ocr`]): called for chosen PDF pages without text.
//!
//! Built on lopdf (PDF objects, streams, fonts and encodings), zip and
//! quick-xml (the office packages); golem lays out the text. Legacy binary
//! Office files (`.doc`, `.xls`, `.ppt`) and OpenDocument files are
//! refused as unsupported.
//!
//! ```
//! use golem_io::tools::documents::{Documents, Filter};
//!
//! let dir = tempfile::tempdir()?;
//! # let pdf = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Resources<</Font<</F1 4 0 R>>>>/Contents 5 0 R>>endobj\n4 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>endobj\n5 0 obj<</Length 36>>stream\nBT /F1 12 Tf 20 150 Td (Hello) Tj ET\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
//! std::fs::write(dir.path().join("hello.pdf"), pdf)?;
//! let documents = Documents::builder(dir.path()).build()?;
//! let markdown = documents.extract("hello.pdf", &Filter::all())?;
//! assert_eq!(markdown, "PDF with 1 page.\n\n## Page 1\n\nHello\n");
//! assert!(documents.extract("../etc/passwd", &Filter::all()).unwrap_err().is_rejection());
//! let tools: Vec<golem_io::Tool<()>> = documents.tools();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod builder;
mod cells;
mod collect;
mod docx;
mod error;
mod extract;
#[doc(hidden)]
pub(crate) mod fuzz;
mod kind;
mod limits;
mod markdown;
mod ocr;
mod office;
mod package;
mod pdf;
mod pdf_text;
mod pptx;
mod rels;
mod selection;
pub mod texts;
mod tool;
mod xlsx;
mod xml;

pub use builder::{BuildError, DocumentsBuilder};
pub use error::{ExtractError, Limit};
pub use limits::{
    DEFAULT_MAX_ENTRIES, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_INFLATED_BYTES, DEFAULT_MAX_OUTPUT_CHARS,
    DEFAULT_MAX_XML_DEPTH,
};
pub use ocr::{Ocr, PageImage, ScannedPage};
pub use selection::Filter;

use crate::tools::confine::Root;
use extract::Want;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A configured extractor: cheap to clone, shared by every tool made from
/// it.
#[derive(Clone)]
pub struct Documents {
    inner: Arc<Inner>,
}

struct Inner {
    root: Root,
    limits: limits::Limits,
    ocr: Option<Arc<dyn Ocr>>,
}

impl Documents {
    /// A builder for an extractor confined to `root`.
    pub fn builder(root: impl Into<PathBuf>) -> DocumentsBuilder {
        DocumentsBuilder::new(root.into())
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        self.inner.root.path()
    }

    /// What `extract_pdf` returns for `path` and `filter`: a PDF only.
    pub fn extract_pdf(&self, path: &str, filter: &Filter) -> Result<String, ExtractError> {
        self.run(path, filter, Want::Pdf)
    }

    /// What `extract_doc` returns for `path` and `filter`: an office file
    /// only.
    pub fn extract_doc(&self, path: &str, filter: &Filter) -> Result<String, ExtractError> {
        self.run(path, filter, Want::Office)
    }

    /// Extract whichever kind `path` is, as Markdown.
    pub fn extract(&self, path: &str, filter: &Filter) -> Result<String, ExtractError> {
        self.run(path, filter, Want::Any)
    }

    fn run(&self, path: &str, filter: &Filter, want: Want) -> Result<String, ExtractError> {
        extract::extract(&self.inner, path, filter, want)
    }
}

impl fmt::Debug for Documents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Documents")
            .field("root", &self.inner.root.path())
            .field("limits", &self.inner.limits)
            .field("ocr", &self.inner.ocr.is_some())
            .finish()
    }
}

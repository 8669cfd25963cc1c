//! The `read_file` tool (SPEC FILE): read a text file confined to a root
//! folder.
//!
//! - **Confined.** The path must be relative, without `..` segments or NUL
//!   bytes; it is resolved with every symlink followed and must land inside
//!   the (canonical) root. Directories, FIFOs, devices and sockets are
//!   refused from their metadata, before anything is opened. The file is
//!   then opened without following symlinks (on Linux with
//!   `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` from the root), and the
//!   opened handle's device and inode must be the checked path's, so a file
//!   swapped in between is never read.
//! - **Text only.** A NUL in the first 8 KiB or anywhere in the returned
//!   text, or invalid UTF-8 (bar a sequence cut by the cap), is a failed
//!   result "binary file".
//! - **Bounded.** 1 MiB by default; past it the text is cut and a marker
//!   added. With a line range (`start_line`, `end_line`, 1-based,
//!   inclusive) the cap counts the returned lines, a start past the end is
//!   a correctable rejection giving the line count, and an end past the end
//!   clamps. Reaching a range reads the file from its start: at most
//!   [64 MiB](DEFAULT_MAX_SCAN_BYTES) are scanned (configurable), past
//!   which the call is a failed result saying so.
//!
//! Path mistakes are correctable rejections the model can act on; binary
//! files are failed results (texts in [`texts`]).
//!
//! ```
//! use golem_io::tools::file_read::FileRead;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("notes.txt"), "one\ntwo\nthree\n")?;
//! let files = FileRead::builder(dir.path()).build()?;
//! assert_eq!(files.read("notes.txt", Some(2), Some(3))?, "two\nthree\n");
//! assert!(files.read("../etc/passwd", None, None).unwrap_err().is_rejection());
//! let tool: golem_io::Tool<()> = files.tool();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod content;
pub mod texts;

use crate::tools::confine::{Refusal, Root, RootError};
use crate::{Tool, ToolContext, ToolError, ToolResult};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The byte cap unless configured (SPEC FILE-01).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 20;

/// How many bytes a line range may scan unless configured (issue 15).
pub const DEFAULT_MAX_SCAN_BYTES: u64 = 64 << 20;

/// A configured reader: cheap to clone, shared by every tool made from it.
#[derive(Clone)]
pub struct FileRead {
    inner: Arc<Reader>,
}

struct Reader {
    root: Root,
    max_bytes: u64,
    max_scan: u64,
}

impl FileRead {
    /// A builder for a reader confined to `root`.
    pub fn builder(root: impl Into<PathBuf>) -> FileReadBuilder {
        FileReadBuilder { root: root.into(), max_bytes: DEFAULT_MAX_BYTES, max_scan: DEFAULT_MAX_SCAN_BYTES }
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        self.inner.root.path()
    }

    /// The `read_file` tool, for an agent with any deps.
    pub fn tool<Deps: Send + Sync + 'static>(&self) -> Tool<Deps> {
        let reader = self.clone();
        Tool::new(texts::TOOL_NAME, texts::DESCRIPTION, texts::schema(), move |_ctx: ToolContext<Deps>, args| {
            reader.call(args)
        })
        .idempotent()
    }

    /// Read `path` as the tool would (lines `start..=end` when given) and
    /// return what the model reads.
    pub fn read(&self, path: &str, start_line: Option<u64>, end_line: Option<u64>) -> Result<String, ReadError> {
        let range = content::Range::new(start_line, end_line)?;
        let root = &self.inner.root;
        let resolved = root.resolve(path)?;
        let file = root.open(path, &resolved)?;
        let limits = content::Limits { max_bytes: self.inner.max_bytes, max_scan: self.inner.max_scan };
        content::read(path, file, range, limits)
    }

    fn call(&self, args: Value) -> Result<ToolResult, ToolError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Args {
            path: String,
            #[serde(default)]
            start_line: Option<u64>,
            #[serde(default)]
            end_line: Option<u64>,
        }
        let args: Args =
            serde_json::from_value(args).map_err(|e| ToolError::Reject(texts::bad_args(&e.to_string())))?;
        let text = self.read(&args.path, args.start_line, args.end_line).map_err(ReadError::into_tool_error)?;
        Ok(ToolResult::text(text))
    }
}

impl fmt::Debug for FileRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileRead")
            .field("root", &self.inner.root.path())
            .field("max_bytes", &self.inner.max_bytes)
            .field("max_scan_bytes", &self.inner.max_scan)
            .finish()
    }
}

/// Configuration for [`FileRead`].
#[derive(Clone, Debug)]
pub struct FileReadBuilder {
    root: PathBuf,
    max_bytes: u64,
    max_scan: u64,
}

impl FileReadBuilder {
    /// The byte cap (default 1 MiB).
    pub fn max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The most bytes a call with a line range reads to reach and collect
    /// its lines (default [`DEFAULT_MAX_SCAN_BYTES`]): the work, and so
    /// the time, one call can cost on a huge file.
    pub fn max_scan_bytes(mut self, max_scan: u64) -> Self {
        self.max_scan = max_scan;
        self
    }

    /// Check the root (an existing directory, stored canonical) and build.
    pub fn build(self) -> Result<FileRead, BuildError> {
        if self.max_bytes == 0 || self.max_scan == 0 {
            return Err(BuildError::ZeroMaxBytes);
        }
        let root = Root::new(&self.root).map_err(|e| match e {
            RootError::Resolve(source) => BuildError::Root { root: self.root.clone(), source: Arc::new(source) },
            RootError::NotADirectory => BuildError::NotADirectory(self.root.clone()),
        })?;
        let reader = Reader { root, max_bytes: self.max_bytes, max_scan: self.max_scan };
        Ok(FileRead { inner: Arc::new(reader) })
    }
}

/// A [`FileReadBuilder`] configuration that cannot work.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The byte cap or the scan bound is zero.
    #[error("read_file: max bytes and max scan bytes must be greater than zero")]
    ZeroMaxBytes,
    /// The root cannot be resolved.
    #[error("read_file: root {}: {source}", root.display())]
    Root {
        /// The root as given.
        root: PathBuf,
        /// Why it cannot be resolved.
        #[source]
        source: Arc<io::Error>,
    },
    /// The root is not a directory.
    #[error("read_file: root {} is not a directory", .0.display())]
    NotADirectory(PathBuf),
}

/// Why a read produced no text. Its `Display` is the text the model reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The model should fix its call (SPEC FILE-02).
    #[error("{0}")]
    Rejected(String),
    /// A definitive failure: a binary file, a swapped file, an I/O error.
    #[error("{0}")]
    Failed(String),
}

impl ReadError {
    /// True for a correctable rejection.
    pub fn is_rejection(&self) -> bool {
        matches!(self, ReadError::Rejected(_))
    }
}

impl ReadError {
    /// The tool's verdict: a rejection stays correctable, a failure is a
    /// failed result. (`?` on a `ReadError` in a tool of your own gives a
    /// failed result for both, like any error.)
    pub fn into_tool_error(self) -> ToolError {
        match self {
            ReadError::Rejected(reason) => ToolError::Reject(reason),
            ReadError::Failed(reason) => ToolError::Failed(reason),
        }
    }
}

impl From<Refusal> for ReadError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Rejected(text) => ReadError::Rejected(text),
            Refusal::Failed(text) => ReadError::Failed(text),
        }
    }
}

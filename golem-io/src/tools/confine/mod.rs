//! A root folder that files are read from, and never from outside it
//! (SPEC FILE-02, FILE-03): what `read_file` and the document extractors
//! share.
//!
//! A model's path is checked as text (relative, no `..`, no NUL), then
//! resolved on disk with every symlink followed and checked to land inside
//! the canonical root, then its metadata must say "regular file" — so
//! FIFOs, devices and sockets are refused before anything is opened. The
//! open itself follows no symlink (on Linux `openat2(RESOLVE_BENEATH)` from
//! a handle on the root), and the opened handle must be the checked file
//! (device and inode), so nothing swapped in between is read.
//!
//! Each tool maps a [`Refusal`] onto its own error type; the sentences are
//! in [`texts`], shared so every confined tool words a path mistake alike.

mod open;
pub mod texts;

use std::fs::{File, Metadata};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a path was not opened: a mistake the model can correct, or a
/// definitive failure. The text is what the model reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A path mistake (SPEC FILE-02): the model should fix its call.
    Rejected(String),
    /// The file changed under us, or the system failed to read it.
    Failed(String),
}

/// Why a root cannot serve as one.
#[derive(Debug)]
pub(crate) enum RootError {
    /// The root cannot be resolved.
    Resolve(io::Error),
    /// The root is not a directory.
    NotADirectory,
}

/// A checked root: canonical, an existing directory.
pub(crate) struct Root {
    path: PathBuf,
    /// The root as a directory handle, for `openat2` (`None` when it cannot
    /// be opened; opens then fall back to a plain open).
    #[cfg(target_os = "linux")]
    fd: Option<std::os::fd::OwnedFd>,
}

/// A path that passed every check: canonical, inside the root, a regular
/// file, with the identity it had when checked.
pub(crate) struct Resolved {
    canonical: PathBuf,
    metadata: Metadata,
}

#[cfg(feature = "documents")]
impl Resolved {
    /// The file's metadata as checked (its length is what a size cap reads
    /// before opening).
    pub(crate) fn metadata(&self) -> &Metadata {
        &self.metadata
    }
}

impl Root {
    /// Resolve `root` (it must be an existing directory) and keep it canonical.
    pub(crate) fn new(root: &Path) -> Result<Root, RootError> {
        let path = std::fs::canonicalize(root).map_err(RootError::Resolve)?;
        if !path.is_dir() {
            return Err(RootError::NotADirectory);
        }
        Ok(Root {
            #[cfg(target_os = "linux")]
            fd: open::open_root(&path),
            path,
        })
    }

    /// The canonical root.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The model's path, checked as text, then resolved and checked on disk
    /// without opening anything.
    pub(crate) fn resolve(&self, path: &str) -> Result<Resolved, Refusal> {
        let reject = |text: String| Err(Refusal::Rejected(text));
        if path.is_empty() {
            return reject(texts::PATH_REQUIRED.into());
        }
        if path.contains('\0') {
            return reject(texts::PATH_NUL.into());
        }
        let relative = Path::new(path);
        if relative.is_absolute() || relative.has_root() || path.starts_with(['/', '\\']) {
            return reject(texts::absolute(path));
        }
        if path.split(['/', '\\']).any(|segment| segment == "..")
            || relative.components().any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
        {
            return reject(texts::parent_segment(path));
        }
        let canonical = std::fs::canonicalize(self.path.join(relative)).map_err(|e| resolve_error(path, &e))?;
        if !canonical.starts_with(&self.path) {
            return reject(texts::escapes(path));
        }
        // `canonical` has no symlinks left, so this is the file itself.
        let metadata = std::fs::symlink_metadata(&canonical).map_err(|e| resolve_error(path, &e))?;
        if metadata.is_dir() {
            return reject(texts::directory(path));
        }
        if !metadata.is_file() {
            return reject(texts::not_regular(path));
        }
        Ok(Resolved { canonical, metadata })
    }

    /// Open the checked file and make sure it is still the one checked.
    pub(crate) fn open(&self, path: &str, resolved: &Resolved) -> Result<File, Refusal> {
        #[cfg(target_os = "linux")]
        let file = open::open_confined(self.fd.as_ref(), &self.path, &resolved.canonical);
        #[cfg(not(target_os = "linux"))]
        let file = open::open_confined(&resolved.canonical);
        let file = file.map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => Refusal::Rejected(texts::not_found(path)),
            _ if open::is_symlink_refusal(&e) => Refusal::Failed(texts::changed(path)),
            _ => Refusal::Failed(texts::io(path, &e.to_string())),
        })?;
        let opened = file.metadata().map_err(|e| Refusal::Failed(texts::io(path, &e.to_string())))?;
        if !opened.is_file() || !open::same_file(&opened, &resolved.metadata) {
            return Err(Refusal::Failed(texts::changed(path)));
        }
        Ok(file)
    }
}

/// A path the system could not resolve: correctable, since the model chose it.
fn resolve_error(path: &str, error: &io::Error) -> Refusal {
    match error.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Refusal::Rejected(texts::not_found(path)),
        io::ErrorKind::PermissionDenied => Refusal::Failed(texts::io(path, &error.to_string())),
        _ => Refusal::Rejected(texts::unresolvable(path, &error.to_string())),
    }
}

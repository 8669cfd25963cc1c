//! What the model reads when a confined path is refused (SPEC FILE-02,
//! FILE-03), shared by every tool that reads under a root: `read_file`
//! (which re-exports these from its own `texts`) and the document
//! extractors. Upstream's literals (Go golem v0.8.1) where it had them. A
//! path is quoted whole up to 200 bytes, else as its first 200 bytes and
//! its length (issue 15): the model chose it, and a long one must not flood
//! its own context through an error.

use crate::tools::clip::quoted;

/// The description of a `path` argument (SPEC FILE-01).
pub const PATH_DESCRIPTION: &str = "File path relative to the root directory, without .. segments.";

/// Rejection: an empty path.
pub const PATH_REQUIRED: &str = "path is required";

/// Rejection: a NUL byte in the path.
pub const PATH_NUL: &str = "path must not contain a NUL byte";

/// Rejection: an absolute path.
pub fn absolute(path: &str) -> String {
    let path = quoted(path);
    format!("path must be relative to the root directory, got {path:?}")
}

/// Rejection: a `..` segment.
pub fn parent_segment(path: &str) -> String {
    let path = quoted(path);
    format!("path must stay within the root directory, got {path:?}")
}

/// Rejection: the resolved path (symlinks followed) leaves the root.
pub fn escapes(path: &str) -> String {
    let path = quoted(path);
    format!("path must stay within the root directory: {path} resolves outside it")
}

/// Rejection: nothing at the path.
pub fn not_found(path: &str) -> String {
    let path = quoted(path);
    format!("no such file: {path}")
}

/// Rejection: a path the system cannot resolve (a symlink loop, a name
/// too long, …).
pub fn unresolvable(path: &str, error: &str) -> String {
    let path = quoted(path);
    format!("cannot resolve {path}: {error}")
}

/// Rejection: a directory.
pub fn directory(path: &str) -> String {
    let path = quoted(path);
    format!("{path} is a directory, not a file")
}

/// Rejection: a FIFO, device or socket (never opened).
pub fn not_regular(path: &str) -> String {
    let path = quoted(path);
    format!("{path} is not a regular file")
}

/// Failed result: the file was replaced between the checks and the open
/// (SPEC FILE-03).
pub fn changed(path: &str) -> String {
    let path = quoted(path);
    format!("{path} changed while it was being opened; not read")
}

/// Failed result: any other I/O error.
pub fn io(path: &str, error: &str) -> String {
    let path = quoted(path);
    format!("cannot read {path}: {error}")
}

//! What the model reads from `read_file` (SPEC FILE): the tool's name,
//! description and schema, its rejections, failed results and marker.
//! Upstream's literals (Go golem v0.8.1) where it had them. A path is
//! quoted whole up to 200 bytes, else as its first 200 bytes and its length
//! (issue 15): the model chose it, and a long one must not flood its own
//! context through an error.

use crate::tools::clip::quoted;

/// The rejections and failures of a path, shared with the other tools
/// that read under a root.
pub use crate::tools::confine::texts::{
    absolute, changed, directory, escapes, io, not_found, not_regular, parent_segment, unresolvable, PATH_DESCRIPTION,
    PATH_NUL, PATH_REQUIRED,
};
use serde_json::{json, Value};

/// The tool's name.
pub const TOOL_NAME: &str = "read_file";

/// The tool's description (upstream's).
pub const DESCRIPTION: &str = "Read one file and return its text content. The path is relative to the tool's configured root directory; paths outside it are rejected. Text-like files only.";

/// The description of the `start_line` argument.
pub const START_LINE_DESCRIPTION: &str = "Optional first line to return, 1-based.";

/// The description of the `end_line` argument.
pub const END_LINE_DESCRIPTION: &str = "Optional last line to return, 1-based and inclusive.";

/// The argument schema: `{path, start_line?, end_line?}`.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": PATH_DESCRIPTION},
            "start_line": {"type": "integer", "minimum": 1, "description": START_LINE_DESCRIPTION},
            "end_line": {"type": "integer", "minimum": 1, "description": END_LINE_DESCRIPTION}
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// Rejection: the arguments do not fit the schema.
pub fn bad_args(serde_error: &str) -> String {
    format!(
        "arguments must be an object with a string path and optional integer start_line and end_line: {}",
        quoted(serde_error)
    )
}

/// Rejection: a line number below 1.
pub const LINE_ZERO: &str = "start_line and end_line are 1-based and must be at least 1";

/// Rejection: a range that ends before it starts.
pub fn range_reversed(start: u64, end: u64) -> String {
    format!("end_line {end} is before start_line {start}")
}

/// Rejection: a range starting after the last line (SPEC FILE-05).
pub fn start_past_end(path: &str, start: u64, lines: u64) -> String {
    let path = quoted(path);
    format!("start_line {start} is past the end of {path}, which has {lines} lines")
}

/// Failed result: a line range that lies beyond the bytes one call may
/// scan (issue 15).
pub fn scan_limit(path: &str, max_scan: u64, start: u64) -> String {
    let path = quoted(path);
    format!(
        "{path}: stopped reading after {max_scan} bytes without finishing lines from {start}; this tool scans at most that much of a file per call"
    )
}

/// Failed result: a binary file (SPEC FILE-04).
pub fn binary(path: &str) -> String {
    let path = quoted(path);
    format!("{path}: binary file")
}

/// Marker after a cut (SPEC FILE-05).
pub fn truncated(max_bytes: u64) -> String {
    format!("\n\n[fileread: file truncated at {max_bytes} bytes]")
}

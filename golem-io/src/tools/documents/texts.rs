//! What the model reads from `extract_pdf` and `extract_doc` (SPEC
//! EXTRA-03): the tools' names, descriptions and schemas, their
//! rejections, failed results and markers. Path mistakes read as
//! `read_file`'s do (the shared confinement texts).

use crate::tools::clip::quoted;
use serde_json::{json, Value};

pub use crate::tools::confine::texts::PATH_DESCRIPTION;

/// How many bytes of a reader's own error message a failed result quotes.
pub(crate) const REASON_BYTES: usize = 200;

/// The PDF tool's name (upstream's).
pub const EXTRACT_PDF: &str = "extract_pdf";

/// The office tool's name (upstream's).
pub const EXTRACT_DOC: &str = "extract_doc";

/// The PDF tool's description.
pub const PDF_DESCRIPTION: &str = "Extract the text of one PDF file as Markdown, one section per page. The path is relative to the tool's configured root directory; paths outside it are rejected. Optionally choose pages.";

/// The office tool's description.
pub const DOC_DESCRIPTION: &str = "Extract the text of one Word (.docx), Excel (.xlsx) or PowerPoint (.pptx) file as Markdown: a document's headings, lists and tables; each sheet as a table with its column letters and row numbers; each slide with its notes. The path is relative to the tool's configured root directory; paths outside it are rejected. Optionally choose sheets or slides.";

/// The description of the `pages` argument.
pub const PAGES_DESCRIPTION: &str =
    "Optional pages to extract, 1-based: \"3\", \"2-5\", \"1,4,7-\" (7 to the end). Default: all.";

/// The description of the `sheets` argument.
pub const SHEETS_DESCRIPTION: &str = "Optional names of the .xlsx sheets to extract. Default: all.";

/// The description of the `slides` argument.
pub const SLIDES_DESCRIPTION: &str =
    "Optional .pptx slides to extract, 1-based: \"3\", \"2-5\", \"1,4,7-\" (7 to the end). Default: all.";

/// `extract_pdf`'s argument schema: `{path, pages?}`.
pub fn pdf_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": PATH_DESCRIPTION},
            "pages": {"type": "string", "description": PAGES_DESCRIPTION}
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// `extract_doc`'s argument schema: `{path, sheets?, slides?}`.
pub fn doc_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": PATH_DESCRIPTION},
            "sheets": {"type": "array", "items": {"type": "string"}, "description": SHEETS_DESCRIPTION},
            "slides": {"type": "string", "description": SLIDES_DESCRIPTION}
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// Rejection: the arguments do not fit the schema.
pub fn bad_args(tool: &str, serde_error: &str) -> String {
    let shape = if tool == EXTRACT_PDF {
        "a string path and an optional string pages"
    } else {
        "a string path, an optional array of sheet names and an optional string slides"
    };
    format!("arguments must be an object with {shape}: {}", quoted(serde_error))
}

/// Rejection: a page or slide list that does not parse.
pub fn bad_range(what: &str, spec: &str) -> String {
    let spec = quoted(spec);
    format!("{what} must be numbers and ranges from 1, separated by commas, like \"1-3,5,8-\"; got {spec:?}")
}

/// Rejection: a page or slide list that selects nothing in this file.
pub fn out_of_range(what: &str, spec: &str, path: &str, count: usize) -> String {
    let (spec, path) = (quoted(spec), quoted(path));
    let noun = what.trim_end_matches('s');
    let count = if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") };
    format!("{what} {spec:?} selects nothing: {path} has {count}")
}

/// Rejection: sheet names the workbook does not have.
pub fn unknown_sheets(missing: &[String], path: &str, available: &[String]) -> String {
    let missing: Vec<String> = missing.iter().map(|s| format!("{:?}", quoted(s))).collect();
    let available: Vec<String> = available.iter().map(|s| format!("{:?}", quoted(s))).collect();
    format!("{} has no sheet {}; its sheets are {}", quoted(path), missing.join(", "), available.join(", "))
}

/// Rejection: an argument that does not apply to this kind of file.
pub fn not_applicable(argument: &str, path: &str, kind: &str) -> String {
    format!("{argument} does not apply to {}, which is {kind}", quoted(path))
}

/// Rejection: a PDF given to `extract_doc`.
pub fn use_pdf_tool(path: &str) -> String {
    format!("{} is a PDF; read it with {EXTRACT_PDF}", quoted(path))
}

/// Rejection: an office file given to `extract_pdf`.
pub fn use_doc_tool(path: &str, kind: &str) -> String {
    format!("{} is {kind}, not a PDF; read it with {EXTRACT_DOC}", quoted(path))
}

/// Failed result: a password-protected document.
pub fn encrypted(path: &str) -> String {
    format!("{} is password-protected; its text cannot be extracted", quoted(path))
}

/// Failed result: a document past one of the caps (`limit` says which,
/// as [`Limit`](super::Limit)'s `Display` does).
pub fn limit(path: &str, limit: &dyn std::fmt::Display) -> String {
    format!("{} was not read: {limit}, past this tool's limit", quoted(path))
}

/// Failed result: a damaged document.
pub fn malformed(path: &str, reason: &str) -> String {
    format!("{} cannot be read as a document: {reason}", quoted(path))
}

/// Failed result: not a PDF, DOCX, XLSX or PPTX.
pub fn unsupported(path: &str, what: &str) -> String {
    format!("{} is not a PDF, DOCX, XLSX or PPTX document ({what})", quoted(path))
}

/// Marker after output cut at the cap; `resume` names the arguments that
/// read on from where it stopped.
pub fn truncated(max_chars: usize, resume: Option<&str>) -> String {
    match resume {
        Some(resume) => {
            format!("\n\n[documents: output truncated at {max_chars} characters; to read on, call again with {resume}]")
        }
        None => format!("\n\n[documents: output truncated at {max_chars} characters]"),
    }
}

/// A PDF page with no text (no OCR hook, or the hook found none).
pub const NO_TEXT: &str = "[documents: no text on this page; it may be a scanned image]";

/// A PDF page whose OCR hook failed.
pub fn ocr_failed(error: &str) -> String {
    format!("[documents: no text on this page, and OCR failed: {}]", quoted(error))
}

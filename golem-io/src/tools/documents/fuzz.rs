//! The `documents` fuzz target's body (SPEC ARCH-02): arbitrary bytes as a
//! document, through the same readers the tools run, panics not contained
//! (so the fuzzer sees them), under small caps.

use super::error::Fault;
use super::extract::{read, ReadFailure, Want};
use super::kind::{sniff, HEAD_BYTES};
use super::markdown::Markdown;
use super::{Documents, Filter};
use std::io::Cursor;
use std::sync::OnceLock;

const MAX_OUTPUT_CHARS: usize = 4096;

/// Never a panic; the output stays under its cap plus the marker; a
/// rejection only for a filter that selects nothing or does not apply.
pub(crate) fn body(data: &[u8]) {
    static DOCUMENTS: OnceLock<Documents> = OnceLock::new();
    let documents = DOCUMENTS.get_or_init(|| {
        Documents::builder(std::env::temp_dir())
            .max_output_chars(MAX_OUTPUT_CHARS)
            .max_inflated_bytes(8 << 20)
            .max_entries(512)
            .max_xml_depth(64)
            .build()
            .expect("the temp folder is a directory")
    });
    let kind = sniff(&data[..data.len().min(HEAD_BYTES)]);
    for filter in
        [Filter::all(), Filter::all().pages("2-3"), Filter::all().slides("2"), Filter::all().sheets(["Sheet1"])]
    {
        let mut out = Markdown::new(MAX_OUTPUT_CHARS);
        let result = read(&documents.inner, "fuzz", &filter, Want::Any, kind, Cursor::new(data), &mut out);
        let text = out.finish();
        assert!(text.chars().count() <= MAX_OUTPUT_CHARS + 200, "output past its cap");
        if let Err(ReadFailure::Fault(Fault::Rejected(reason))) = &result {
            assert!(filter != Filter::all(), "a rejection without a filter: {reason}");
        }
    }
}

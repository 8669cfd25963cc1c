//! Arbitrary bytes as a PDF, DOCX, XLSX or PPTX through the document extractors (SPEC EXTRA-03, ARCH-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_io::tools::fuzzing::documents(data));

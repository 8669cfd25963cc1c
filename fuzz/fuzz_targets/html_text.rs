//! Arbitrary bytes as an HTML page through the web_fetch converter (SPEC WEB-07, ARCH-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_io::tools::fuzzing::html_text(data));

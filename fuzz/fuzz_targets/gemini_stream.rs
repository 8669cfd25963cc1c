//! Arbitrary bytes as a Gemini `streamGenerateContent` body, SSE or JSON
//! array (SPEC ARCH-02, PROV-GEM-07).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::gemini_stream(data));

//! Arbitrary bytes as a Gemini `generateContent` body, under 2xx and error
//! statuses (SPEC ARCH-02, PROV-GEM-06/08).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::gemini_response(data));

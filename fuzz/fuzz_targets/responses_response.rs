//! Arbitrary bytes as an OpenAI Responses API body (issue 35, SPEC ARCH-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::responses_response(data));

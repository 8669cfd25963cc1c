//! Arbitrary bytes as an OpenAI Responses API SSE stream (issue 35, SPEC ARCH-02,
//! STREAM-06/08).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::responses_stream(data));

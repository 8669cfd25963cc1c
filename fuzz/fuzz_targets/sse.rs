//! Arbitrary bytes into the SSE decoder, whole and split (SPEC STREAM-06/08).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::sse(data));

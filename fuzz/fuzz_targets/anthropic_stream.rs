//! Arbitrary bytes as an Anthropic Messages SSE stream (SPEC ARCH-02,
//! PROV-ANT-06, THINK-05).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::anthropic_stream(data));

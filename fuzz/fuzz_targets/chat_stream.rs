//! Arbitrary bytes as a Chat Completions SSE stream (SPEC ARCH-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::chat_stream(data));

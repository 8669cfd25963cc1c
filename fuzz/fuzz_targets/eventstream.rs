//! Arbitrary bytes as AWS event-stream frames (SPEC ARCH-02, PROV-BR-05).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::eventstream(data));

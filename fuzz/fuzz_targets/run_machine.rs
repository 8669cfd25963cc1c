//! Arbitrary input sequences into the run machine (SPEC ARCH-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_core::fuzzing::run_machine(data));

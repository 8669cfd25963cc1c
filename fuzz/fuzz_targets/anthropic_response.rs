//! Arbitrary bytes as an Anthropic Messages body under 2xx and error
//! statuses (SPEC ARCH-02, PROV-ANT-05/07).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::anthropic_response(data));

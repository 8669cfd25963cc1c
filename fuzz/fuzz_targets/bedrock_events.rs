//! Lines as Bedrock ConverseStream event frames (checksums valid) (SPEC ARCH-02, PROV-BR-05).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::bedrock_events(data));

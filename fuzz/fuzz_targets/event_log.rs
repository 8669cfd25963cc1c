//! Arbitrary bytes as an event log: parse, then replay (SPEC LOG-03).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_core::fuzzing::event_log(data));

//! Arbitrary bytes as an HTTP-date / Retry-After value (SPEC RETRY-03).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::http_date(data));

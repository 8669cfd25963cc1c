//! Arbitrary bytes as an embeddings answer of OpenAI, Gemini, Bedrock
//! Titan or Cohere, under 2xx and error statuses (SPEC ARCH-02, EXTRA-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_providers::fuzzing::embeddings(data));

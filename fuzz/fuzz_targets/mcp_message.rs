//! Arbitrary bytes as MCP JSON-RPC lines and SSE bodies (SPEC ARCH-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_io::mcp::fuzzing::message(data));

//! Every integration test of `golem-providers` in one binary: one link instead of one
//! per file keeps test builds small and fast. Each file stays a module named
//! for what it covers, so `cargo test -p golem-providers --test integration <file>::`
//! runs one of them.

// Helpers shared by several files, compiled once.
#[path = "support/anthropic.rs"]
mod anthropic;
#[path = "support/bedrock.rs"]
mod bedrock;
#[path = "support/drivers.rs"]
mod drivers;
#[path = "support/gemini.rs"]
mod gemini;
#[path = "support/models.rs"]
mod models;
#[path = "support/proxy.rs"]
mod proxy;
#[path = "support/responses.rs"]
mod responses;
#[path = "support/server.rs"]
mod server;
mod support;
#[path = "support/transports.rs"]
mod transports;

mod anthropic_agent;
mod anthropic_builtin;
mod anthropic_client;
mod anthropic_codec;
mod anthropic_recorded;
mod bedrock_agent;
mod bedrock_builtin;
mod bedrock_client;
mod bedrock_codec;
mod bedrock_eventstream;
mod bedrock_recorded;
mod bedrock_sigv4;
mod builtin_agent;
mod builtin_refusals;
mod cache_cost;
mod cache_prefix;
mod cache_resume;
mod chat_builtin;
mod client_agent;
mod client_azure;
mod client_builder;
mod client_openai;
mod config;
mod decode;
mod embeddings_client;
mod embeddings_recorded;
mod encode;
mod encode_reuse;
mod error_kinds;
mod errors;
mod fault_matrix;
mod fuzz;
mod fuzz_corpus;
mod gemini_agent;
mod gemini_builtin;
mod gemini_client;
mod gemini_codec;
mod gemini_recorded;
mod mid_system;
mod no_choices;
mod not_streamed;
mod openapi;
mod recorded;
mod responses_builtin;
mod responses_client;
mod responses_codec;
mod responses_recorded;
mod retry_after;
mod retry_spread;
mod secrets;
mod secrets_reflected;
mod sse;
mod stream;
mod stream_limits;
mod structured_output;
mod transport_async;
mod transport_blocking;
mod transport_proxy;

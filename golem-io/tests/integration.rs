//! Every integration test of `golem-io` in one binary: one link instead of one
//! per file keeps test builds small and fast. Each file stays a module named
//! for what it covers, so `cargo test -p golem-io --test integration <file>::`
//! runs one of them.

// Helpers shared by several files, compiled once.
mod corpus;
mod crash_support;
#[cfg(feature = "documents")]
mod documents_support;
mod log_buffer;
#[cfg(feature = "mcp")]
mod mcp_support;
#[cfg(all(unix, feature = "restate"))]
mod restate_support;
#[cfg(any(feature = "web-fetch", feature = "file-read", feature = "command", feature = "skills"))]
mod tools_support;

mod async_cancel;
mod async_executors;
mod async_models;
mod async_send;
mod async_tools;
mod cancellation;
mod crash_every_byte;
#[cfg(unix)]
mod crash_kill;
mod crash_resume;
mod deferral;
mod delegation;
mod delegation_drivers;
mod delegation_events;
mod docs_imports;
mod driver;
mod driver_deadlines;
mod equivalence;
mod hardening_command;
mod hardening_documents;
mod hardening_mcp;
mod hardening_skills;
mod hardening_tools;
mod history_sharing;
mod log_file;
mod mcp_auth;
mod mcp_auth_hostile;
mod mcp_bridge;
mod mcp_capabilities;
mod mcp_client_features;
mod mcp_fuzz_corpus;
mod mcp_http;
mod mcp_http_fake;
mod mcp_http_listen;
mod mcp_http_proxy;
mod mcp_replay;
mod mcp_resources;
mod mcp_results;
mod mcp_resume;
mod mcp_session;
mod mcp_session_loss;
mod mcp_stdio;
mod observe_browser;
mod observe_report;
#[cfg(feature = "tracing")]
mod observe_trace;
mod output;
mod pause_once;
mod policy;
mod record_replay;
#[cfg(all(unix, feature = "restate"))]
mod restate_durable;
#[cfg(all(unix, feature = "restate"))]
mod restate_identity;
#[cfg(all(unix, feature = "restate"))]
mod restate_observe;
#[cfg(all(unix, feature = "restate"))]
mod restate_parallel;
#[cfg(all(unix, feature = "restate"))]
mod restate_stream;
mod run_ids;
mod secrets;
mod setup;
mod spec_checks;
mod stream_discard;
mod streaming;
mod tool_caps;
mod tool_handlers;
mod tools_command;
mod tools_documents;
mod tools_file_read;
mod tools_fuzz_corpus;
mod tools_skills;
mod tools_web_fetch;

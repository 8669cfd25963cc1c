//! Every integration test of `golem-core` in one binary: one link instead of one
//! per file keeps test builds small and fast. Each file stays a module named
//! for what it covers, so `cargo test -p golem-core --test integration <file>::`
//! runs one of them.

// Helpers shared by several files, compiled once.
mod outcomes;

mod builtin_parts;
mod config_rules;
mod fuzz_corpus;
mod history;
mod log_read;
mod log_replay;
mod machine_bad_output;
mod machine_caps;
mod machine_cost;
mod machine_discard;
mod machine_golden;
mod machine_jitter;
mod machine_production;
mod machine_props;
mod machine_stream;
mod machine_tools;
mod machine_usage_defer;
mod message_json;
mod run_ids;
mod testing_kit;

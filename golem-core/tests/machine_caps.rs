//! Agent-level caps on tool data (issue 32, SPEC CAP-01): a tool result
//! over its cap is cut, ending with a note the model reads, and the
//! `tool_end` event and the history say so; arguments over their cap are a
//! correctable rejection, never parsed; a tool's own caps override the
//! run's; the defaults are 1 MiB.

use crate::outcomes::{completed, failed};
use golem_core::config::DEFAULT_MAX_TOOL_BYTES;
use golem_core::error::ToolFailureKind;
use golem_core::machine::Start;
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use serde_json::json;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn config(tools: Vec<ToolSpec>) -> RunConfig {
    let mut config = RunConfig::default();
    config.tools = tools;
    config
}

fn spec(name: &str) -> ToolSpec {
    ToolSpec::new(name, "", json!({"type": "object"}))
}

fn calls(name: &str, args: &str) -> ModelReply {
    ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", name, args)]))
}

fn text(content: &str) -> ModelReply {
    ModelReply::ok(MS, Response::text(content))
}

fn tool_end(sim: &Sim) -> ToolEndOutcome {
    sim.events()
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolEnd { outcome, .. } => Some(outcome.clone()),
            _ => None,
        })
        .expect("a tool_end event")
}

#[test]
fn cap_01_the_defaults_are_one_mebibyte_each() {
    let config = RunConfig::default();
    assert_eq!(DEFAULT_MAX_TOOL_BYTES, 1024 * 1024);
    assert_eq!((config.max_tool_result_bytes, config.max_tool_args_bytes), (Some(1 << 20), Some(1 << 20)));
}

#[test]
fn cap_01_a_result_over_the_cap_reaches_the_model_cut_with_a_note() {
    // 3 MiB of result under the default 1 MiB cap.
    let huge = "x".repeat(3 << 20);
    let replies = vec![calls("dump", "{}"), text("summarized")];
    let mut sim = Sim::new(config(vec![spec("dump")]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("dump", move |_, _| ToolReply::output(MS, huge.clone()));
    let summary = completed(sim.run());
    let result = &summary.messages[2];
    assert_eq!(result.role, Role::Tool);
    assert!(result.content.len() <= 1 << 20, "{} bytes", result.content.len());
    assert!(
        result.content.ends_with(&format!("of {} bytes]", 3 << 20)),
        "the note: {}",
        &result.content[result.content.len() - 80..]
    );
    // The event says so too, and so does the next request.
    let ToolEndOutcome::Output { content } = tool_end(&sim) else { panic!("{:?}", tool_end(&sim)) };
    assert_eq!(content, result.content);
    let sent = &sim.requests()[1].messages[2];
    assert_eq!(sent.content, result.content);
}

#[test]
fn cap_01_a_tool_s_own_cap_overrides_the_run_s() {
    let mut small = spec("small");
    small.max_result_bytes = Some(100);
    let mut roomy = spec("roomy");
    roomy.max_result_bytes = Some(10_000);
    let mut config = config(vec![small, roomy]);
    config.max_tool_result_bytes = Some(500);
    let run = |name: &str| {
        let replies = vec![calls(name, "{}"), text("ok")];
        let mut sim = Sim::new(config.clone(), Start::prompt("go"), Sim::scripted(replies))
            .unwrap()
            .tool(name, |_, _| ToolReply::output(MS, "y".repeat(2_000)));
        completed(sim.run()).messages[2].content.clone()
    };
    let small = run("small");
    assert!(small.len() <= 100 && small.contains("of 2000 bytes]"), "{small}");
    assert_eq!(run("roomy"), "y".repeat(2_000), "under its own cap, whole");
}

#[test]
fn cap_01_arguments_over_the_cap_are_a_correctable_rejection() {
    let mut big = spec("store");
    big.max_args_bytes = Some(64);
    let mut config = config(vec![big]);
    config.retry.tool_retries = 1;
    let long_args = format!(r#"{{"blob":"{}"}}"#, "z".repeat(100));
    let replies = vec![calls("store", &long_args), calls("store", r#"{"blob":"z"}"#), text("stored")];
    let mut sim = Sim::new(config.clone(), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("store", |_, _| ToolReply::output(MS, "ok"));
    let summary = completed(sim.run());
    let told = &summary.messages[2].content;
    assert!(told.contains("over this tool's limit of 64"), "{told}");
    assert_eq!(sim.executions(), 1, "the oversized call never ran");
    assert_eq!(summary.messages.last().unwrap().content, "stored");
    // Without a correction left, the run fails with the rejection named.
    config.retry.tool_retries = 0;
    let mut sim = Sim::new(config, Start::prompt("go"), Sim::scripted(vec![calls("store", &long_args)]))
        .unwrap()
        .tool("store", |_, _| ToolReply::output(MS, "ok"));
    let error = failed(sim.run());
    let Cause::Tool(failure) = &error.cause else { panic!("{error}") };
    let ToolFailureKind::Rejected { reason, .. } = &failure.failure else { panic!("{failure:?}") };
    assert!(reason.contains("limit of 64"), "{reason}");
    assert_eq!(sim.executions(), 0);
}

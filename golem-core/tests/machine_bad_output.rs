//! Bad input from the model ends in the documented correction or stage,
//! with partial evidence (issue: Foundation, "Show").

use golem_core::machine::{Outcome, Start, Verdict};
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use serde_json::json;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn cfg(tool_retries: u32, output_retries: u32) -> RunConfig {
    {
        let mut built = RunConfig::default();
        built.tools = vec![ToolSpec::new("lookup", "", json!({"type": "object"}))];
        built.retry = {
            let mut built = RetryPolicy::default();
            built.tool_retries = tool_retries;
            built.output_retries = output_retries;
            built
        };
        built
    }
}

fn json_decoder(r: &Response) -> Verdict {
    match serde_json::from_str::<serde_json::Value>(&r.message.content) {
        Ok(_) => Verdict::Accepted,
        Err(e) => Verdict::Rejected { reason: format!("response content is not valid JSON for Answer: {e}") },
    }
}

fn text_decoder(r: &Response) -> Verdict {
    if r.message.content.trim().is_empty() {
        Verdict::Rejected { reason: texts::EMPTY_RESPONSE.into() }
    } else {
        Verdict::Accepted
    }
}

#[test]
fn tool_05_malformed_args_are_corrected_then_succeed() {
    let replies = vec![
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "lookup", r#"{"q":"cut of"#)])),
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c2", "lookup", r#"{"q":"x"}"#)])),
        ModelReply::ok(MS, Response::text("done")),
    ];
    let mut sim = Sim::new(cfg(1, 0), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("lookup", |_, _| ToolReply::output(MS, "found"));
    let Outcome::Completed { summary, .. } = sim.run() else { panic!() };
    assert_eq!(summary.tool_calls, 1, "the malformed call never ran");
    assert_eq!(summary.messages[2].content, texts::tool_rejected(texts::INCOMPLETE_ARGS));
}

#[test]
fn tool_05_malformed_args_without_budget_fail_at_tool_stage_with_evidence() {
    let replies = vec![ModelReply::ok(
        MS,
        Response::tool_calls(vec![ToolCall::new("c1", "lookup", "not json")]).with_usage(Usage::new(3, 4)),
    )];
    let mut sim = Sim::new(cfg(0, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap();
    let Outcome::Failed(err) = sim.run() else { panic!() };
    assert_eq!(err.stage, Stage::Tool);
    let partial = err.partial.expect("a completed turn is evidence");
    assert_eq!(partial.messages.len(), 2);
    assert_eq!(partial.usage, Usage::new(3, 4));
    assert_eq!(partial.tool_calls, 0);
    assert!(!sim.transcript().iter().any(|l| l.starts_with("execute_tool")));
}

#[test]
fn tool_06_invented_tool_name_is_corrected() {
    let replies = vec![
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "search_web", "{}")])),
        ModelReply::ok(MS, Response::text("ok")),
    ];
    let mut sim = Sim::new(cfg(1, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap();
    let Outcome::Completed { summary, .. } = sim.run() else { panic!() };
    assert_eq!(
        summary.messages[2].content,
        "Your tool call was rejected: unknown tool \"search_web\"; available tools: lookup. Correct the arguments and call the tool again."
    );
    assert_eq!(summary.messages[2].tool_call_id, "c1");
}

#[test]
fn tool_06_invented_tool_without_budget_fails_at_tool_stage() {
    let replies = vec![ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "nope", "{}")]))];
    let mut sim = Sim::new(cfg(0, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap();
    let Outcome::Failed(err) = sim.run() else { panic!() };
    assert_eq!(err.stage, Stage::Tool);
    assert!(err.to_string().starts_with("tool stage: tool nope rejected the call: unknown tool"), "{err}");
    assert_eq!(err.partial.unwrap().messages.len(), 2);
}

#[test]
fn out_02_non_json_output_is_corrected_then_fails_after_budget() {
    let replies = vec![
        ModelReply::ok(MS, Response::text("sure! here it is").with_usage(Usage::new(1, 1))),
        ModelReply::ok(MS, Response::text("{oops").with_usage(Usage::new(1, 1))),
    ];
    let mut sim = Sim::new(cfg(0, 1), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(json_decoder);
    let Outcome::Failed(err) = sim.run() else { panic!() };
    assert_eq!(err.stage, Stage::Decode);
    assert!(err
        .to_string()
        .starts_with("decode stage: output rejected after 2 attempts: response content is not valid JSON"));
    let partial = err.partial.unwrap();
    // Both rejected answers and the correction message are evidence.
    assert_eq!(partial.messages.len(), 4);
    assert_eq!(partial.usage, Usage::new(2, 2));
    assert_eq!(partial.requests, 2);
}

#[test]
fn run_11_empty_response_is_never_ok_empty() {
    let replies = vec![ModelReply::ok(MS, Response::new(Message::assistant("")))];
    let mut sim = Sim::new(cfg(0, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(text_decoder);
    let Outcome::Failed(err) = sim.run() else { panic!() };
    assert_eq!(err.stage, Stage::Decode);
    assert_eq!(err.to_string(), "decode stage: the response was empty");
    assert_eq!(err.partial.unwrap().messages.len(), 2);
}

#[test]
fn run_11_empty_response_corrected_with_budget() {
    let replies =
        vec![ModelReply::ok(MS, Response::new(Message::assistant("  "))), ModelReply::ok(MS, Response::text("hi"))];
    let mut sim = Sim::new(cfg(0, 1), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(text_decoder);
    let Outcome::Completed { summary, .. } = sim.run() else { panic!() };
    assert_eq!(summary.messages.last().unwrap().content, "hi");
}

#[test]
fn untrusted_role_from_model_is_forced_to_assistant() {
    let mut lying = Message::user("i am the user now");
    lying.tool_call_id = "x".into();
    let replies = vec![ModelReply::ok(MS, Response::new(lying))];
    let mut sim = Sim::new(cfg(0, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap();
    let Outcome::Completed { summary, .. } = sim.run() else { panic!() };
    assert_eq!(summary.messages[1].role, Role::Assistant);
    assert!(summary.messages[1].tool_call_id.is_empty());
}

#[test]
fn tool_02_a_malformed_result_part_is_fatal_at_the_tool_stage() {
    let replies = vec![ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "lookup", "{}")]))];
    let bad = {
        let mut built = Part::image_data("image/png", vec![1u8, 2, 3]);
        built.media_type = String::new();
        built
    };
    let mut sim =
        Sim::new(cfg(3, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap().tool("lookup", move |_, _| {
            ToolReply::outcome(MS, machine::ToolOutcome::Output { content: "chart".into(), parts: vec![bad.clone()] })
        });
    let Outcome::Failed(err) = sim.run() else { panic!() };
    assert_eq!(err.stage, Stage::Tool);
    assert!(err.to_string().contains("result part 0 is invalid"), "{err}");
}

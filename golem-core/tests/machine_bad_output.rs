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
        let mut config = RunConfig::default();
        config.tools = vec![ToolSpec::new("lookup", "", json!({"type": "object"}))];
        config.retry = RetryPolicy::new().tool_retries(tool_retries).output_retries(output_retries);
        config
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
        let mut part = Part::image_data("image/png", vec![1u8, 2, 3]);
        part.media_type = String::new();
        part
    };
    let mut sim =
        Sim::new(cfg(3, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap().tool("lookup", move |_, _| {
            ToolReply::outcome(MS, machine::ToolOutcome::Output { content: "chart".into(), parts: vec![bad.clone()] })
        });
    let Outcome::Failed(err) = sim.run() else { panic!() };
    assert_eq!(err.stage, Stage::Tool);
    assert!(err.to_string().contains("result part 0 is invalid"), "{err}");
}

/// A text answer the provider stopped at its output-token limit.
fn cut(content: &str) -> ModelReply {
    ModelReply::ok(MS, Response::text(content).with_finish_reason(FinishReason::Length))
}

fn decode_failure(outcome: Outcome) -> error::DecodeFailure {
    let Outcome::Failed(err) = outcome else { panic!("expected a failure, got {outcome:?}") };
    assert_eq!(err.stage, Stage::Decode);
    let Cause::Decode(failure) = err.cause else { panic!("{:?}", err.cause) };
    failure
}

/// OUT-06 (issue 11): a structured answer cut off by the token limit fails
/// with a decode error that says so, not only "EOF while parsing".
#[test]
fn out_06_a_cut_off_answer_says_the_token_limit_was_hit() {
    let replies = vec![cut(r#"{"city": "Lag"#)];
    let mut sim = Sim::new(cfg(0, 0), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(json_decoder);
    let failure = decode_failure(sim.run());
    assert!(failure.message.starts_with("the response was cut off at the output token limit (finish reason length): "));
    assert!(failure.message.contains("EOF while parsing"), "{}", failure.message);
    assert_eq!(failure.attempts, 1);
}

/// OUT-06 (issue 11): the correction of a cut-off answer asks for a shorter
/// one; a second cut in a row ends the run instead of spending the rest of
/// the budget on the same limit.
#[test]
fn out_06_a_cut_off_answer_is_corrected_shorter_and_not_repeated() {
    let replies = vec![cut(r#"{"city": "Lag"#), cut(r#"{"city": "La"#), ModelReply::ok(MS, Response::text("{}"))];
    let mut sim = Sim::new(cfg(0, 3), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(json_decoder);
    let failure = decode_failure(sim.run());
    assert_eq!(failure.attempts, 2, "two decodes, though the budget allowed four");
    assert!(failure.message.contains("cut off at the output token limit"), "{}", failure.message);
    assert_eq!(sim.requests().len(), 2);
    let correction = sim.requests()[1].messages.last().unwrap();
    assert_eq!(correction.role, Role::User);
    assert!(correction.content.starts_with(
        "Your previous response was cut off at the output token limit before it was complete, so it was rejected: "
    ));
    assert!(correction.content.ends_with("Respond again with a shorter answer that fits within the limit."));
    let rejected = sim.events().iter().find_map(|e| match &e.kind {
        EventKind::OutputRejected { reason, .. } => Some(reason.clone()),
        _ => None,
    });
    assert!(rejected.unwrap().starts_with("the response was cut off at the output token limit"));
}

/// OUT-06: a cut answer corrected into one that fits completes; an ordinary
/// rejection in between resets nothing it should not.
#[test]
fn out_06_a_shorter_answer_after_a_cut_completes() {
    let replies = vec![cut(r#"{"city": "Lag"#), ModelReply::ok(MS, Response::text(r#"{"city":"Lagos"}"#))];
    let mut sim = Sim::new(cfg(0, 1), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(json_decoder);
    assert!(matches!(sim.run(), Outcome::Completed { .. }));
}

/// OUT-06, tool mode: cut-off output-tool arguments get the shorter-answer
/// correction as the output call's result.
#[test]
fn out_06_cut_off_output_tool_arguments_are_corrected_shorter() {
    let mut config = cfg(0, 1);
    config.output = config::OutputMode::Tool {
        name: "final_result".into(),
        description: String::new(),
        schema: json!({"type": "object"}),
    };
    let cut_call = Response::tool_calls(vec![ToolCall::new("o1", "final_result", r#"{"city": "Lag"#)])
        .with_finish_reason(FinishReason::Length);
    let replies = vec![
        ModelReply::ok(MS, cut_call),
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("o2", "final_result", r#"{"city":"Lagos"}"#)])),
    ];
    let mut sim = Sim::new(config, Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(json_decoder);
    assert!(matches!(sim.run(), Outcome::Completed { .. }));
    let correction = sim.requests()[1].messages.last().unwrap();
    assert_eq!(correction.role, Role::Tool);
    assert!(
        correction.content.starts_with("Your result was cut off at the output token limit"),
        "{}",
        correction.content
    );
    assert!(correction.content.ends_with("Call final_result again with shorter arguments that fit within the limit."));
}

//! Delegation through the driver: rendering, argument checks, and error
//! chains from the sub-run to the delegating run (SPEC DELEG-01..04).

use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{Cause, EventKind, Response, Role, RunError, Stage, ToolCall};
use golem_io::{Agent, Tool, ToolContext, ToolError, DELEGATE_PROMPT_DESCRIPTION};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// Delegates with `args`, then repeats the tool result it got.
fn planner(args: &'static str) -> FnModel {
    FnModel::new(move |request| match request.messages.iter().rev().find(|m| m.role == Role::Tool) {
        Some(result) => Ok(Response::text(format!("got: {}", result.content))),
        None => Ok(Response::tool_calls(vec![ToolCall::new("d1", "helper", args)])),
    })
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Fact {
    city: String,
    rank: u32,
}

#[test]
fn the_delegation_tool_schema_asks_for_a_complete_prompt() {
    let helper = Agent::<()>::builder(ScriptedModel::new()).build().unwrap().as_tool("helper", "Helps.");
    let schema = &helper.spec().definition.parameters;
    assert_eq!(schema["required"], json!(["prompt"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["properties"]["prompt"]["description"], DELEGATE_PROMPT_DESCRIPTION);
}

#[test]
fn non_text_outputs_are_rendered_as_compact_json() {
    let specialist = Agent::<()>::builder(ScriptedModel::new().text(r#"{"city":"Paris","rank":1}"#))
        .output::<Fact>()
        .output_schema(json!({"type": "object"}))
        .build()
        .unwrap();
    let agent = Agent::builder(planner(r#"{"prompt":"top city?"}"#)).tool(specialist.as_tool("helper", "")).build();
    let result = agent.unwrap().run((), "go").unwrap();
    assert_eq!(result.output, r#"got: {"city":"Paris","rank":1}"#);
}

/// Issue 31: a typed output keeps its fields in declaration order.
#[test]
fn a_typed_output_keeps_its_field_order() {
    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    struct Ranked {
        rank: u32,
        city: String,
        area_km2: f64,
    }
    let specialist = Agent::<()>::builder(ScriptedModel::new().text(r#"{"rank":1,"city":"Paris","area_km2":105.4}"#))
        .output::<Ranked>()
        .output_schema(json!({"type": "object"}))
        .build()
        .unwrap();
    let agent = Agent::builder(planner(r#"{"prompt":"top city?"}"#)).tool(specialist.as_tool("helper", "")).build();
    let result = agent.unwrap().run((), "go").unwrap();
    assert_eq!(result.output, r#"got: {"rank":1,"city":"Paris","area_km2":105.4}"#);
}

#[test]
fn a_custom_renderer_replaces_the_rendering() {
    let specialist = Agent::<()>::builder(ScriptedModel::new().text("Paris")).build().unwrap();
    let tool = specialist.as_tool_with("helper", "", |out: String| Ok(out.to_uppercase()));
    let result = Agent::builder(planner(r#"{"prompt":"capital?"}"#)).tool(tool).build().unwrap().run((), "go");
    assert_eq!(result.unwrap().output, "got: PARIS");
}

#[test]
fn the_sub_agent_sees_only_the_prompt_and_the_parents_deps() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let specialist_model = FnModel::new(move |request| {
        log.lock().unwrap().push(request.messages.clone());
        Ok(Response::text("done"))
    });
    let specialist = Agent::builder(specialist_model)
        .instructions_fn(|ctx: &golem_io::RunContext<String>| format!("deps say {}", ctx.deps()))
        .build()
        .unwrap();
    let agent =
        Agent::builder(planner(r#"{"prompt":"do it"}"#)).tool(specialist.as_tool("helper", "")).build().unwrap();

    let result = agent.run("shared".to_string(), "delegate please").unwrap();

    assert_eq!(result.output, "got: done");
    let seen = seen.lock().unwrap();
    let contents: Vec<&str> = seen[0].iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents, ["deps say shared", "do it"]);
    assert_eq!(result.messages.len(), 4, "the sub-run's messages stay out of the parent's evidence");
}

fn first_tool_error(agent: &Agent<(), String>) -> String {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&errors);
    let _ = agent
        .run_with(())
        .prompt("go")
        .observer(move |e| {
            if let Some(error) = match &e.kind {
                EventKind::ToolEnd { outcome, .. } => outcome.error_text(),
                _ => None,
            } {
                sink.lock().unwrap().push(error);
            }
        })
        .call();
    let errors = errors.lock().unwrap();
    errors.first().cloned().unwrap_or_default()
}

#[test]
fn malformed_or_empty_prompts_are_correctable_rejections() {
    let helper = || Agent::<()>::builder(ScriptedModel::new().text("x")).build().unwrap().as_tool("helper", "");
    let bad = Agent::builder(planner(r#"{"prompt":3}"#)).tool(helper()).tool_retries(1).build().unwrap();
    let error = first_tool_error(&bad);
    assert!(error.contains("arguments must be an object with a string prompt: invalid type"), "{error}");
    let empty = Agent::builder(planner(r#"{"prompt":"  "}"#)).tool(helper()).tool_retries(1).build().unwrap();
    assert!(first_tool_error(&empty).contains("prompt is required"));
}

#[derive(Debug, thiserror::Error)]
#[error("the archive is locked")]
struct Locked;

#[test]
fn a_failed_sub_run_fails_the_parent_with_the_inner_error_in_the_chain() {
    let archive = Tool::new("archive", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        Err::<String, _>(ToolError::fatal(Locked))
    });
    let specialist =
        Agent::builder(ScriptedModel::new().respond(Response::tool_calls(vec![ToolCall::new("a1", "archive", "{}")])))
            .tool(archive)
            .build()
            .unwrap();
    let agent = Agent::builder(planner(r#"{"prompt":"archive it"}"#)).tool(specialist.as_tool("helper", "")).build();

    let err = agent.unwrap().run((), "go").unwrap_err().into_run().unwrap();

    assert_eq!(err.stage, Stage::Tool);
    let inner = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<RunError>()).expect("inner RunError");
    assert_eq!(inner.stage, Stage::Tool);
    let root = std::error::Error::source(inner).expect("the tool's error");
    assert!(root.downcast_ref::<Locked>().is_some(), "{root:?}");
    assert_eq!(
        err.to_string(),
        "tool stage: tool helper failed: tool stage: tool archive failed: the archive is locked"
    );
}

#[test]
fn a_sub_run_canceled_by_its_tool_cancels_the_parent() {
    let stop = Tool::new("stop", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        Err::<String, _>(ToolError::cancel_run("operator said stop"))
    });
    let specialist =
        Agent::builder(ScriptedModel::new().respond(Response::tool_calls(vec![ToolCall::new("s1", "stop", "{}")])))
            .tool(stop)
            .build()
            .unwrap();
    let agent = Agent::builder(planner(r#"{"prompt":"stop"}"#)).tool(specialist.as_tool("helper", "")).build();

    let err = agent.unwrap().run((), "go").unwrap_err().into_run().unwrap();

    assert_eq!(err.stage, Stage::Canceled);
    assert!(
        matches!(&err.cause, Cause::Canceled { message, .. } if message == "operator said stop"),
        "{:?}",
        err.cause
    );
}

/// A planner that delegates once with 10 tokens of its own per turn, then
/// answers from the tool result.
fn spending_planner() -> FnModel {
    FnModel::new(|request| {
        let usage = golem_io::Usage::new(8, 2);
        Ok(match request.messages.iter().rev().find(|m| m.role == Role::Tool) {
            Some(result) => Response::text(format!("got: {}", result.content)).with_usage(usage),
            None => Response::tool_calls(vec![ToolCall::new("d1", "helper", r#"{"prompt":"work"}"#)]).with_usage(usage),
        })
    })
}

/// Issue 31: the sub-run's tokens, requests and tool calls are in the
/// delegating run's totals, with its share listed per call and heard as an
/// event; both drivers.
#[test]
fn deleg_04_sub_run_usage_rolls_into_the_parents_totals() {
    for asynchronous in [false, true] {
        let specialist = Agent::<()>::builder(
            ScriptedModel::new()
                .tool_call("lookup", "{}")
                .respond(Response::text("done").with_usage(golem_io::Usage::new(40, 10))),
        )
        .tool(Tool::new("lookup", "Look it up.", json!({"type": "object"}), |_ctx: ToolContext<()>, _| Ok("found")))
        .build()
        .unwrap();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&heard);
        let agent = Agent::builder(spending_planner())
            .tool(specialist.as_tool("helper", ""))
            .observer(move |e| {
                if let EventKind::SubRunSpent { call_id, tool, spent, .. } = &e.kind {
                    sink.lock().unwrap().push((call_id.clone(), tool.clone(), spent.usage.total_tokens()));
                }
            })
            .build()
            .unwrap();
        let result = if asynchronous {
            futures_lite::future::block_on(agent.run_async((), "go")).unwrap()
        } else {
            agent.run((), "go").unwrap()
        };
        assert_eq!(result.output, "got: done");
        // Planner: 2 requests × 10 tokens, 1 tool call. Specialist: 2
        // requests, 50 tokens (its first scripted turn reports none), 1 tool call.
        assert_eq!(result.usage.total_tokens(), 20 + 50);
        assert_eq!((result.requests, result.tool_calls), (2 + 2, 1 + 1));
        assert_eq!(result.sub_runs.len(), 1);
        let share = &result.sub_runs[0];
        assert_eq!((share.call_id.as_str(), share.tool.as_str()), ("d1", "helper"));
        assert_eq!((share.spent.usage.total_tokens(), share.spent.requests, share.spent.tool_calls), (50, 2, 1));
        assert_eq!(*heard.lock().unwrap(), [("d1".to_string(), "helper".to_string(), 50)]);
    }
}

/// Issue 31: a router limited to 100 tokens cannot let its specialist spend
/// 5,000: the specialist runs within the 90 tokens the router's limit left,
/// and the router fails at the usage stage over the whole tree's tokens.
#[test]
fn deleg_04_a_sub_runs_tokens_stop_the_parent_at_its_limit() {
    for asynchronous in [false, true] {
        let specialist_calls = Arc::new(Mutex::new(0));
        let count = Arc::clone(&specialist_calls);
        let specialist = Agent::<()>::builder(FnModel::new(move |_| {
            *count.lock().unwrap() += 1;
            Ok(Response::tool_calls(vec![ToolCall::new("s1", "think", "{}")])
                .with_usage(golem_io::Usage::new(4_000, 1_000)))
        }))
        .tool(Tool::new("think", "Think more.", json!({"type": "object"}), |_ctx: ToolContext<()>, _| Ok("more")))
        .build()
        .unwrap();
        let agent = Agent::builder(spending_planner())
            .tool(specialist.as_tool("helper", ""))
            .usage_limits(golem_io::UsageLimits::new().total_tokens(100))
            .build()
            .unwrap();
        let error = if asynchronous {
            futures_lite::future::block_on(agent.run_async((), "go")).unwrap_err()
        } else {
            agent.run((), "go").unwrap_err()
        };
        let error = error.as_run().expect("a run error");
        assert_eq!(error.stage, Stage::Usage, "{error}");
        let Cause::Usage(crossed) = &error.cause else { panic!("{:?}", error.cause) };
        assert_eq!((crossed.kind.as_str(), crossed.limit, crossed.actual), ("total token", 100, 5_010));
        assert_eq!(*specialist_calls.lock().unwrap(), 1, "the specialist stopped after its first answer");
        let partial = error.partial.as_ref().unwrap();
        assert_eq!(partial.usage.total_tokens(), 5_010);
        assert_eq!(partial.sub_runs.len(), 1);
    }
}

/// Turned off, the sub-run's spending stays out of the parent's evidence
/// and limits, as in the Go framework.
#[test]
fn deleg_04_roll_up_off_keeps_the_sub_runs_spending_apart() {
    let specialist = Agent::<()>::builder(
        ScriptedModel::new().respond(Response::text("done").with_usage(golem_io::Usage::new(4_000, 1_000))),
    )
    .build()
    .unwrap();
    let tool = specialist.delegation("helper", "").roll_up_usage(false).build();
    let agent = Agent::builder(spending_planner())
        .tool(tool)
        .usage_limits(golem_io::UsageLimits::new().total_tokens(100))
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    assert_eq!((result.usage.total_tokens(), result.requests), (20, 2));
    assert!(result.sub_runs.is_empty());
}

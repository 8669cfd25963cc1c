//! Spot checks of machine behaviour seen through the driver, named for the
//! SPEC items they pin.

use golem_core::testing::ScriptedModel;
use golem_core::{texts, Approval, DeferredResults, EventKind, Response, Role, Stage, ToolCall, UsageLimits};
use golem_io::{Agent, JsonDecoder, Tool, ToolContext, ToolError};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn counting_tool(name: &str, runs: Arc<AtomicUsize>) -> Tool<()> {
    Tool::new(name, "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
        runs.fetch_add(1, Ordering::SeqCst);
        Ok("ran")
    })
}

#[test]
fn tool_06_an_unknown_tool_without_budget_fails_before_the_batch_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let calls = vec![ToolCall::new("a", "known", "{}"), ToolCall::new("b", "ghost", "{}")];
    let model = ScriptedModel::new().respond(Response::tool_calls(calls)).text("never");
    let agent = Agent::builder(model).tool(counting_tool("known", Arc::clone(&runs))).build().unwrap();
    let err = agent.run((), "go").unwrap_err();
    assert_eq!(err.stage(), Some(Stage::Tool));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[test]
fn out_05_calls_co_emitted_with_the_output_tool_are_not_executed() {
    let runs = Arc::new(AtomicUsize::new(0));
    let calls = vec![ToolCall::new("o", "report", r#"{"n":1}"#), ToolCall::new("x", "side", "{}")];
    let model = ScriptedModel::new().respond(Response::tool_calls(calls));
    let agent = Agent::builder(model)
        .tool(counting_tool("side", Arc::clone(&runs)))
        .decoder(JsonDecoder::<serde_json::Value>::new())
        .output_tool("report", "", json!({"type": "object"}))
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    assert_eq!(result.output, json!({"n": 1}));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let side = result.messages.iter().find(|m| m.role == Role::Tool && m.tool_call_id == "x").unwrap();
    assert_eq!(side.content, texts::INTERRUPTED_RESULT);
    assert_eq!(result.tool_calls, 0);
}

#[test]
fn usage_04_a_batch_that_does_not_fit_the_tool_call_limit_is_refused_whole() {
    let runs = Arc::new(AtomicUsize::new(0));
    let calls = vec![ToolCall::new("a", "t", "{}"), ToolCall::new("b", "t", "{}")];
    let model = ScriptedModel::new().respond(Response::tool_calls(calls)).text("never");
    let agent = Agent::builder(model)
        .tool(counting_tool("t", Arc::clone(&runs)))
        .usage_limits(UsageLimits::new().tool_calls(1))
        .build()
        .unwrap();
    let err = agent.run((), "go").unwrap_err();
    assert_eq!(err.stage(), Some(Stage::Usage));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[test]
fn defer_04_approved_re_runs_emit_flagged_events_under_the_tool_timeout() {
    let gated = Tool::new("gated", "", json!({"type": "object"}), |ctx: ToolContext<()>, _| {
        if ctx.is_approved() {
            assert!(ctx.deadline().is_some(), "the tool's timeout applies to the approved re-run");
            Ok("done")
        } else {
            Err(ToolError::approval("ok?"))
        }
    });
    let model = ScriptedModel::new().tool_call("gated", "{}").text("finished");
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let agent = Agent::builder(model)
        .tool(gated.timeout(Duration::from_secs(5)))
        .observer(move |e| sink.lock().unwrap().push(e.kind.clone()))
        .build()
        .unwrap();

    let paused = agent.run((), "go").unwrap_err().into_paused().unwrap();
    let call_id = paused.deferred.approvals[0].call_id.clone();
    let resumed = agent.resume((), paused.messages, DeferredResults::new().approval(call_id, Approval::approve()));

    assert_eq!(resumed.unwrap().output, "finished");
    let events = events.lock().unwrap();
    assert!(events.iter().any(|k| matches!(k, EventKind::ToolStart { approved: true, .. })));
    assert!(events.iter().any(|k| matches!(k, EventKind::ToolEnd { approved: true, .. })));
}

#[test]
fn err_05_a_run_that_did_nothing_has_no_partial_evidence() {
    let model = ScriptedModel::new().fail(golem_core::ModelError::api(400, "bad request"));
    let agent = Agent::<()>::builder(model).build().unwrap();
    let err = agent.run((), "go").unwrap_err().into_run().unwrap();
    assert_eq!(err.stage, Stage::Model);
    assert!(err.partial.is_none());
    assert_eq!(err.requests, 1);
}

#[test]
fn run_07_max_iterations_bounds_turns_across_correction_rounds() {
    let model = ScriptedModel::new().text("a").text("b").text("c").text("d");
    let agent = Agent::<()>::builder(model)
        .decoder(golem_io::decode_fn(|_ctx, _: &Response| Err::<String, _>(golem_io::DecodeError::retry("again"))))
        .output_retries(5)
        .max_iterations(2)
        .build()
        .unwrap();
    assert_eq!(agent.run((), "go").unwrap_err().stage(), Some(Stage::Loop));
}

#[test]
fn tool_10_a_timeout_can_be_shown_to_the_model_and_the_late_answer_is_dropped() {
    let slow = Tool::new("slow", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        std::thread::sleep(Duration::from_millis(150));
        Ok("finally")
    });
    // The second model call outlasts the abandoned tool, so its late answer
    // arrives while the run is still going.
    let model = golem_core::testing::FnModel::new(|request| {
        if request.messages.iter().any(|m| m.role == Role::Tool) {
            std::thread::sleep(Duration::from_millis(300));
            return Ok(Response::text("moved on"));
        }
        Ok(Response::tool_calls(vec![ToolCall::new("s", "slow", "{}")]))
    });
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let agent = Agent::builder(model)
        .tool(slow.timeout(Duration::from_millis(30)).on_timeout(golem_core::tool::TimeoutPolicy::FailedResult))
        .observer(move |e| sink.lock().unwrap().push(e.kind.clone()))
        .build()
        .unwrap();

    let result = agent.run((), "go").unwrap();

    assert_eq!(result.output, "moved on");
    let shown = result.messages.iter().find(|m| m.role == Role::Tool).unwrap();
    assert!(shown.failed, "{shown:?}");
    assert!(events.lock().unwrap().iter().any(|k| matches!(k, EventKind::LateResult { .. })));
}

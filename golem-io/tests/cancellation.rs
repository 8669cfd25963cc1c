//! Caller cancellation through the blocking driver (SPEC DRV-05, MACH-07,
//! DELEG-03/04).

use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{EventKind, Response, Stage, ToolCall};
use golem_io::{Agent, CancellationToken};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

fn slow_model(delay: Duration) -> FnModel {
    FnModel::new(move |_| {
        thread::sleep(delay);
        Ok(Response::text("too late"))
    })
}

#[test]
fn cancelling_stops_a_run_blocked_on_a_model_call() {
    let agent = Agent::<()>::builder(slow_model(Duration::from_secs(3))).build().unwrap();
    let token = CancellationToken::new();
    let canceller = token.clone();
    thread::spawn(move || {
        thread::sleep(Duration::from_millis(50));
        canceller.cancel();
    });

    let started = Instant::now();
    let err = agent.run_with(()).prompt("hi").cancellation(token).call().unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    assert!(err.is_canceled(), "{err:?}");
    assert_eq!(err.stage(), Some(Stage::Model));
}

#[test]
fn a_token_canceled_before_the_run_stops_it_before_any_request() {
    let model = ScriptedModel::new().text("never");
    let agent = Agent::<()>::builder(model.clone()).build().unwrap();
    let token = CancellationToken::new();
    token.cancel();

    let err = agent.run_with(()).prompt("hi").cancellation(token).call().unwrap_err();

    assert!(err.is_canceled());
    assert_eq!(model.request_count(), 0);
}

/// The machine counts a request when it commands `CallModel`, so a call the
/// caller cancels before the driver starts it still counts, though no
/// provider call was made (SPEC USAGE-06: requests = provider calls). The
/// machine has no "model call started" input to tell the two apart.
#[test]
fn one_token_serves_many_runs_until_canceled() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("a").text("b")).build().unwrap();
    let token = CancellationToken::new();
    for expected in ["a", "b"] {
        let result = agent.run_with(()).prompt("hi").cancellation(token.clone()).call().unwrap();
        assert_eq!(result.output, expected);
    }
}

#[test]
fn a_sub_run_stops_when_the_parent_gives_up_on_the_delegation() {
    let sub_canceled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&sub_canceled);
    let specialist = Agent::<()>::builder(slow_model(Duration::from_secs(3)))
        .observer(move |e| {
            if matches!(e.kind, EventKind::Canceled { .. }) {
                flag.store(true, Ordering::SeqCst);
            }
        })
        .build()
        .unwrap();
    let planner = ScriptedModel::new().respond(Response::tool_calls(vec![ToolCall::new(
        "d1",
        "helper",
        r#"{"prompt":"think hard"}"#,
    )]));
    let agent = Agent::builder(planner)
        .tool(specialist.as_tool("helper", "").timeout(Duration::from_millis(50)))
        .build()
        .unwrap();

    let started = Instant::now();
    let err = agent.run((), "go").unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    assert_eq!(err.stage(), Some(Stage::Tool));
    let give_up = Instant::now() + Duration::from_secs(1);
    while !sub_canceled.load(Ordering::SeqCst) && Instant::now() < give_up {
        thread::sleep(Duration::from_millis(5));
    }
    assert!(sub_canceled.load(Ordering::SeqCst), "the sub-run inherited the cancellation");
}

/// SPEC MACH-07 `AfterTurn`: the batch under way finishes and its results
/// stay in the evidence; the next model call never happens. The tool fires
/// the token as it finishes, so the driver sees the cancellation and the
/// tool's answer together: the cancellation must reach the machine first. An
/// async tool does both within one poll, which pins that order every time;
/// a plain closure does them on a worker thread.
#[test]
fn mach_07_cancel_after_turn_lets_the_batch_finish() {
    for (async_driver, async_tool) in [(false, false), (true, false), (false, true), (true, true)] {
        let token = CancellationToken::new();
        let stopper = token.clone();
        let model = ScriptedModel::new()
            .respond(Response::tool_calls(vec![ToolCall::new("c1", "wrap_up", "{}")]))
            .text("never asked");
        let (name, description) = ("wrap_up", "Finish and ask the run to stop after this turn.");
        let wrap_up = if async_tool {
            golem_io::Tool::new_async(name, description, serde_json::json!({"type": "object"}), move |_, _| {
                let stopper = stopper.clone();
                async move {
                    stopper.cancel_after_turn();
                    Ok("wrapped up")
                }
            })
        } else {
            golem_io::Tool::new(name, description, serde_json::json!({"type": "object"}), move |_, _| {
                stopper.cancel_after_turn();
                Ok("wrapped up")
            })
        };
        let agent = Agent::builder(model.clone()).tool(wrap_up).build().unwrap();
        let run = agent.run_with(()).prompt("go").cancellation(token);
        let result = if async_driver { futures_lite::future::block_on(run.call_async()) } else { run.call() };
        let case = format!("async driver {async_driver}, async tool {async_tool}");
        let err = result.map(|r| r.output).expect_err(&case);
        let run_error = err.as_run().expect("a run error");
        assert_eq!(run_error.stage, Stage::Model, "{case}");
        assert!(err.is_canceled(), "{case}");
        let partial = run_error.partial.as_ref().expect("evidence");
        assert_eq!(partial.messages.last().map(|m| m.content.as_str()), Some("wrapped up"), "{case}");
        assert_eq!(model.request_count(), 1, "no model call after the turn ({case})");
    }
}

/// ERR-01 (issue 11): every public name spells `canceled` — the token's
/// methods, its future, the tool context's check, the stage.
#[test]
fn err_01_public_names_spell_canceled() {
    let token = CancellationToken::new();
    let canceled: golem_io::Canceled = token.canceled();
    assert!(!token.is_canceled());
    token.cancel();
    assert!(token.is_canceled());
    futures_lite::future::block_on(canceled);
    assert_eq!(Stage::Canceled.to_string(), "canceled");

    let model = ScriptedModel::new().respond(Response::tool_calls(vec![ToolCall::new("c1", "check", "{}")])).text("ok");
    let check = golem_io::Tool::new("check", "", serde_json::json!({"type": "object"}), |ctx, _| {
        Ok(format!("canceled: {}", ctx.is_canceled()))
    });
    let agent = Agent::<()>::builder(model).tool(check).build().unwrap();
    let result = agent.run((), "go").unwrap();
    assert_eq!(result.messages[2].content, "canceled: false");
}

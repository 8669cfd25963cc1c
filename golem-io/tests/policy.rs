//! Machine policy that needs the driver's cooperation: fallback members,
//! backoff waits, model deadlines and parallel failure handling. The driver
//! only executes; these prove it executes what the machine asks, when asked.

use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{Cause, EventKind, ModelError, ModelErrorKind, Response, Stage, ToolCall};
use golem_io::{Agent, Tool, ToolContext, ToolError};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

#[test]
fn a_retryable_failure_falls_back_to_the_next_member() {
    let primary = ScriptedModel::new().fail(ModelError::api(503, "overloaded"));
    let fallback = ScriptedModel::new().text("from the fallback");
    let agent = Agent::<()>::builder(primary.clone()).fallback(fallback.clone()).build().unwrap();

    let result = agent.run((), "hi").unwrap();

    assert_eq!(result.output, "from the fallback");
    assert_eq!((primary.request_count(), fallback.request_count()), (1, 1));
    assert_eq!(result.requests, 2);
}

#[test]
fn retries_wait_out_the_machines_backoff() {
    let model = ScriptedModel::new().fail(ModelError::api(429, "slow down")).text("ok");
    let agent =
        Agent::<()>::builder(model.clone()).max_attempts(2).backoff(|_| Duration::from_millis(80)).build().unwrap();

    let started = Instant::now();
    let result = agent.run((), "hi").unwrap();

    assert!(started.elapsed() >= Duration::from_millis(80), "retried after {:?}", started.elapsed());
    assert_eq!(result.output, "ok");
    assert_eq!(model.request_count(), 2);
}

#[test]
fn a_model_call_past_its_deadline_fails_the_run_at_the_model_stage() {
    let slow = FnModel::new(|_| {
        thread::sleep(Duration::from_secs(3));
        Ok(Response::text("late"))
    });
    let agent = Agent::<()>::builder(slow).model_deadline(Some(Duration::from_millis(50))).build().unwrap();

    let started = Instant::now();
    let err = agent.run((), "hi").unwrap_err().into_run().unwrap();

    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    assert_eq!(err.stage, Stage::Model);
    let Cause::Model(error) = &err.cause else { panic!("{:?}", err.cause) };
    assert_eq!(error.kind, ModelErrorKind::Timeout);
}

#[test]
fn a_fatal_call_in_a_parallel_group_cancels_its_siblings() {
    let sibling_canceled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&sibling_canceled);
    let patient = Tool::new("patient", "", json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
        let give_up = Instant::now() + Duration::from_secs(2);
        while !ctx.is_canceled() && Instant::now() < give_up {
            thread::sleep(Duration::from_millis(5));
        }
        flag.store(ctx.is_canceled(), Ordering::SeqCst);
        Ok("finished anyway")
    });
    let broken = Tool::new("broken", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        thread::sleep(Duration::from_millis(20));
        Err::<String, _>(ToolError::fatal("snapped"))
    });
    let calls = vec![ToolCall::new("p", "patient", "{}"), ToolCall::new("b", "broken", "{}")];
    let model = ScriptedModel::new().respond(Response::tool_calls(calls)).text("never");
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let agent = Agent::builder(model)
        .tools([patient, broken])
        .parallel_tools(true)
        .observer(move |e| sink.lock().unwrap().push(e.kind.clone()))
        .build()
        .unwrap();

    let started = Instant::now();
    let err = agent.run((), "go").unwrap_err().into_run().unwrap();

    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    assert_eq!(err.stage, Stage::Tool);
    assert!(err.to_string().contains("tool broken failed: snapped"), "{err}");
    assert_eq!(std::error::Error::source(&err).map(|s| s.to_string()).as_deref(), Some("snapped"));
    // The sibling is abandoned, not awaited: it notices on its own thread.
    let give_up = Instant::now() + Duration::from_secs(1);
    while !sibling_canceled.load(Ordering::SeqCst) && Instant::now() < give_up {
        thread::sleep(Duration::from_millis(5));
    }
    assert!(sibling_canceled.load(Ordering::SeqCst), "the sibling was told to stop");
    let ends = events.lock().unwrap().iter().filter(|k| matches!(k, EventKind::ToolEnd { .. })).count();
    assert_eq!(ends, 2, "both calls of the group end");
}

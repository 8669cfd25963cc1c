//! The blocking driver end to end: deps, placement of work on threads,
//! emission order, deadlines, panics, observers, streaming and clocks.

use golem_core::error::ToolFailureKind;
use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{Cause, EventKind, Message, Response, Role, RunEvent, Stage, ToolCall};
use golem_io::{Agent, ManualClock, Tool, ToolContext, ToolError};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

fn calls(names: &[(&str, &str)]) -> Response {
    let calls = names.iter().map(|(id, name)| ToolCall::new(*id, *name, "{}")).collect();
    Response::tool_calls(calls)
}

fn tool_messages(messages: &[Message]) -> Vec<(String, String)> {
    messages.iter().filter(|m| m.role == Role::Tool).map(|m| (m.tool_call_id.clone(), m.content.clone())).collect()
}

fn recorder() -> (Arc<Mutex<Vec<RunEvent>>>, impl Fn(&RunEvent) + Send + Sync + 'static) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    (events, move |e: &RunEvent| sink.lock().unwrap().push(e.clone()))
}

struct Counter {
    hits: AtomicUsize,
}

#[test]
fn tools_share_the_runs_deps_arc() {
    let deps = Arc::new(Counter { hits: AtomicUsize::new(0) });
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_in_tool = Arc::clone(&seen);
    let count = Tool::new("count", "", json!({"type": "object"}), move |ctx: ToolContext<Counter>, _| {
        ctx.deps().hits.fetch_add(1, Ordering::SeqCst);
        seen_in_tool.lock().unwrap().push(Arc::as_ptr(ctx.deps_arc()) as usize);
        Ok("counted")
    });
    let model = ScriptedModel::new().respond(calls(&[("a", "count"), ("b", "count")])).text("done");
    let agent = Agent::builder(model).tool(count).build().unwrap();

    let result = agent.run(Arc::clone(&deps), "count twice").unwrap();

    assert_eq!(result.output, "done");
    assert_eq!(deps.hits.load(Ordering::SeqCst), 2);
    let ptr = Arc::as_ptr(&deps) as usize;
    assert_eq!(*seen.lock().unwrap(), vec![ptr, ptr]);
    assert_eq!(result.tool_calls, 2);
}

#[test]
fn sequential_tools_run_on_the_calling_thread() {
    let caller = thread::current().id();
    let here = Tool::new("here", "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
        Ok(format!("{}", thread::current().id() == caller))
    });
    let model = ScriptedModel::new().respond(calls(&[("a", "here")])).text("done");
    let agent = Agent::builder(model).tool(here).build().unwrap();
    let result = agent.run((), "go").unwrap();
    assert_eq!(tool_messages(&result.messages), vec![("a".into(), "true".into())]);
}

#[test]
fn parallel_tools_finishing_out_of_order_keep_emission_order() {
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(Mutex::new(Vec::new()));
    let sleepy = |name: &'static str, ms: u64| {
        let (running, peak, finished) = (Arc::clone(&running), Arc::clone(&peak), Arc::clone(&finished));
        Tool::new(name, "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            thread::sleep(Duration::from_millis(ms));
            running.fetch_sub(1, Ordering::SeqCst);
            finished.lock().unwrap().push(name);
            Ok(name)
        })
    };
    let model = ScriptedModel::new().respond(calls(&[("1", "slow"), ("2", "mid"), ("3", "fast")])).text("done");
    let (events, observer) = recorder();
    let agent = Agent::builder(model)
        .tools([sleepy("slow", 120), sleepy("mid", 60), sleepy("fast", 20)])
        .parallel_tools(true)
        .observer(observer)
        .build()
        .unwrap();

    let result = agent.run((), "go").unwrap();

    assert_eq!(peak.load(Ordering::SeqCst), 3, "the group ran concurrently");
    assert_eq!(*finished.lock().unwrap(), vec!["fast", "mid", "slow"]);
    let expected: Vec<(String, String)> =
        [("1", "slow"), ("2", "mid"), ("3", "fast")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(tool_messages(&result.messages), expected);
    let tool_events: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolStart { call_id, .. } => Some(format!("start {call_id}")),
            EventKind::ToolEnd { call_id, .. } => Some(format!("end {call_id}")),
            _ => None,
        })
        .collect();
    assert_eq!(tool_events, ["start 1", "start 2", "start 3", "end 1", "end 2", "end 3"]);
}

#[test]
fn a_stuck_tool_fails_the_run_at_its_deadline() {
    let stuck = Tool::new("stuck", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        thread::sleep(Duration::from_secs(3));
        Ok("too late")
    });
    let model = ScriptedModel::new().respond(calls(&[("a", "stuck")])).text("never");
    let agent = Agent::builder(model).tool(stuck).tool_timeout(Duration::from_millis(50)).build().unwrap();

    let started = Instant::now();
    let err = agent.run((), "go").unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    let err = err.as_run().unwrap();
    assert_eq!(err.stage, Stage::Tool);
    let Cause::Tool(failure) = &err.cause else { panic!("{:?}", err.cause) };
    assert_eq!(failure.failure, ToolFailureKind::Timeout { after: Duration::from_millis(50) });
}

#[test]
fn a_cooperative_tool_sees_its_cancellation_at_the_deadline() {
    let saw_cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&saw_cancel);
    let polite = Tool::new("polite", "", json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
        assert!(ctx.deadline().is_some() && ctx.remaining().is_some());
        let give_up = Instant::now() + Duration::from_secs(2);
        while !ctx.is_canceled() && Instant::now() < give_up {
            thread::sleep(Duration::from_millis(5));
        }
        flag.store(ctx.is_canceled(), Ordering::SeqCst);
        Err::<String, _>(ToolError::failed("stopped"))
    });
    let model = ScriptedModel::new().respond(calls(&[("a", "polite")])).text("never");
    let agent = Agent::builder(model).tool(polite.timeout(Duration::from_millis(40))).build().unwrap();

    assert_eq!(agent.run((), "go").unwrap_err().stage(), Some(Stage::Tool));
    let give_up = Instant::now() + Duration::from_secs(2);
    while !saw_cancel.load(Ordering::SeqCst) && Instant::now() < give_up {
        thread::sleep(Duration::from_millis(5));
    }
    assert!(saw_cancel.load(Ordering::SeqCst), "the abandoned tool was told to stop");
}

#[derive(Debug, thiserror::Error)]
#[error("disk on fire")]
struct DiskError;

#[test]
fn a_fatal_tool_error_is_the_run_errors_source() {
    let burn = Tool::new("burn", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        Err::<String, _>(ToolError::fatal(DiskError))
    });
    let model = ScriptedModel::new().respond(calls(&[("a", "burn")])).text("never");
    let agent = Agent::builder(model).tool(burn).build().unwrap();

    let err = agent.run((), "go").unwrap_err().into_run().unwrap();

    assert_eq!(err.stage, Stage::Tool);
    assert_eq!(err.to_string(), "tool stage: tool burn failed: disk on fire");
    let source = std::error::Error::source(&err).unwrap();
    assert!(source.downcast_ref::<DiskError>().is_some(), "{source:?}");
}

#[test]
fn a_panicking_tool_fails_the_run_instead_of_the_process() {
    let boom = Tool::new("boom", "", json!({"type": "object"}), |_: ToolContext<()>, _| -> Result<String, ToolError> {
        panic!("kaboom")
    });
    let model = ScriptedModel::new().respond(calls(&[("a", "boom")])).text("never");
    let agent = Agent::builder(model).tool(boom).build().unwrap();
    let err = agent.run((), "go").unwrap_err().into_run().unwrap();
    assert_eq!(err.stage, Stage::Tool);
    assert!(err.to_string().contains("the tool panicked: kaboom"), "{err}");
}

#[test]
fn agent_observers_run_before_run_observers() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (a, r) = (Arc::clone(&log), Arc::clone(&log));
    let agent = Agent::<()>::builder(ScriptedModel::new().text("hi"))
        .observer(move |e| a.lock().unwrap().push(format!("agent {}", e.seq)))
        .build()
        .unwrap();

    agent
        .run_with(())
        .prompt("hello")
        .observer(move |e| r.lock().unwrap().push(format!("run {}", e.seq)))
        .call()
        .unwrap();

    let log = log.lock().unwrap();
    assert!(log.len() >= 4, "{log:?}");
    for (i, pair) in log.chunks(2).enumerate() {
        assert_eq!(pair, [format!("agent {i}"), format!("run {i}")]);
    }
}

#[test]
fn a_panicking_observer_cannot_fail_the_run() {
    let agent =
        Agent::<()>::builder(ScriptedModel::new().text("hi")).observer(|_| panic!("observer bug")).build().unwrap();
    assert_eq!(agent.run((), "hello").unwrap().output, "hi");
}

#[test]
fn streamed_runs_deliver_fragments_as_events_and_the_same_result() {
    let (events, observer) = recorder();
    let agent = Agent::<()>::builder(ScriptedModel::new().chunk_size(5).text("good morning")).build().unwrap();

    let result = agent.run_with(()).prompt("greet").stream(true).observer(observer).call().unwrap();

    assert_eq!(result.output, "good morning");
    let fragments: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Delta { delta: golem_core::Delta::Text { text }, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(fragments.concat(), "good morning");
    assert!(fragments.len() > 1, "{fragments:?}");
}

#[test]
fn a_manual_clock_stamps_every_input() {
    let clock = Arc::new(ManualClock::new());
    let model = FnModel::new(|_| Ok(Response::text("tick-tock")));
    let agent = Agent::<()>::builder(model).model_deadline(None).build().unwrap();
    let result = agent.run_with(()).prompt("time?").clock(clock).call().unwrap();
    assert_eq!(result.output, "tick-tock");
}

#[test]
fn results_serialise_to_json() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("hi")).build().unwrap();
    let result = agent.run((), "hello").unwrap();
    let json = serde_json::to_value(&result).unwrap();
    assert_eq!(json["output"], "hi");
    let ids = (result.run_id(), result.conversation_id());
    let user = json!({"role": "user", "content": "hello", "runId": ids.0, "conversationId": ids.1});
    assert_eq!(json["messages"][0], user);
    assert_eq!(json["requests"], 1);
    assert_eq!(json["runId"], result.run_id());
    assert_eq!(json["messages"][0]["runId"], result.run_id());
    assert_eq!(json["conversationId"], result.conversation_id());
}

#[test]
fn concurrent_runs_share_one_agent() {
    let model = FnModel::new(|r| Ok(Response::text(r.messages.last().map(|m| m.content.clone()).unwrap_or_default())));
    let agent = Agent::<()>::builder(model).build().unwrap();
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let agent = agent.clone();
            thread::spawn(move || agent.run((), &format!("echo {i}")).unwrap().output)
        })
        .collect();
    let outputs: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(outputs, (0..8).map(|i| format!("echo {i}")).collect::<Vec<_>>());
}

//! A delegated sub-run may forward its events to the delegating run's
//! sub-run observers, tagged with the call (SPEC DELEG-04): opt-in on the
//! delegation tool, in the sub-run's own order, under both drivers, and
//! never part of the delegating run's own events or log.

use golem_core::log::EventLog;
use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{Response, Role, RunEvent, ToolCall};
use golem_io::{Agent, ManualClock, SubRunCall, SubRunEvent, Tool};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// Shared, appendable record of what observers heard.
type Heard<T> = Arc<Mutex<Vec<T>>>;

/// Delegates once to `tool` with call id `d1`, then repeats the result.
fn planner(tool: &'static str) -> FnModel {
    FnModel::new(move |request| match request.messages.iter().rev().find(|m| m.role == Role::Tool) {
        Some(result) => Ok(Response::text(format!("got: {}", result.content))),
        None => Ok(Response::tool_calls(vec![ToolCall::new("d1", tool, r#"{"prompt":"dig"}"#)])),
    })
}

/// A specialist that calls its `lookup` tool once, then answers; its own
/// events go to `direct`, to compare with what is forwarded.
fn specialist(direct: &Heard<RunEvent>) -> Agent<()> {
    let lookup = Tool::new("lookup", "", json!({"type": "object"}), |_, _| Ok("42"));
    let direct = Arc::clone(direct);
    Agent::builder(ScriptedModel::new().tool_call("lookup", "{}").text("found it"))
        .tool(lookup)
        .observer(move |event| direct.lock().unwrap().push(event.clone()))
        .build()
        .unwrap()
}

/// A parent delegating to `tool`.
fn parent(tool: Tool<()>) -> Agent<()> {
    Agent::builder(planner("helper")).tool(tool).build().unwrap()
}

/// The event's kind as its JSON tag, e.g. `tool_start`.
fn kind(event: &RunEvent) -> String {
    serde_json::to_value(event).unwrap()["event"].as_str().unwrap().to_string()
}

fn collector<T: Clone + Send + 'static>(heard: &Heard<T>) -> impl Fn(&T) + Send + Sync + 'static {
    let heard = Arc::clone(heard);
    move |item: &T| heard.lock().unwrap().push(item.clone())
}

fn d1() -> Vec<SubRunCall> {
    vec![SubRunCall { call_id: "d1".into(), tool_name: "helper".into() }]
}

/// What the sub-run emitted arrived, all of it, in order, tagged with `d1`.
fn assert_forwarded(forwarded: &[SubRunEvent], direct: &[RunEvent]) {
    assert_eq!(
        direct.iter().map(kind).collect::<Vec<_>>(),
        ["model_start", "model_end", "tool_start", "tool_end", "model_start", "model_end"]
    );
    let events: Vec<RunEvent> = forwarded.iter().map(|e| e.event.clone()).collect();
    assert_eq!(events, direct);
    assert!(events.iter().enumerate().all(|(i, e)| e.seq == i as u64), "the sub-run's own sequence");
    for event in forwarded {
        assert_eq!(event.path, d1());
        assert_eq!((event.call_id(), event.tool_name(), event.depth()), ("d1", "helper", 1));
        assert_eq!(event.innermost_call_id(), "d1");
    }
}

#[test]
fn the_blocking_driver_forwards_the_sub_runs_events_in_order() {
    let (direct, forwarded) = (Heard::default(), Heard::default());
    let tool = specialist(&direct).delegation("helper", "").forward_events(true).build();

    let result = parent(tool).run_with(()).prompt("go").on_sub_run_event(collector(&forwarded)).call().unwrap();

    assert_eq!(result.output, "got: found it");
    assert_forwarded(&forwarded.lock().unwrap(), &direct.lock().unwrap());
}

#[test]
fn the_async_driver_forwards_the_sub_runs_events_in_order() {
    let (direct, forwarded) = (Heard::default(), Heard::default());
    let tool = specialist(&direct).delegation("helper", "").forward_events(true).build();
    let agent = parent(tool);

    let run = agent.run_with(()).prompt("go").on_sub_run_event(collector(&forwarded)).call_async();
    let result = futures_lite::future::block_on(run).unwrap();

    assert_eq!(result.output, "got: found it");
    assert_forwarded(&forwarded.lock().unwrap(), &direct.lock().unwrap());
}

#[test]
fn without_forwarding_nothing_arrives() {
    for forward_off in [false, true] {
        let (direct, forwarded) = (Heard::default(), Heard::<SubRunEvent>::default());
        let tool = match forward_off {
            // The default of every delegation tool…
            false => specialist(&direct).as_tool("helper", ""),
            // …and an explicit off.
            true => specialist(&direct).delegation("helper", "").forward_events(false).build(),
        };
        let agent = parent(tool);
        agent.run_with(()).prompt("go").on_sub_run_event(collector(&forwarded)).call().unwrap();
        let run = agent.run_with(()).prompt("go").on_sub_run_event(collector(&forwarded)).call_async();
        futures_lite::future::block_on(run).unwrap_err(); // the script is spent: the sub-run fails

        assert_eq!(direct.lock().unwrap().len(), 6 + 2, "the sub-runs ran");
        assert!(forwarded.lock().unwrap().is_empty());
    }
}

#[test]
fn forwarded_events_lie_between_the_calls_own_start_and_end() {
    // One log for both audiences, so their interleaving shows.
    let heard: Heard<String> = Heard::default();
    let tool = specialist(&Heard::default()).delegation("helper", "").forward_events(true).build();
    let (own, sub) = (Arc::clone(&heard), Arc::clone(&heard));
    parent(tool)
        .run_with(())
        .prompt("go")
        .observer(move |e| own.lock().unwrap().push(format!("{} {}", e.seq, kind(e))))
        .on_sub_run_event(move |e| sub.lock().unwrap().push(format!("d1/{} {}", e.event.seq, kind(&e.event))))
        .call()
        .unwrap();

    assert_eq!(
        *heard.lock().unwrap(),
        [
            "0 model_start",
            "1 model_end",
            "2 tool_start",
            "d1/0 model_start",
            "d1/1 model_end",
            "d1/2 tool_start",
            "d1/3 tool_end",
            "d1/4 model_start",
            "d1/5 model_end",
            "3 sub_run_spent",
            "4 tool_end",
            "5 model_start",
            "6 model_end",
        ]
    );
}

/// One recorded run of the parent, with or without forwarding: its log
/// (header timestamps aside) and the events its own observer heard.
fn recorded_parent(forward: bool) -> (EventLog, Vec<RunEvent>, usize) {
    let (own, forwarded) = (Heard::default(), Heard::<SubRunEvent>::default());
    let tool = specialist(&Heard::default()).delegation("helper", "").forward_events(forward).build();
    let mut log = Vec::new();
    parent(tool)
        .run_with(())
        .prompt("go")
        .run_id("parent-run")
        .conversation_id("parent-conversation")
        .clock(Arc::new(ManualClock::new()))
        .observer(collector(&own))
        .on_sub_run_event(collector(&forwarded))
        .record(&mut log)
        .call()
        .unwrap();
    let mut log = EventLog::parse(std::str::from_utf8(&log).unwrap()).unwrap();
    log.header.started_at_unix_ms = 0;
    // Each run draws its own jitter seed (SPEC JIT-01); it is no event.
    log.header.start.jitter_seed = None;
    let own = own.lock().unwrap().clone();
    let forwarded = forwarded.lock().unwrap().len();
    (log, own, forwarded)
}

#[test]
fn forwarding_leaves_the_parents_events_and_log_unchanged() {
    let (log_without, own_without, none) = recorded_parent(false);
    let (log_with, own_with, some) = recorded_parent(true);

    assert_eq!((none, some), (0, 6));
    assert_eq!(own_with, own_without, "the parent's own events, seq numbers included");
    assert_eq!(own_with.len(), 7, "six of the run's own and the sub-run's spending");
    assert_eq!(log_with.header, log_without.header);
    assert_eq!(log_with.records, log_without.records);
    assert_eq!(log_with.end, log_without.end);
    // And the log still replays to the run's events.
    golem_core::log::replay(&log_with).unwrap();
}

/// top → `helper` (call d1) → mid agent → `leaf` (call_1) → leaf agent.
fn nested(mid_forwards: bool) -> Agent<()> {
    let leaf = Agent::<()>::builder(ScriptedModel::new().text("leaf answer")).build().unwrap();
    let leaf_tool = leaf.delegation("leaf", "").forward_events(mid_forwards).build();
    let mid_model = ScriptedModel::new().tool_call("leaf", r#"{"prompt":"deeper"}"#).text("mid answer");
    let mid = Agent::<()>::builder(mid_model).tool(leaf_tool).build().unwrap();
    parent(mid.delegation("helper", "").forward_events(true).build())
}

/// Each forwarded event as `path seq kind`.
fn summary(forwarded: &Heard<SubRunEvent>) -> Vec<String> {
    let forwarded = forwarded.lock().unwrap();
    let line = |e: &SubRunEvent| {
        let path: Vec<&str> = e.path.iter().map(|c| c.call_id.as_str()).collect();
        format!("{} {} {}", path.join("/"), e.event.seq, kind(&e.event))
    };
    forwarded.iter().map(line).collect()
}

#[test]
fn nested_delegations_forward_through_every_level_with_the_path_of_calls() {
    let forwarded = Heard::default();
    let agent = nested(true);
    let run = agent.run_with(()).prompt("go").on_sub_run_event(collector(&forwarded)).call_async();
    let result = futures_lite::future::block_on(run).unwrap();
    assert_eq!(result.output, "got: mid answer");

    assert_eq!(
        summary(&forwarded),
        [
            "d1 0 model_start",
            "d1 1 model_end",
            "d1 2 tool_start",
            "d1/call_1 0 model_start",
            "d1/call_1 1 model_end",
            "d1 3 sub_run_spent",
            "d1 4 tool_end",
            "d1 5 model_start",
            "d1 6 model_end",
        ]
    );
    let deep = forwarded.lock().unwrap().iter().find(|e| e.depth() == 2).cloned().unwrap();
    assert_eq!((deep.call_id(), deep.tool_name()), ("d1", "helper"));
    assert_eq!(deep.innermost_call_id(), "call_1");
    assert_eq!(deep.path[1].tool_name, "leaf");
}

#[test]
fn a_level_that_does_not_forward_stops_its_sub_runs_events() {
    let forwarded = Heard::default();
    nested(false).run_with(()).prompt("go").on_sub_run_event(collector(&forwarded)).call().unwrap();

    let summary = summary(&forwarded);
    // The mid run's own six events and its leaf's spending, heard as one.
    assert_eq!(summary.len(), 7, "{summary:?}");
    assert!(summary.iter().all(|line| line.starts_with("d1 ")), "{summary:?}");
}

#[test]
fn a_panicking_sub_run_observer_fails_neither_run() {
    let tool = specialist(&Heard::default()).delegation("helper", "").forward_events(true).build();
    let result = parent(tool).run_with(()).prompt("go").on_sub_run_event(|_| panic!("observer bug")).call().unwrap();
    assert_eq!(result.output, "got: found it");
}

#[test]
fn sub_run_events_serialise_to_json() {
    let forwarded = Heard::default();
    let tool = specialist(&Heard::default()).delegation("helper", "").forward_events(true).build();
    parent(tool).run_with(()).prompt("go").on_sub_run_event(collector(&forwarded)).call().unwrap();

    let first = forwarded.lock().unwrap()[0].clone();
    let value = serde_json::to_value(&first).unwrap();
    assert_eq!(value["path"], json!([{"callId": "d1", "toolName": "helper"}]));
    assert_eq!(value["event"]["event"], "model_start");
    assert_eq!(serde_json::from_value::<SubRunEvent>(value).unwrap(), first);
}

//! Driver equivalence (issue 3, SPEC RUN-10, EVT-04, DESIGN "one loop,
//! many drivers"): every scenario of the corpus runs through every driver —
//! the blocking one, and the async one under `smol::block_on`,
//! `futures::executor::block_on` and a current-thread tokio runtime — and the
//! serialized outcome (`RunResult` or `RunError` as JSON), the serialized run
//! events, the fragments a delta callback got and the tools' probe notes
//! must be byte-identical. The first driver also runs each scenario twice
//! (determinism). Each run is checked against the scenario's pins, and a few
//! scenarios get closer checks of their events below.

use crate::corpus;

use corpus::kit::{call, calls, stuck, text, Gate, Probe};
use corpus::{Driver, Observation, Scenario};
use golem_core::testing::ScriptedModel;
use golem_core::Stage;
use golem_io::{Agent, CancellationToken};
use serde_json::Value;
use std::time::{Duration, Instant};

/// Assert two observations of `name` are identical, reporting the first
/// difference readably.
fn assert_same(name: &str, what: &str, a: &Observation, b: &Observation) {
    assert_eq!(a.steps.len(), b.steps.len(), "{name} ({what}): step count");
    for (i, (x, y)) in a.steps.iter().zip(&b.steps).enumerate() {
        assert_eq!(x.outcome, y.outcome, "{name} ({what}): outcome of step {i}");
        for (j, (ex, ey)) in x.events.iter().zip(&y.events).enumerate() {
            assert_eq!(ex, ey, "{name} ({what}): event {j} of step {i}");
        }
        assert_eq!(x.events.len(), y.events.len(), "{name} ({what}): event count of step {i}");
        assert_eq!(x.deltas, y.deltas, "{name} ({what}): delta callback fragments of step {i}");
    }
    assert_eq!(a.probe, b.probe, "{name} ({what}): probe notes");
    assert_eq!(a, b, "{name} ({what})");
}

/// Run `name` twice on the first driver (determinism) and once on every
/// other, checking pins each time and comparing everything to the first run.
fn check(name: &str) -> Observation {
    let scenario = corpus::named(name);
    let reference = corpus::run_checked(&scenario, Driver::ALL[0]);
    let again = corpus::run_checked(&scenario, Driver::ALL[0]);
    assert_same(name, &format!("{:?} twice", Driver::ALL[0]), &reference, &again);
    for &driver in &Driver::ALL[1..] {
        let other = corpus::run_checked(&scenario, driver);
        assert_same(name, &format!("{:?} vs {driver:?}", Driver::ALL[0]), &reference, &other);
    }
    reference
}

macro_rules! scenarios {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*

        /// The list above names every scenario of the corpus exactly once.
        const LISTED: &[&str] = &[$(stringify!($name)),*];
    };
}

scenarios!(
    plain_text,
    tool_round_trip_with_deps,
    two_tool_turns,
    parallel_out_of_order,
    parallel_capped,
    sequential_barrier,
    retry_backoff_then_success,
    fallback_model,
    retry_after_honoured,
    output_correction_text,
    empty_response_corrected,
    json_output_native,
    tool_mode_output,
    tool_rejection_corrected,
    unknown_tool_corrected,
    malformed_args_corrected,
    tool_budget_exhausted,
    decode_budget_exhausted,
    decode_fatal,
    usage_limit_tokens,
    request_limit,
    loop_limit,
    model_error_fatal,
    tool_fatal_error,
    deferral_pause_and_resume,
    tool_timeout_fails_run,
    tool_timeout_failed_result,
    tool_cancel_run,
    caller_cancel_mid_batch,
    caller_cancel_before_start,
    run_deadline,
    streaming_run,
    streaming_on_delta,
    stream_sink_abort,
    streaming_run_here,
    streaming_on_delta_here,
    stream_sink_abort_here,
    delegation,
    history_continuation,
    history_repaired,
    async_tools_parallel,
    async_model_only,
    async_tool_timeout,
);

#[test]
fn the_corpus_is_large_and_every_scenario_is_tested() {
    let all: Vec<Scenario> = corpus::all();
    assert!(all.len() >= 25, "{} scenarios", all.len());
    let names: Vec<&str> = all.iter().map(|s| s.name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "scenario names are unique");
    assert_eq!(names, LISTED, "the test list follows the corpus order");
}

/// The events of step `step`, parsed.
fn events(observation: &Observation, step: usize) -> Vec<Value> {
    observation.steps[step].events.iter().map(|e| serde_json::from_str(e).unwrap()).collect()
}

/// `event` names plus the call id of tool events, e.g. `tool_start p1`.
fn shape(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let kind = e["event"].as_str().unwrap_or_default();
            match e["callId"].as_str() {
                Some(id) => format!("{kind} {id}"),
                None => kind.to_string(),
            }
        })
        .collect()
}

#[test]
fn events_are_numbered_gap_free_in_every_scenario() {
    for scenario in corpus::all() {
        let observation = corpus::run_checked(&scenario, Driver::Blocking);
        for (i, step) in observation.steps.iter().enumerate() {
            for (n, event) in step.events.iter().enumerate() {
                let event: Value = serde_json::from_str(event).unwrap();
                assert_eq!(event["seq"], n as u64, "{} step {i}: {event}", scenario.name);
            }
        }
    }
}

#[test]
fn pinned_parallel_group_ends_in_emission_order_after_finishing_in_reverse() {
    let observation = corpus::run_checked(&corpus::named("parallel_out_of_order"), Driver::Blocking);
    assert_eq!(
        observation.probe,
        ["fast finished (waited: true)", "mid finished (waited: true)", "slow finished (waited: true)"]
    );
    let shape = shape(&events(&observation, 0));
    let expected = [
        "model_start",
        "model_end",
        "tool_start p1",
        "tool_start p2",
        "tool_start p3",
        "tool_end p1",
        "tool_end p2",
        "tool_end p3",
        "model_start",
        "model_end",
    ];
    assert_eq!(shape, expected);
}

#[test]
fn pinned_barrier_and_cap_order_the_calls() {
    let barrier = corpus::run_checked(&corpus::named("sequential_barrier"), Driver::Blocking);
    assert_eq!(barrier.probe, ["a saw 0 finished", "b saw 1 finished", "c saw 2 finished", "d saw 2 finished"]);
    let capped = corpus::run_checked(&corpus::named("parallel_capped"), Driver::Blocking);
    assert_eq!(
        capped.probe,
        ["a started with 1 in flight", "b started with 1 in flight", "c started with 1 in flight"]
    );
}

#[test]
fn pinned_retry_waits_come_from_the_table_and_the_hint() {
    let delays = |name: &str| -> Vec<u64> {
        let observation = corpus::run_checked(&corpus::named(name), Driver::Blocking);
        events(&observation, 0)
            .iter()
            .filter(|e| e["event"] == "retrying")
            .map(|e| e["delay"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(delays("retry_backoff_then_success"), [2, 4]);
    assert_eq!(delays("retry_after_honoured"), [25]);
}

#[test]
fn pinned_fallback_member_events() {
    let observation = corpus::run_checked(&corpus::named("fallback_model"), Driver::Blocking);
    let members: Vec<(u64, u64, u64)> = events(&observation, 0)
        .iter()
        .filter(|e| e["event"] == "model_start")
        .map(|e| (e["turn"].as_u64().unwrap(), e["attempt"].as_u64().unwrap(), e["member"].as_u64().unwrap()))
        .collect();
    assert_eq!(members, [(0, 1, 0), (1, 1, 0), (1, 1, 1)]);
}

#[test]
fn pinned_streamed_fragments_rebuild_each_turn() {
    let observation = corpus::run_checked(&corpus::named("streaming_run"), Driver::Blocking);
    let events = events(&observation, 0);
    let text: String = events
        .iter()
        .filter(|e| e["event"] == "delta" && e["delta"]["type"] == "text")
        .map(|e| e["delta"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "Sunny in Lagos, 31C.");
    let args: String = events
        .iter()
        .filter(|e| e["event"] == "delta" && e["delta"]["type"] == "tool_call")
        .filter_map(|e| e["delta"]["args"].as_str().map(str::to_string))
        .collect();
    assert_eq!(args, r#"{"city":"Lagos"}"#);
    // Every delta lies between its turn's model_start and model_end.
    let mut open = false;
    for e in &events {
        match e["event"].as_str().unwrap() {
            "model_start" => open = true,
            "model_end" => open = false,
            "delta" => assert!(open, "delta outside a model call: {e}"),
            _ => {}
        }
    }
}

#[test]
fn pinned_delta_callback_sees_exactly_the_delta_events() {
    let observation = corpus::run_checked(&corpus::named("streaming_on_delta"), Driver::Blocking);
    let from_events: Vec<Value> =
        events(&observation, 0).into_iter().filter(|e| e["event"] == "delta").map(|e| e["delta"].clone()).collect();
    let from_callback: Vec<Value> =
        observation.steps[0].deltas.iter().map(|d| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(from_callback, from_events);
    let text: String = from_callback.iter().filter_map(|d| d["text"].as_str()).collect();
    assert_eq!(text, "Let me check. warm31", "every turn and correction round streams");
}

#[test]
fn pinned_cancellations_keep_evidence_that_continues_cleanly() {
    let observation = corpus::run_checked(&corpus::named("caller_cancel_mid_batch"), Driver::Blocking);
    let outcome: Value = serde_json::from_str(&observation.steps[0].outcome).unwrap();
    let partial = &outcome["run_error"]["partial"]["messages"];
    let tool_texts: Vec<&str> = partial
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    let interrupted = golem_core::texts::INTERRUPTED_RESULT;
    assert_eq!(tool_texts, ["fine", interrupted, interrupted]);
    assert_eq!(observation.probe, ["first h1", "cancel h2"], "h3 never started");
    assert!(shape(&events(&observation, 0)).contains(&"canceled".to_string()));
}

#[test]
fn pinned_deferral_events_replace_tool_ends() {
    let observation = corpus::run_checked(&corpus::named("deferral_pause_and_resume"), Driver::Blocking);
    let paused = shape(&events(&observation, 0));
    assert_eq!(
        paused,
        [
            "model_start",
            "model_end",
            "tool_start d1",
            "deferred d1",
            "tool_start d2",
            "deferred d2",
            "tool_start x1",
            "deferred x1"
        ]
    );
    let resumed = events(&observation, 1);
    let approved: Vec<&Value> = resumed.iter().filter(|e| e["approved"] == true).collect();
    assert_eq!(approved.len(), 2, "the approved re-run's start and end are flagged: {resumed:?}");
    assert_eq!(observation.probe, ["delete d1", "delete d2", "stock x1", "delete d1"]);
}

/// A stuck lone tool with no timeout of its own, under a 200 ms run deadline
/// or a caller cancellation at 100 ms, on `driver`: the stage the run failed
/// at and how long it took to return.
fn inline_stuck_tool_run(driver: Driver, cancel: bool) -> (Option<Stage>, Duration) {
    let (probe, gate) = (Probe::default(), Gate::new());
    let model =
        ScriptedModel::new().respond(calls(vec![call("i1", "stuck", "{}")], (10, 4))).respond(text("never", (1, 1)));
    let mut builder = Agent::builder(model).tool(stuck("stuck", &probe, &gate));
    if !cancel {
        builder = builder.run_deadline(Some(Duration::from_millis(200)));
    }
    let agent = builder.build().unwrap();
    let token = CancellationToken::new();
    let canceller = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        canceller.cancel();
    });
    let started = Instant::now();
    let mut run = agent.run_with(()).prompt("go");
    if cancel {
        run = run.cancellation(token);
    }
    let result = corpus::call(driver, run);
    let elapsed = started.elapsed();
    gate.open();
    (result.err().and_then(|e| e.stage()), elapsed)
}

/// Both ways of stopping a run end it promptly at the tool stage while a
/// non-cooperative tool is in flight (SPEC MACH-07 `Immediate`, ERR-02).
fn assert_stops_promptly(driver: Driver) {
    for (cancel, what) in [(false, "run deadline"), (true, "caller cancellation")] {
        let (stage, elapsed) = inline_stuck_tool_run(driver, cancel);
        assert_eq!(stage, Some(Stage::Tool), "{driver:?}, {what}");
        assert!(elapsed < Duration::from_secs(2), "{driver:?}: the {what} took {elapsed:?}");
    }
}

#[test]
fn async_drivers_stop_waiting_for_a_stuck_tool() {
    for &driver in Driver::ALL.iter().filter(|d| **d != Driver::Blocking) {
        assert_stops_promptly(driver);
    }
}

/// Suspected blocking-driver bug: a lone tool without its own timeout runs
/// on the calling thread even when a run deadline or a caller cancellation
/// applies, so the run returns only once the tool does (here after the
/// gate's 5 s give-up): at the tool stage for the deadline, but at the model
/// stage for the cancellation (the tool's late result is kept and the next
/// model call is canceled instead). The async drivers end both at once at
/// the tool stage. SPEC DRV-02: deadline-bound tools run on their own
/// threads so the driver can stop waiting at a deadline.
#[test]
fn blocking_driver_stops_waiting_for_a_stuck_tool() {
    assert_stops_promptly(Driver::Blocking);
}

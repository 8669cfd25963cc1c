//! A streamed turn that breaks after fragments reached the caller, on both
//! drivers (SPEC RETRY-06, ERR-05, RETRY-02): with discard-and-retry the
//! delta callback and the event stream are told before the turn streams
//! again, and the tool runs once; without it the declined retry is reported
//! and the forwarded text stays evidence. Each run draws its own jitter
//! seed, recorded in its log (SPEC JIT-01).

use crate::log_buffer::Buffer;
use futures_lite::StreamExt;
use golem_core::log::EventLog;
use golem_core::model::{DeltaSink, ModelError, Request, Response, StreamingModel};
use golem_core::{DeclineReason, Delta, EventKind, ModelErrorKind, RetryPolicy, Role, Stage, ToolCall};
use golem_io::{Agent, Error, RunItem, RunResult, Tool, ToolContext};
use serde_json::json;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, Debug)]
enum Driver {
    Blocking,
    Async,
}

const DRIVERS: [Driver; 2] = [Driver::Blocking, Driver::Async];

/// One scripted call: the fragments it streams, then how it ends.
type Step = (Vec<Delta>, Result<Response, ModelError>);

/// Streams its script, one step per call.
struct Script(Mutex<VecDeque<Step>>);

impl StreamingModel for Script {
    fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        let (deltas, result) = self.0.lock().unwrap().pop_front().expect("script exhausted");
        for delta in deltas {
            sink.delta(delta).map_err(ModelError::sink_aborted)?;
        }
        result
    }
}

fn texts(words: &[&str]) -> Vec<Delta> {
    words.iter().map(|w| Delta::text(*w)).collect()
}

/// A tool turn, a final answer cut by a reset after two fragments, the
/// final answer again.
fn script() -> Script {
    let call = ToolCall::new("c1", "lookup", "{}");
    let call_delta = Delta::ToolCall {
        index: 0,
        id: "c1".into(),
        name: "lookup".into(),
        args: "{}".into(),
        signature: String::new(),
    };
    Script(Mutex::new(VecDeque::from([
        (vec![call_delta], Ok(Response::tool_calls(vec![call]))),
        (texts(&["It is ", "sun"]), Err(ModelError::transport("connection reset"))),
        (texts(&["It is ", "sunny."]), Ok(Response::text("It is sunny."))),
    ])))
}

fn agent(policy: RetryPolicy) -> Agent<Arc<AtomicUsize>> {
    let lookup = Tool::new("lookup", "", json!({"type": "object"}), |ctx: ToolContext<Arc<AtomicUsize>>, _| {
        ctx.deps().fetch_add(1, Ordering::SeqCst);
        Ok("sunny")
    });
    // A zero backoff: the waits are not what these tests are about.
    Agent::builder(script()).tool(lookup).retry_policy(policy).backoff(|_| std::time::Duration::ZERO).build().unwrap()
}

/// What the delta callback saw: text fragments, and `<discard aN>` signals.
fn run(
    driver: Driver,
    agent: &Agent<Arc<AtomicUsize>>,
    runs: &Arc<AtomicUsize>,
) -> (Result<RunResult<String>, Error>, Vec<String>) {
    let mut seen = Vec::new();
    let on_delta = |d: golem_io::StreamDelta<'_>| {
        if d.discarded {
            seen.push(format!("<discard t{} a{}>", d.turn, d.attempt));
        } else if let Some(text) = d.text() {
            seen.push(text.to_string());
        }
        Ok(())
    };
    let result = match driver {
        Driver::Blocking => agent.run_stream(Arc::clone(runs), "weather?", on_delta),
        Driver::Async => futures_lite::future::block_on(agent.run_stream_async(Arc::clone(runs), "weather?", on_delta)),
    };
    (result, seen)
}

#[test]
fn retry_06_the_callback_hears_the_discard_before_the_turn_streams_again() {
    for driver in DRIVERS {
        let runs = Arc::new(AtomicUsize::new(0));
        let (result, seen) = run(driver, &agent(RetryPolicy::recommended()), &runs);
        let result = result.unwrap();
        assert_eq!(result.output, "It is sunny.", "{driver:?}");
        assert_eq!((result.requests, runs.load(Ordering::SeqCst)), (3, 1), "{driver:?}");
        assert_eq!(seen, ["It is ", "sun", "<discard t1 a1>", "It is ", "sunny."], "{driver:?}");
    }
}

#[test]
fn retry_06_the_event_stream_carries_turn_discarded_in_order() {
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = agent(RetryPolicy::recommended());
    let run = agent.run_with(Arc::clone(&runs)).prompt("weather?").stream(true);
    let items: Vec<RunItem<String>> = futures_lite::future::block_on(run.events().collect());
    let tags: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            RunItem::Event(e) if !matches!(e.kind, EventKind::Delta { .. }) => {
                Some(serde_json::to_value(&e.kind).unwrap()["event"].as_str().unwrap().to_string())
            }
            _ => None,
        })
        .collect();
    let at = tags.iter().position(|t| t == "turn_discarded").expect("a turn_discarded event");
    assert_eq!(tags[at - 1..at + 3], ["model_end", "turn_discarded", "retrying", "model_start"]);
    assert!(matches!(items.last(), Some(RunItem::Done(Ok(r))) if r.output == "It is sunny."));
}

#[test]
fn retry_06_without_the_opt_in_the_declined_retry_is_typed_and_the_text_is_evidence() {
    for driver in DRIVERS {
        let runs = Arc::new(AtomicUsize::new(0));
        let (result, seen) = run(driver, &agent(RetryPolicy::new().max_attempts(3)), &runs);
        let error = result.unwrap_err();
        let error = error.as_run().expect("a run error");
        assert_eq!(error.stage, Stage::Model, "{driver:?}");
        let cause = error.model_error().unwrap();
        assert_eq!((cause.kind, cause.retryable), (ModelErrorKind::Transport, true), "{driver:?}");
        assert_eq!(error.retry_declined(), Some(DeclineReason::FragmentsForwarded), "{driver:?}");
        assert_eq!(seen, ["It is ", "sun"], "{driver:?}");
        let partial = error.partial.as_ref().unwrap();
        let roles: Vec<Role> = partial.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool], "{driver:?}");
        assert_eq!(partial.incomplete.as_ref().map(|m| m.content.as_str()), Some("It is sun"), "{driver:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 1, "{driver:?}");
    }
}

#[test]
fn jit_01_every_run_records_a_jitter_seed_of_its_own() {
    // Under a fixed seed too: the log holds what the driver drew; the
    // machine ignores it then (SPEC JIT-01).
    for agent in [
        Agent::<()>::builder(golem_core::testing::ScriptedModel::new().text("a").text("b")).build().unwrap(),
        Agent::<()>::builder(golem_core::testing::ScriptedModel::new().text("a").text("b")).seed(7).build().unwrap(),
    ] {
        let seeds: Vec<u64> = (0..2)
            .map(|_| {
                let log = Buffer::default();
                agent.run_with(()).prompt("hi").record(log.clone()).call().unwrap();
                let log = EventLog::parse(&log.text()).unwrap();
                assert_eq!(log.header.start.jitter_phase, None, "no phase in new logs");
                log.header.start.jitter_seed.expect("the driver drew a seed")
            })
            .collect();
        assert_ne!(seeds[0], seeds[1]);
    }
}

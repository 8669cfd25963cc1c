//! The production preset bounds a run a stalled provider holds (issue 17):
//! each attempt by its first-chunk limit, the whole run by the run
//! deadline — and never cuts a stream that keeps producing (issue 32,
//! SPEC TIME-01): a silent stream is abandoned at the idle limit and
//! retried, a steady one runs as long as it runs.

use crate::outcomes::{completed, failed, retry_waits};
use golem_core::config::{PRODUCTION_FIRST_CHUNK_TIMEOUT, PRODUCTION_IDLE_TIMEOUT, PRODUCTION_RUN_DEADLINE};
use golem_core::machine::Start;
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use std::time::Duration;

const HOUR: Duration = Duration::from_secs(3600);

#[test]
fn a_stalled_provider_holds_a_production_run_for_four_first_chunk_limits_and_the_backoff() {
    let stall = || ModelReply::ok(HOUR, Response::text("too late"));
    let mut sim =
        Sim::new(RunConfig::production(), Start::prompt("hi").with_jitter_seed(5), move |_, _| stall()).unwrap();
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Model);
    let cause = error.model_error().unwrap();
    assert_eq!((cause.kind, cause.retryable), (ModelErrorKind::Timeout, true));
    assert_eq!(error.requests, 4);
    let waited: Duration = retry_waits(sim.events()).into_iter().sum();
    assert_eq!(sim.now().since_epoch(), PRODUCTION_FIRST_CHUNK_TIMEOUT * 4 + waited);
    assert!(sim.now().since_epoch() < PRODUCTION_RUN_DEADLINE);
}

#[test]
fn the_run_deadline_bounds_a_production_run_whatever_holds_it() {
    // A slow tool each turn: no call deadline fires, the run deadline does.
    let call = ToolCall::new("c1", "slow", "{}");
    let mut config = RunConfig::production();
    config.tools = vec![ToolSpec::new("slow", "", serde_json::json!({"type": "object"}))];
    config.max_iterations = 100;
    let model = move |_: &Request, _| ModelReply::ok(Duration::from_secs(1), Response::tool_calls(vec![call.clone()]));
    let mut sim = Sim::new(config, Start::prompt("hi"), model)
        .unwrap()
        .tool("slow", |_, _| ToolReply::output(Duration::from_secs(299), "done"));
    let error = failed(sim.run());
    assert!(error.is_canceled(), "{error}");
    assert_eq!(sim.now().since_epoch(), PRODUCTION_RUN_DEADLINE);
}

#[test]
fn the_production_preset_keeps_every_default_it_does_not_name() {
    let production = RunConfig::production();
    let mut expected = RunConfig::default();
    expected.retry = RetryPolicy::recommended();
    expected.model_deadline = Some(Duration::from_secs(30 * 60));
    expected.first_chunk_timeout = Some(Duration::from_secs(120));
    expected.idle_timeout = Some(Duration::from_secs(60));
    expected.run_deadline = Some(Duration::from_secs(60 * 60));
    assert_eq!(production, expected);
    assert_eq!(RunConfig::default().retry.max_attempts, 1, "the seed's default stays one attempt");
    assert!(!RetryPolicy::default().discard_and_retry);
}

const SEC: Duration = Duration::from_secs(1);

/// A streamed reply of `chunks` one-second chunks, answered a second after
/// the last.
fn steady(chunks: u32) -> ModelReply {
    let deltas = (0..chunks).map(|n| Delta::text(format!("{n} "))).collect();
    ModelReply::ok(SEC * (chunks + 1), Response::text("the long answer")).with_paced_deltas(deltas, SEC)
}

fn streamed() -> Start {
    Start::prompt("write at length").with_stream(true).with_jitter_seed(5)
}

#[test]
fn time_01_a_stream_of_one_chunk_a_second_for_ten_minutes_completes_under_production() {
    let mut sim = Sim::new(RunConfig::production(), streamed(), Sim::scripted(vec![steady(600)])).unwrap();
    let summary = completed(sim.run());
    assert_eq!(summary.messages.last().unwrap().content, "the long answer");
    assert_eq!(summary.requests, 1, "one paid generation, never cut");
    assert_eq!(sim.now().since_epoch(), SEC * 601);
}

#[test]
fn time_01_a_stream_silent_past_the_idle_limit_is_retried() {
    // Ten chunks, then silence for an hour: cut a minute after the last
    // chunk, and the retry streams the answer.
    let deltas: Vec<Delta> = (0..10).map(|n| Delta::text(format!("{n} "))).collect();
    let stalled = ModelReply::ok(HOUR, Response::text("too late")).with_paced_deltas(deltas, SEC);
    let mut sim = Sim::new(RunConfig::production(), streamed(), Sim::scripted(vec![stalled, steady(5)])).unwrap();
    let summary = completed(sim.run());
    assert_eq!(summary.messages.last().unwrap().content, "the long answer");
    assert_eq!(summary.requests, 2);
    let retried = sim.events().iter().find_map(|e| match &e.kind {
        EventKind::Retrying { cause, .. } => Some(cause.clone()),
        _ => None,
    });
    let cause = retried.expect("the silent stream was retried");
    assert_eq!(cause.kind, ModelErrorKind::Timeout);
    assert!(cause.message.contains("silent for 60000 ms"), "{}", cause.message);
    // Cut exactly an idle limit after its tenth chunk.
    let cut_at = SEC * 10 + PRODUCTION_IDLE_TIMEOUT;
    let waited: Duration = retry_waits(sim.events()).into_iter().sum();
    assert_eq!(sim.now().since_epoch(), cut_at + waited + SEC * 6);
}

#[test]
fn time_01_a_stream_that_never_starts_is_cut_at_the_first_chunk_limit() {
    let mut config = RunConfig::production();
    config.retry.max_attempts = 1;
    let silent = ModelReply::ok(HOUR, Response::text("too late"));
    let mut sim = Sim::new(config, streamed(), Sim::scripted(vec![silent])).unwrap();
    let error = failed(sim.run());
    let cause = error.model_error().unwrap();
    assert!(cause.message.contains("no first chunk within 120000 ms"), "{}", cause.message);
    assert_eq!(sim.now().since_epoch(), PRODUCTION_FIRST_CHUNK_TIMEOUT);
}

#[test]
fn time_01_the_total_still_bounds_a_stream_when_set() {
    let mut config = RunConfig::production();
    config.retry.max_attempts = 1;
    config.model_deadline = Some(SEC * 30);
    let mut sim = Sim::new(config, streamed(), Sim::scripted(vec![steady(60)])).unwrap();
    let error = failed(sim.run());
    assert!(error.model_error().unwrap().message.contains("deadline of 30000 ms"));
    assert_eq!(sim.now().since_epoch(), SEC * 30);
}

//! The production preset bounds a run a stalled provider holds (issue 17):
//! each attempt by its call deadline, the whole run by the run deadline.

use crate::outcomes::{failed, retry_waits};
use golem_core::config::{PRODUCTION_MODEL_DEADLINE, PRODUCTION_RUN_DEADLINE};
use golem_core::machine::Start;
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use std::time::Duration;

const HOUR: Duration = Duration::from_secs(3600);

#[test]
fn a_stalled_provider_holds_a_production_run_for_four_call_deadlines_and_the_backoff() {
    let stall = || ModelReply::ok(HOUR, Response::text("too late"));
    let mut sim =
        Sim::new(RunConfig::production(), Start::prompt("hi").with_jitter_phase(5), move |_, _| stall()).unwrap();
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Model);
    let cause = error.model_error().unwrap();
    assert_eq!((cause.kind, cause.retryable), (ModelErrorKind::Timeout, true));
    assert_eq!(error.requests, 4);
    let waited: Duration = retry_waits(sim.events()).into_iter().sum();
    assert_eq!(sim.now().since_epoch(), PRODUCTION_MODEL_DEADLINE * 4 + waited);
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
        .tool("slow", |_, _| ToolReply::output(Duration::from_secs(59), "done"));
    let error = failed(sim.run());
    assert!(error.is_canceled(), "{error}");
    assert_eq!(sim.now().since_epoch(), PRODUCTION_RUN_DEADLINE);
}

#[test]
fn the_production_preset_keeps_every_default_it_does_not_name() {
    let production = RunConfig::production();
    let mut expected = RunConfig::default();
    expected.retry = RetryPolicy::recommended();
    expected.model_deadline = Some(Duration::from_secs(120));
    expected.run_deadline = Some(Duration::from_secs(600));
    assert_eq!(production, expected);
    assert_eq!(RunConfig::default().retry.max_attempts, 1, "the seed's default stays one attempt");
    assert!(!RetryPolicy::default().discard_and_retry);
}

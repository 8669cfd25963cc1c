//! Usage limits, retries and fallback, deferred resumes, the preamble and
//! cancellation in simulated time (SPEC USAGE, RETRY, DEFER, RUN-02, RUN-07,
//! HIST-02, ERR, MACH-07). One test per behaviour, named after its SPEC item.

use crate::outcomes::{completed, failed};
use golem_core::deferral::ResolutionError;
use golem_core::error::CancelReason;
use golem_core::machine::{
    CancelMode, Command, Input, Outcome, Output, Prompt, SetupError, Start, ToolOutcome, Verdict,
};
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);
const SEC: Duration = Duration::from_secs(1);

fn spec(name: &str) -> ToolSpec {
    ToolSpec::new(name, "", json!({"type": "object"}))
}

fn config(tools: &[&str]) -> RunConfig {
    {
        let mut config = RunConfig::default();
        config.tools = tools.iter().map(|n| spec(n)).collect();
        config
    }
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall::new(id, name, "{}")
}

fn calls(list: Vec<ToolCall>) -> ModelReply {
    ModelReply::ok(MS, Response::tool_calls(list))
}

fn text(content: &str) -> ModelReply {
    ModelReply::ok(MS, Response::text(content))
}

fn err(error: ModelError) -> ModelReply {
    ModelReply::err(MS, error)
}

fn lines(sim: &Sim) -> Vec<&str> {
    sim.transcript().iter().map(String::as_str).collect()
}

fn count(sim: &Sim, prefix: &str) -> usize {
    sim.transcript().iter().filter(|l| l.starts_with(prefix)).count()
}

fn usage_limit(error: &RunError) -> &UsageLimitError {
    error.usage_limit().unwrap_or_else(|| panic!("expected a usage failure, got {error:#?}"))
}

fn retry_delays(sim: &Sim) -> Vec<Duration> {
    sim.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Retrying { delay, .. } => Some(*delay),
            _ => None,
        })
        .collect()
}

fn tool_messages(messages: &[Message]) -> Vec<(&str, &str)> {
    messages.iter().filter(|m| m.role == Role::Tool).map(|m| (m.tool_call_id.as_str(), m.content.as_str())).collect()
}

fn cancel(mode: CancelMode) -> Input {
    Input::Cancel { reason: CancelReason::Caller, mode }
}

// ---------------------------------------------------------------------------
// USAGE-04 / USAGE-05: check points and reporting
// ---------------------------------------------------------------------------

#[test]
fn usage_04_zero_request_limit_sends_no_request() {
    let mut cfg = config(&[]);
    cfg.limits.requests = Some(0);
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(vec![text("never")])).unwrap();
    let error = failed(sim.run());
    assert_eq!(lines(&sim), vec!["done"]);
    assert!(sim.requests().is_empty());
    assert_eq!(error.stage, Stage::Usage);
    assert_eq!(usage_limit(&error), &golem_core::UsageLimitError::new("request", 0, 1));
    assert_eq!(error.to_string(), "usage stage: run exceeded the request limit of 0 (used 1)");
    assert_eq!(error.requests, 0);
    assert_eq!(error.partial, None);
}

#[test]
fn usage_04_request_limit_is_checked_before_a_retry() {
    let mut cfg = config(&[]);
    cfg.limits.requests = Some(1);
    cfg.retry.max_attempts = 2;
    let replies = vec![err(ModelError::api(503, "overloaded")), text("never")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(count(&sim, "call_model"), 1);
    assert_eq!(error.stage, Stage::Usage);
    assert_eq!(usage_limit(&error), &golem_core::UsageLimitError::new("request", 1, 2));
    assert_eq!(error.requests, 1);
}

#[test]
fn usage_04_token_limit_checked_after_response_keeps_the_crossing_response() {
    let mut cfg = config(&["alpha"]);
    cfg.limits.total_tokens = Some(1000);
    let crossing = Response::tool_calls(vec![call("c1", "alpha")]).with_usage(Usage::new(1500, 500));
    let replies = vec![ModelReply::ok(MS, crossing.clone()), text("never")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "ran"));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 0, "the crossing response's tool calls are not run");
    assert_eq!(error.stage, Stage::Usage);
    assert_eq!(error.to_string(), "usage stage: run exceeded the total token limit of 1000 (used 2000)");
    let partial = error.partial.unwrap();
    assert_eq!(partial.messages.last().unwrap(), &crossing.message);
    assert_eq!(partial.usage, Usage::new(1500, 500));
    assert_eq!(partial.tool_calls, 0);
}

#[test]
fn usage_05_first_crossed_dimension_in_order_input_output_total() {
    let run = |limits: UsageLimits| {
        let cfg = {
            let mut built = config(&[]);
            built.limits = limits;
            built
        };
        let replies = vec![ModelReply::ok(MS, Response::text("x").with_usage(Usage::new(20, 20)))];
        let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
        usage_limit(&failed(sim.run())).clone()
    };
    let all = golem_core::UsageLimits::new().input_tokens(10).output_tokens(10).total_tokens(10);
    assert_eq!(run(all), golem_core::UsageLimitError::new("input token", 10, 20));
    let no_input = {
        let mut built = all;
        built.input_tokens = None;
        built
    };
    assert_eq!(run(no_input), golem_core::UsageLimitError::new("output token", 10, 20));
    let total_only = golem_core::UsageLimits::new().total_tokens(39);
    assert_eq!(run(total_only), golem_core::UsageLimitError::new("total token", 39, 40));
    // Crossing is strict: reaching the bound exactly is fine.
    let cfg = {
        let mut built = config(&[]);
        built.limits = golem_core::UsageLimits::new().total_tokens(40);
        built
    };
    let replies = vec![ModelReply::ok(MS, Response::text("x").with_usage(Usage::new(20, 20)))];
    completed(Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap().run());
}

#[test]
fn usage_05_display_text() {
    let error = golem_core::UsageLimitError::new("total token", 1000, 2000);
    assert_eq!(error.to_string(), "run exceeded the total token limit of 1000 (used 2000)");
}

#[test]
fn usage_04_pre_batch_check_refuses_a_batch_that_only_partly_fits() {
    let mut cfg = config(&["alpha"]);
    cfg.limits.tool_calls = Some(2);
    let replies =
        vec![calls(vec![call("c1", "alpha")]), calls(vec![call("c2", "alpha"), call("c3", "alpha")]), text("never")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "ran"));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 1, "no call of the refused batch starts");
    assert_eq!(count(&sim, "tool_start"), 1);
    assert_eq!(error.stage, Stage::Usage);
    assert_eq!(usage_limit(&error), &golem_core::UsageLimitError::new("tool call", 2, 3));
    assert_eq!(error.partial.unwrap().tool_calls, 1);
}

#[test]
fn usage_04_batch_that_fits_exactly_runs() {
    let mut cfg = config(&["alpha"]);
    cfg.limits.tool_calls = Some(2);
    let replies = vec![calls(vec![call("c1", "alpha"), call("c2", "alpha")]), text("done")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "ran"));
    assert_eq!(completed(sim.run()).tool_calls, 2);
}

#[test]
fn usage_06_unknown_tool_rejections_are_not_dispatches() {
    let mut cfg = config(&["alpha"]);
    cfg.limits.tool_calls = Some(1);
    cfg.retry.tool_retries = 1;
    let replies = vec![calls(vec![call("c1", "alpha"), call("c2", "nope")]), text("done")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "ran"));
    assert_eq!(completed(sim.run()).tool_calls, 1);
}

#[test]
fn usage_06_failed_attempts_and_fallback_members_count_as_requests() {
    let mut cfg = config(&[]);
    cfg.models = 2;
    cfg.retry.max_attempts = 2;
    let members = Rc::new(RefCell::new(Vec::new()));
    let log = members.clone();
    let mut replies =
        vec![err(ModelError::api(503, "m0 down")), err(ModelError::api(502, "m1 down")), text("ok")].into_iter();
    let mut sim = Sim::new(cfg, Start::prompt("hi"), move |_: &Request, member| {
        log.borrow_mut().push(member);
        replies.next().unwrap()
    })
    .unwrap();
    let summary = completed(sim.run());
    assert_eq!(*members.borrow(), vec![0, 1, 0]);
    assert_eq!(summary.requests, 3);
    assert_eq!(summary.messages.len(), 2, "failed attempts add no message");
}

#[test]
fn usage_06_each_fallback_member_has_its_own_pre_flight_check() {
    let mut cfg = config(&[]);
    cfg.models = 2;
    cfg.limits.requests = Some(1);
    let replies = vec![err(ModelError::api(503, "m0 down")), text("never")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(count(&sim, "call_model"), 1);
    assert_eq!(usage_limit(&error), &golem_core::UsageLimitError::new("request", 1, 2));
}

// ---------------------------------------------------------------------------
// RETRY-05: fallback chains
// ---------------------------------------------------------------------------

#[test]
fn retry_05_retryable_error_moves_to_the_next_member_within_the_attempt() {
    let mut cfg = config(&[]);
    cfg.models = 2;
    let replies = vec![err(ModelError::api(503, "busy")), text("from member 1")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let summary = completed(sim.run());
    assert_eq!(
        sim.event_lines(),
        vec![
            "model_start t0 a1 m0",
            "model_end t0 a1 m0 error: busy (status 503)",
            "model_start t0 a1 m1",
            "model_end t0 a1 m1"
        ]
    );
    assert!(lines(&sim).contains(&"call_model #1 member 1 deadline 300001ms"), "member 1 goes at once");
    assert_eq!(summary.requests, 2);
    assert_eq!(summary.messages.last().unwrap().content, "from member 1");
}

#[test]
fn retry_05_non_retryable_error_stops_the_chain_unchanged() {
    let mut cfg = config(&[]);
    cfg.models = 3;
    cfg.retry.max_attempts = 3;
    let bad = ModelError::api(400, "bad request").with_code("invalid_request");
    let replies = vec![err(bad.clone()), text("never")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(count(&sim, "call_model"), 1);
    assert_eq!(error.stage, Stage::Model);
    assert_eq!(error.model_error(), Some(&bad));
}

#[test]
fn retry_05_when_every_member_fails_the_last_error_is_returned() {
    let mut cfg = config(&[]);
    cfg.models = 2;
    let last = ModelError::api(502, "second");
    let replies = vec![err(ModelError::api(503, "first")), err(last.clone())];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(error.model_error(), Some(&last));
    assert_eq!(error.requests, 2);
}

// ---------------------------------------------------------------------------
// RETRY-02 / RETRY-03: backoff and Retry-After
// ---------------------------------------------------------------------------

#[test]
fn retry_02_exponential_values_are_capped_at_30s() {
    let values: Vec<u128> = (1..=9).map(|n| Backoff::exponential(n).as_millis()).collect();
    assert_eq!(values, vec![500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    assert_eq!(Backoff::exponential(u32::MAX), 30 * SEC);
    assert_eq!(Backoff::exponential(64), 30 * SEC);
}

fn failing_run(cfg: RunConfig, failures: usize) -> Sim {
    let mut replies: Vec<ModelReply> = (0..failures).map(|_| err(ModelError::api(503, "busy"))).collect();
    replies.push(text("ok"));
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    sim
}

#[test]
fn retry_02_default_backoff_doubles_between_attempts() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 5;
    let sim = failing_run(cfg, 4);
    assert_eq!(retry_delays(&sim), vec![500 * MS, 1000 * MS, 2000 * MS, 4000 * MS]);
    assert!(sim.event_lines().contains(&"retrying t0 a5 after 4000ms".to_string()));
}

#[test]
fn retry_02_jitter_is_deterministic_for_a_seed() {
    let run = |seed: u64| {
        let mut cfg = config(&[]);
        cfg.retry.max_attempts = 5;
        cfg.retry.jitter = true;
        cfg.seed = seed;
        retry_delays(&failing_run(cfg, 4))
    };
    let a = run(42);
    assert_eq!(a, run(42), "same seed, same waits");
    for (n, delay) in a.iter().enumerate() {
        let base = Backoff::exponential(n as u32 + 1).as_secs_f64();
        let d = delay.as_secs_f64();
        assert!(d >= base * 0.75 - 1e-9 && d <= base * 1.25 + 1e-9, "attempt {}: {d} vs base {base}", n + 1);
    }
    assert_ne!(a, run(43), "another seed draws other waits");
}

#[test]
fn retry_02_zero_delay_retries_at_once() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    cfg.retry.backoff = Backoff::Table { delays: vec![Duration::ZERO] };
    let sim = failing_run(cfg, 1);
    assert_eq!(retry_delays(&sim), vec![Duration::ZERO]);
    assert_eq!(count(&sim, "wait Backoff"), 0);
    assert!(lines(&sim).contains(&"call_model #1 member 0 deadline 300001ms"));
}

fn hinted(hint: Duration) -> ModelReply {
    err(ModelError::api(429, "slow down").with_retry_after(hint))
}

#[test]
fn retry_03_time_02_hint_above_the_ceiling_waits_exactly_the_ceiling() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    let replies = vec![hinted(700 * SEC), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(retry_delays(&sim), vec![600 * SEC]);
    assert!(lines(&sim).contains(&"wait Backoff until 600001ms"));
}

#[test]
fn time_02_hints_up_to_ten_minutes_are_waited_in_full() {
    // The default ceiling is 10 min: a 5 min hint is not cut to 60 s.
    assert_eq!(RetryPolicy::default().max_retry_after, 600 * SEC);
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    let replies = vec![hinted(300 * SEC), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(retry_delays(&sim), vec![300 * SEC]);
}

#[test]
fn time_02_the_ceiling_is_configurable() {
    let mut cfg = config(&[]);
    cfg.retry = RetryPolicy::new().max_attempts(2).max_retry_after(30 * SEC);
    let replies = vec![hinted(45 * SEC), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(retry_delays(&sim), vec![30 * SEC]);
}

#[test]
fn time_02_a_hint_the_run_cannot_outlast_fails_at_once_with_the_hint() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 3;
    cfg.run_deadline = Some(120 * SEC);
    let replies = vec![hinted(150 * SEC), text("never asked")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Model);
    assert_eq!(error.retry_declined(), Some(DeclineReason::RetryAfterPastDeadline));
    assert_eq!(error.model_error().unwrap().retry_after, Some(150 * SEC));
    assert_eq!(error.requests, 1);
    assert!(retry_delays(&sim).is_empty(), "no wait into the deadline");
    assert!(sim.now() < Moment::ZERO + SEC, "failed at once, at {:?}", sim.now());
    // A hint that ends before the deadline is waited.
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    cfg.run_deadline = Some(120 * SEC);
    let replies = vec![hinted(90 * SEC), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(retry_delays(&sim), vec![90 * SEC]);
}

#[test]
fn retry_03_hint_above_the_maximum_with_no_attempt_left_fails_with_the_hint_in_the_cause() {
    let replies = vec![hinted(700 * SEC)];
    let mut sim = Sim::new(config(&[]), Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Model);
    assert_eq!(error.model_error().unwrap().retry_after, Some(700 * SEC));
}

#[test]
fn retry_03_hint_above_the_maximum_remaining_members_go_at_once() {
    let mut cfg = config(&[]);
    cfg.models = 2;
    let replies = vec![hinted(700 * SEC), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert!(lines(&sim).contains(&"call_model #1 member 1 deadline 300001ms"));
    assert!(retry_delays(&sim).is_empty());
}

#[test]
fn retry_03_default_backoff_waits_the_larger_of_backoff_and_hint() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    let replies = vec![hinted(200 * MS), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(retry_delays(&sim), vec![500 * MS]);
}

#[test]
fn retry_03_custom_table_overrides_the_hint() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    cfg.retry.backoff = Backoff::Table { delays: vec![100 * MS] };
    let replies = vec![hinted(2 * SEC), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(retry_delays(&sim), vec![100 * MS]);
}

#[test]
fn retry_03_custom_table_with_honor_retry_after_waits_for_the_hint() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    cfg.retry.backoff = Backoff::Table { delays: vec![100 * MS] };
    cfg.retry.honor_retry_after = true;
    let replies = vec![hinted(2 * SEC), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(retry_delays(&sim), vec![2 * SEC]);
}

// ---------------------------------------------------------------------------
// RETRY-07: model-call deadlines
// ---------------------------------------------------------------------------

#[test]
fn retry_07_model_deadline_expiry_cancels_and_retries_as_a_timeout() {
    let mut cfg = config(&[]);
    cfg.retry.max_attempts = 2;
    cfg.model_deadline = Some(SEC);
    // The first answer arrives at 1.2 s, after its deadline, during the backoff.
    let replies =
        vec![ModelReply::ok(1200 * MS, Response::text("slow")), ModelReply::ok(100 * MS, Response::text("ok"))];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let summary = completed(sim.run());
    let l = lines(&sim);
    let tick = l.iter().position(|x| *x == "@1000ms tick").expect("the deadline fires");
    assert_eq!(l[tick + 1], "cancel_model #0");
    let cause = sim
        .events()
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Retrying { cause, .. } => Some(cause.clone()),
            _ => None,
        })
        .expect("a retrying event");
    assert_eq!(cause.kind, ModelErrorKind::Timeout);
    assert!(cause.retryable);
    assert!(sim.event_lines().contains(&"late_result model #0".to_string()));
    assert_eq!(summary.messages.last().unwrap().content, "ok");
    assert_eq!(summary.requests, 2);
}

#[test]
fn retry_07_model_deadline_without_attempts_left_fails_at_model_stage() {
    let mut cfg = config(&[]);
    cfg.model_deadline = Some(SEC);
    let replies = vec![ModelReply::ok(5 * SEC, Response::text("slow"))];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert!(lines(&sim).contains(&"cancel_model #0"));
    assert_eq!(error.stage, Stage::Model);
    assert_eq!(error.model_error().unwrap().kind, ModelErrorKind::Timeout);
}

// ---------------------------------------------------------------------------
// RUN-07, ERR-01, ERR-05
// ---------------------------------------------------------------------------

#[test]
fn run_07_max_iterations_bounds_turns_across_correction_rounds() {
    let mut cfg = config(&[]);
    cfg.max_iterations = 2;
    cfg.retry.output_retries = 5;
    let replies = vec![text("a"), text("b"), text("c")];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .decoder(|_| Verdict::Rejected { reason: "no".into() });
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Loop);
    assert_eq!(error.cause, Cause::Loop { turns: 2 });
    assert_eq!(error.to_string(), "loop stage: run exceeded the limit of 2 model turns");
    assert_eq!(count(&sim, "call_model"), 2);
    // Event turns restart per round (EVT-02).
    let starts: Vec<String> = sim.event_lines().into_iter().filter(|l| l.starts_with("model_start")).collect();
    assert_eq!(starts, vec!["model_start t0 a1 m0", "model_start t0 a1 m0"]);
}

#[test]
fn run_07_retried_attempts_do_not_consume_turns() {
    let mut cfg = config(&[]);
    cfg.max_iterations = 1;
    cfg.retry.max_attempts = 3;
    let sim = failing_run(cfg, 2);
    assert_eq!(count(&sim, "call_model"), 3);
}

#[test]
fn err_05_partial_is_none_when_nothing_happened() {
    let history = vec![Message::user("earlier"), Message::assistant("earlier answer")];
    let start = Start::prompt("hi").with_history(history);
    let mut sim = Sim::new(config(&[]), start, Sim::scripted(vec![err(ModelError::api(400, "bad"))])).unwrap();
    let error = failed(sim.run());
    assert_eq!(error.partial, None, "history-supplied assistant messages do not count");
    assert_eq!(error.requests, 1);
}

#[test]
fn err_05_partial_is_some_after_a_completed_turn() {
    let replies = vec![calls(vec![call("c1", "alpha")]), err(ModelError::api(400, "bad"))];
    let mut sim = Sim::new(config(&["alpha"]), Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "a"));
    let error = failed(sim.run());
    let partial = error.partial.unwrap();
    assert_eq!(partial.messages.len(), 3);
    assert_eq!(partial.requests, 2);
    assert_eq!(partial.tool_calls, 1);
}

#[test]
fn err_01_display_is_stage_colon_cause() {
    let names: Vec<String> = [Stage::Model, Stage::Decode, Stage::Tool, Stage::Loop, Stage::Usage, Stage::Canceled]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(names, vec!["model", "decode", "tool", "loop", "usage", "canceled"]);
    assert_eq!(serde_json::to_string(&Stage::Canceled).unwrap(), r#""canceled""#);
    let mut sim =
        Sim::new(config(&[]), Start::prompt("hi"), Sim::scripted(vec![err(ModelError::api(400, "bad input"))]))
            .unwrap();
    let error = failed(sim.run());
    assert_eq!(error.to_string(), format!("{} stage: {}", error.stage, error.cause));
    assert_eq!(error.to_string(), "model stage: bad input (status 400)");
}

// ---------------------------------------------------------------------------
// DEFER-02: resolution validation, in the documented order
// ---------------------------------------------------------------------------

fn paused_history(ids: &[&str]) -> Vec<Message> {
    vec![Message::user("go"), Message::assistant_calls(ids.iter().map(|id| call(id, "gated")).collect())]
}

fn resume(history: Vec<Message>, resolutions: DeferredResults) -> Start {
    {
        let mut start = Start::default();
        start.history = history;
        start.resume = Some(resolutions);
        start
    }
}

fn setup_error(start: Start) -> SetupError {
    match RunMachine::new(config(&["gated"]), start, Moment::ZERO) {
        Err(error) => error,
        Ok(machine) => panic!("expected a setup error, got a machine: {machine:#?}"),
    }
}

fn resolution_error(start: Start) -> ResolutionError {
    match setup_error(start) {
        SetupError::Resolution(error) => error,
        other => panic!("expected a resolution error, got {other:?}"),
    }
}

#[test]
fn defer_02_a_call_without_id_is_refused() {
    let history = paused_history(&[""]);
    let e = resolution_error(resume(history, DeferredResults::new()));
    assert_eq!(e, ResolutionError::CallWithoutId("gated".into()));
}

#[test]
fn defer_02_duplicate_pending_ids_are_refused() {
    let history = paused_history(&["c1", "c1"]);
    let e = resolution_error(resume(history, DeferredResults::new().external("c1", "x")));
    assert_eq!(e, ResolutionError::DuplicatePendingId("c1".into()));
}

#[test]
fn defer_02_nothing_pending_is_refused() {
    let mut history = paused_history(&["c1"]);
    history.push(Message::tool_result("c1", "gated", "done"));
    let e = resolution_error(resume(history, DeferredResults::new().external("c1", "x")));
    assert_eq!(e, ResolutionError::NothingPending);
}

#[test]
fn defer_02_approval_for_an_id_not_pending_is_refused() {
    let resolutions = DeferredResults::new().external("c1", "x").approval("c9", Approval::approve());
    let e = resolution_error(resume(paused_history(&["c1"]), resolutions));
    assert_eq!(e, ResolutionError::ApprovalNotPending("c9".into()));
}

#[test]
fn defer_02_an_id_resolved_both_ways_is_refused() {
    let resolutions = DeferredResults::new().external("c1", "x").approval("c1", Approval::approve());
    let e = resolution_error(resume(paused_history(&["c1"]), resolutions));
    assert_eq!(e, ResolutionError::ResolvedBothWays("c1".into()));
}

#[test]
fn defer_02_external_result_for_an_id_not_pending_is_refused() {
    let resolutions = DeferredResults::new().external("c1", "x").external("c9", "y");
    let e = resolution_error(resume(paused_history(&["c1"]), resolutions));
    assert_eq!(e, ResolutionError::ExternalNotPending("c9".into()));
}

#[test]
fn defer_02_an_unresolved_pending_call_is_refused() {
    let resolutions = DeferredResults::new().external("c1", "x");
    let e = resolution_error(resume(paused_history(&["c1", "c2"]), resolutions));
    assert_eq!(e, ResolutionError::Unresolved("c2".into()));
}

#[test]
fn defer_02_prompt_validation_precedes_resolution_checks() {
    let mut start = resume(paused_history(&[""]), DeferredResults::new());
    start.prompt = Some({
        let mut built = golem_core::machine::Prompt::default();
        built.text = "more".into();
        built.parts = vec![Part::image_data("", vec![1u8, 2, 3])];
        built
    });
    assert!(matches!(setup_error(start), SetupError::InvalidPart { index: 0, .. }));
}

#[test]
fn defer_02_call_without_id_precedes_duplicate_pending_ids() {
    let history = paused_history(&["", "c1", "c1"]);
    let e = resolution_error(resume(history, DeferredResults::new()));
    assert_eq!(e, ResolutionError::CallWithoutId("gated".into()));
}

#[test]
fn defer_02_approval_not_pending_precedes_resolved_both_ways() {
    // "a" is resolved both ways and "zz" is approved but not pending: the
    // documented order checks approvals for pending ids first.
    let resolutions = DeferredResults::new()
        .approval("a", Approval::approve())
        .approval("zz", Approval::approve())
        .external("a", "x");
    let e = resolution_error(resume(paused_history(&["a"]), resolutions));
    assert_eq!(e, ResolutionError::ApprovalNotPending("zz".into()));
}

#[test]
fn defer_02_resolved_both_ways_precedes_external_not_pending() {
    let resolutions =
        DeferredResults::new().approval("c1", Approval::approve()).external("c1", "x").external("c0", "y");
    let e = resolution_error(resume(paused_history(&["c1"]), resolutions));
    assert_eq!(e, ResolutionError::ResolvedBothWays("c1".into()));
}

#[test]
fn defer_02_external_not_pending_precedes_unresolved() {
    let resolutions = DeferredResults::new().external("c9", "y");
    let e = resolution_error(resume(paused_history(&["c1"]), resolutions));
    assert_eq!(e, ResolutionError::ExternalNotPending("c9".into()));
}

// ---------------------------------------------------------------------------
// DEFER-03: denials, externals, approved re-runs
// ---------------------------------------------------------------------------

#[test]
fn defer_03_deny_with_and_without_reason_and_external_verbatim() {
    let history = paused_history(&["c1", "c2", "c3"]);
    let resolutions = DeferredResults::new()
        .approval("c1", Approval::deny("too risky"))
        .approval("c2", Approval::deny(""))
        .external("c3", "  EXTERNAL {raw} result\n");
    let mut sim =
        Sim::new(config(&["gated"]), resume(history, resolutions), Sim::scripted(vec![text("fine")])).unwrap();
    let summary = completed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 0, "denials and externals run nothing");
    assert_eq!(
        tool_messages(&sim.requests()[0].messages),
        vec![
            ("c1", "Your tool call was denied: too risky. Do not call it again; continue without its result."),
            ("c2", "Your tool call was denied. Do not call it again; continue without its result."),
            ("c3", "  EXTERNAL {raw} result\n"),
        ]
    );
    assert_eq!(summary.tool_calls, 0);
}

fn approved_rerun(outcome: ToolOutcome) -> (Sim, Outcome) {
    let mut cfg = config(&["gated"]);
    cfg.retry.tool_retries = 5;
    let start = resume(paused_history(&["c1"]), DeferredResults::new().approval("c1", Approval::approve()));
    let mut sim =
        Sim::new(cfg, start, Sim::scripted(vec![text("never")])).unwrap().tool("gated", move |_, approved| {
            assert!(approved, "a re-run carries the approved marker");
            ToolReply::outcome(MS, outcome.clone())
        });
    let outcome = sim.run();
    (sim, outcome)
}

#[test]
fn defer_03_approved_rerun_that_rejects_fails_at_tool_stage() {
    let (sim, outcome) = approved_rerun(ToolOutcome::Reject { reason: "bad args".into() });
    let error = failed(outcome);
    assert_eq!(error.stage, Stage::Tool, "no correction budget applies to re-runs");
    assert_eq!(count(&sim, "call_model"), 0);
    assert_eq!(error.partial.unwrap().tool_calls, 1);
}

#[test]
fn defer_03_approved_rerun_that_defers_again_fails_at_tool_stage() {
    let (_, outcome) = approved_rerun(ToolOutcome::Defer { kind: DeferKind::Approval, reason: "again".into() });
    assert_eq!(failed(outcome).stage, Stage::Tool);
}

#[test]
fn defer_03_approved_rerun_that_fails_fatally_fails_at_tool_stage() {
    let (_, outcome) = approved_rerun(ToolOutcome::Fatal { cause: CauseRecord::new("io", "gone") });
    let error = failed(outcome);
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(error.to_string(), "tool stage: tool gated failed: gone");
}

#[test]
fn defer_03_approved_rerun_that_cancels_ends_at_canceled_stage() {
    let (_, outcome) = approved_rerun(ToolOutcome::CancelRun { reason: "stop".into() });
    assert_eq!(failed(outcome).stage, Stage::Canceled);
}

#[test]
fn defer_04_approved_rerun_uses_the_tool_timeout_and_flags_events() {
    let mut cfg = config(&["gated"]);
    cfg.tool_timeout = Some(SEC);
    cfg.tools[0].timeout = Some(20 * MS);
    let start = resume(paused_history(&["c1"]), DeferredResults::new().approval("c1", Approval::approve()));
    let mut sim =
        Sim::new(cfg, start, Sim::scripted(vec![text("never")])).unwrap().tool("gated", |_, _| ToolReply::stuck());
    let error = failed(sim.run());
    let l = lines(&sim);
    assert!(l.contains(&"execute_tool #0 gated deadline 20ms approved"), "{l:#?}");
    assert!(l.contains(&"cancel_tool #0"));
    assert_eq!(sim.event_lines()[0], "tool_start c1 gated approved");
    assert!(sim.event_lines()[1].starts_with("tool_end c1 gated approved error:"));
    assert_eq!(error.stage, Stage::Tool);
}

// ---------------------------------------------------------------------------
// DEFER-05: placement; paused history in a plain run
// ---------------------------------------------------------------------------

fn half_answered_history() -> Vec<Message> {
    let mut history = paused_history(&["c1", "c2", "c3"]);
    history.push(Message::tool_result("c2", "gated", "two"));
    history
}

#[test]
fn defer_05_resolutions_of_the_last_turn_are_interleaved_in_emission_order() {
    let resolutions = DeferredResults::new().approval("c1", Approval::approve()).external("c3", "three");
    let mut sim =
        Sim::new(config(&["gated"]), resume(half_answered_history(), resolutions), Sim::scripted(vec![text("ok")]))
            .unwrap()
            .tool("gated", |_, _| ToolReply::output(MS, "one"));
    let summary = completed(sim.run());
    let request = &sim.requests()[0];
    assert_eq!(tool_messages(&request.messages), vec![("c1", "one"), ("c2", "two"), ("c3", "three")]);
    // A resume without a prompt adds no user message (RUN-02).
    assert_eq!(request.messages.len(), 5);
    assert_eq!(request.messages.last().unwrap().tool_call_id, "c3");
    assert_eq!(summary.tool_calls, 1);
}

#[test]
fn defer_05_paused_history_in_a_plain_run_gets_interrupted_results_through_repair() {
    let start = Start::prompt("carry on").with_history(half_answered_history());
    let mut sim = Sim::new(config(&["gated"]), start, Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    let request = &sim.requests()[0];
    assert_eq!(
        tool_messages(&request.messages),
        vec![("c1", texts::INTERRUPTED_RESULT), ("c3", texts::INTERRUPTED_RESULT), ("c2", "two")]
    );
    assert_eq!(request.messages.last().unwrap(), &Message::user("carry on"));
}

// ---------------------------------------------------------------------------
// HIST-02, RUN-02: the preamble
// ---------------------------------------------------------------------------

#[test]
fn hist_02_history_system_messages_are_replaced_by_the_instructions() {
    let history =
        vec![Message::system("old rules"), Message::user("q"), Message::system("more old"), Message::assistant("a")];
    let start = Start::prompt("next").with_history(history.clone()).with_instructions("new rules");
    let mut sim = Sim::new(config(&[]), start, Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    assert_eq!(
        *sim.requests()[0].messages,
        vec![Message::system("new rules"), Message::user("q"), Message::assistant("a"), Message::user("next")]
    );
}

#[test]
fn hist_02_without_instructions_history_system_messages_are_dropped() {
    let history = vec![Message::system("old rules"), Message::user("q"), Message::assistant("a")];
    let start = Start::prompt("next").with_history(history);
    let mut sim = Sim::new(config(&[]), start, Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    assert!(sim.requests()[0].messages.iter().all(|m| m.role != Role::System));
    assert_eq!(sim.requests()[0].messages.len(), 3);
}

#[test]
fn run_02_preamble_order() {
    // repair → drop system → prepend instructions → append prompt.
    let history = vec![Message::system("old"), Message::user("q"), Message::assistant_calls(vec![call("c1", "gated")])];
    let start = Start::prompt("next").with_history(history).with_instructions("inst");
    let mut sim = Sim::new(config(&["gated"]), start, Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    let roles: Vec<Role> = sim.requests()[0].messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::System, Role::User, Role::Assistant, Role::Tool, Role::User]);
    assert_eq!(sim.requests()[0].messages[0].content, "inst");
    assert_eq!(sim.requests()[0].messages[3].content, texts::INTERRUPTED_RESULT);
    assert_eq!(sim.requests()[0].messages[4].content, "next");
}

#[test]
fn run_02_empty_prompt_still_yields_a_user_message() {
    let mut sim = Sim::new(config(&[]), Start::prompt(""), Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    assert_eq!(*sim.requests()[0].messages, vec![Message::user("")]);
    let start = {
        let mut start = Start::default();
        start.history = vec![Message::user("q"), Message::assistant("a")];
        start
    };
    let mut sim = Sim::new(config(&[]), start, Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    assert_eq!(sim.requests()[0].messages.last().unwrap(), &Message::user(""));
}

#[test]
fn run_02_resume_with_a_prompt_appends_it_after_the_resolutions() {
    let mut start = resume(paused_history(&["c1"]), DeferredResults::new().external("c1", "x"));
    start.prompt = Some(Prompt::text("and now?"));
    let mut sim = Sim::new(config(&["gated"]), start, Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    let messages = &sim.requests()[0].messages;
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[2], Message::tool_result("c1", "gated", "x"));
    assert_eq!(messages[3], Message::user("and now?"));
}

#[test]
fn run_02_resume_without_a_prompt_adds_no_user_message() {
    let start = resume(paused_history(&["c1"]), DeferredResults::new().external("c1", "x"));
    let mut sim = Sim::new(config(&["gated"]), start, Sim::scripted(vec![text("ok")])).unwrap();
    completed(sim.run());
    assert_eq!(sim.requests()[0].messages.last().unwrap(), &Message::tool_result("c1", "gated", "x"));
}

// ---------------------------------------------------------------------------
// MACH-07, ERR-02, ERR-05: cancellation and the run deadline
// ---------------------------------------------------------------------------

#[test]
fn mach_07_after_turn_lets_the_batch_finish_then_ends_before_the_next_model_call() {
    let replies = vec![calls(vec![call("c1", "alpha"), call("c2", "alpha")]), text("never")];
    let mut sim = Sim::new(config(&["alpha"]), Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |c, _| ToolReply::output(100 * MS, format!("r{}", c.id)))
        .inject(50 * MS, cancel(CancelMode::AfterTurn));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "call_model"), 1);
    assert_eq!(count(&sim, "cancel_tool"), 0);
    assert_eq!(error.stage, Stage::Model);
    assert!(error.is_canceled());
    assert_eq!(error.cause, Cause::Canceled { reason: CancelReason::Caller, message: String::new() });
    let partial = error.partial.unwrap();
    assert_eq!(tool_messages(&partial.messages), vec![("c1", "rc1"), ("c2", "rc2")]);
    assert_eq!(sim.event_lines().last().unwrap(), "canceled Caller");
}

#[test]
fn err_05_caller_cancel_mid_batch_keeps_finished_results_and_interrupts_the_rest() {
    let replies = vec![calls(vec![call("c1", "fast"), call("c2", "slow"), call("c3", "fast")])];
    let mut sim = Sim::new(config(&["fast", "slow"]), Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("fast", |_, _| ToolReply::output(10 * MS, "quick"))
        .tool("slow", |_, _| ToolReply::output(100 * MS, "late"))
        .inject(50 * MS, cancel(CancelMode::Immediate));
    let error = failed(sim.run());
    assert!(lines(&sim).contains(&"cancel_tool #2"));
    assert_eq!(error.stage, Stage::Tool);
    assert!(error.is_canceled());
    let partial = error.partial.unwrap();
    assert_eq!(
        tool_messages(&partial.messages),
        vec![("c1", "quick"), ("c2", texts::INTERRUPTED_RESULT), ("c3", texts::INTERRUPTED_RESULT)]
    );
    assert_eq!(partial.tool_calls, 2);
}

#[test]
fn err_05_caller_cancel_in_a_parallel_group_keeps_every_finished_result() {
    let mut cfg = config(&["fast", "slow", "flaky"]);
    cfg.parallel_tools = true;
    let replies = vec![calls(vec![call("c1", "fast"), call("c2", "slow"), call("c3", "flaky")])];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("fast", |_, _| ToolReply::output(10 * MS, "quick"))
        .tool("slow", |_, _| ToolReply::output(100 * MS, "late"))
        .tool("flaky", |_, _| ToolReply::outcome(20 * MS, ToolOutcome::failed("disk full")))
        .inject(50 * MS, cancel(CancelMode::Immediate));
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Tool);
    let partial = error.partial.unwrap();
    assert_eq!(
        tool_messages(&partial.messages),
        vec![("c1", "quick"), ("c2", texts::INTERRUPTED_RESULT), ("c3", "disk full")],
        "a finished failed result is a result and is kept"
    );
    assert!(partial.messages.last().unwrap().failed);
}

#[test]
fn mach_07_run_deadline_cancels_with_reason_deadline() {
    let mut cfg = config(&[]);
    cfg.run_deadline = Some(SEC);
    let replies = vec![ModelReply::ok(5 * SEC, Response::text("too slow"))];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    let l = lines(&sim);
    assert!(l.contains(&"wait RunDeadline until 1000ms"), "{l:#?}");
    assert!(l.contains(&"cancel_model #0"));
    assert_eq!(sim.event_lines().last().unwrap(), "canceled Deadline");
    assert_eq!(error.stage, Stage::Model);
    assert_eq!(error.cause, Cause::Canceled { reason: CancelReason::Deadline, message: String::new() });
    assert!(error.is_canceled());
    assert_eq!(error.to_string(), "model stage: run deadline exceeded");
}

#[test]
fn err_02_run_deadline_mid_batch_fails_at_tool_stage() {
    let mut cfg = config(&["slow"]);
    cfg.run_deadline = Some(SEC);
    let replies = vec![calls(vec![call("c1", "slow")])];
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .tool("slow", |_, _| ToolReply::output(5 * SEC, "late"));
    let error = failed(sim.run());
    assert!(lines(&sim).contains(&"cancel_tool #1"));
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(error.cause, Cause::Canceled { reason: CancelReason::Deadline, message: String::new() });
    assert_eq!(tool_messages(&error.partial.unwrap().messages), vec![("c1", texts::INTERRUPTED_RESULT)]);
}

#[test]
fn err_02_cancel_while_decoding_fails_at_model_stage() {
    let mut machine = RunMachine::new(config(&[]), Start::prompt("hi"), Moment::ZERO).unwrap();
    let model = machine
        .drain()
        .into_iter()
        .find_map(|o| match o {
            Output::Command(Command::CallModel { id, .. }) => Some(id),
            _ => None,
        })
        .unwrap();
    let outputs = machine
        .step(Moment::from_millis(1), Input::ModelFinished { id: model, result: Ok(Box::new(Response::text("4"))) })
        .unwrap();
    assert!(outputs.iter().any(|o| matches!(o, Output::Command(Command::Decode { .. }))));
    let outputs = machine.step(Moment::from_millis(2), cancel(CancelMode::Immediate)).unwrap();
    assert_eq!(outputs.last(), Some(&Output::Done));
    let error = failed(machine.outcome().cloned().unwrap());
    assert_eq!(error.stage, Stage::Model);
    assert!(error.is_canceled());
    assert_eq!(error.partial.unwrap().messages.last().unwrap().content, "4");
}

/// SPEC DEFER-06: resuming a paused run from its log fails closed — a
/// resolution must name a call the run deferred, of the kind it deferred it
/// as (golem-core decides; the drivers only ask).
#[test]
fn defer_06_resolutions_must_match_the_kind_of_each_pending_call() {
    use golem_core::deferral::{Approval, DeferredRequests, DeferredResults, PendingCall};
    let mut pending = DeferredRequests::default();
    pending.approvals.push(PendingCall::new("a1", "refund", r#"{"amount":5}"#));
    pending.external.push(PendingCall::new("e1", "lookup", "{}"));
    let both = DeferredResults::new().approval("a1", Approval::deny("no")).external("e1", "42");
    assert_eq!(pending.admits(&both), Ok(()));
    assert_eq!(pending.admits(&DeferredResults::new()), Ok(()), "leaving calls pending is the machine's call");
    let approve_external = DeferredResults::new().approval("e1", Approval::approve());
    assert_eq!(pending.admits(&approve_external), Err(ResolutionError::ApprovalNotPending("e1".into())));
    let answer_approval = DeferredResults::new().external("a1", "done");
    assert_eq!(pending.admits(&answer_approval), Err(ResolutionError::ExternalNotPending("a1".into())));
    let unknown = DeferredResults::new().external("zz", "?");
    assert_eq!(pending.admits(&unknown), Err(ResolutionError::ExternalNotPending("zz".into())));
}

/// The command of `outputs` that `pick` finds.
fn command_of<T>(outputs: &[Output], pick: impl Fn(&Command) -> Option<T>) -> T {
    outputs.iter().find_map(|o| if let Output::Command(c) = o { pick(c) } else { None }).expect("the command")
}

/// A machine that called `delegate` once, its tool call started; the
/// machine and the tool call's id.
fn delegating(limits: UsageLimits, start: Start) -> (RunMachine, golem_core::machine::ToolCallId) {
    let mut cfg = config(&["delegate"]);
    cfg.limits = limits;
    let mut machine = RunMachine::new(cfg, start, Moment::ZERO).unwrap();
    let model = command_of(&machine.drain(), |c| match c {
        Command::CallModel { id, .. } => Some(*id),
        _ => None,
    });
    let call = ToolCall::new("d1", "delegate", "{}");
    let answer = Response::tool_calls(vec![call]).with_usage(Usage::new(8, 2));
    let outputs =
        machine.step(Moment::from_millis(1), Input::ModelFinished { id: model, result: Ok(Box::new(answer)) }).unwrap();
    let tool = command_of(&outputs, |c| match c {
        Command::ExecuteTool { id, .. } => Some(*id),
        _ => None,
    });
    machine.step(Moment::from_millis(2), Input::ToolStarted { id: tool }).unwrap();
    (machine, tool)
}

/// Issue 31 (SPEC DELEG-04 as amended): a sub-run's spending joins the
/// run's totals, is listed per call and is heard as an event.
#[test]
fn deleg_04_a_sub_runs_spending_joins_the_totals() {
    let (mut machine, tool) = delegating(UsageLimits::new(), Start::prompt("go"));
    assert_eq!(machine.limits_left(), UsageLimits::new(), "unbounded stays unbounded");
    let spent = SubRunUsage::new(Usage::new(40, 10), 2, 1, Some(0.5));
    let outputs = machine.step(Moment::from_millis(3), Input::SubRunSpent { id: tool, spent }).unwrap();
    assert!(outputs.iter().any(|o| matches!(o, Output::Event(e) if matches!(&e.kind, EventKind::SubRunSpent { call_id, tool, .. } if call_id == "d1" && tool == "delegate"))));
    let outputs = machine
        .step(Moment::from_millis(4), Input::ToolFinished { id: tool, outcome: ToolOutcome::output("done") })
        .unwrap();
    let model = command_of(&outputs, |c| match c {
        Command::CallModel { id, .. } => Some(*id),
        _ => None,
    });
    let outputs = machine
        .step(
            Moment::from_millis(5),
            Input::ModelFinished { id: model, result: Ok(Box::new(Response::text("ok").with_usage(Usage::new(8, 2)))) },
        )
        .unwrap();
    let decode = command_of(&outputs, |c| match c {
        Command::Decode { id, .. } => Some(*id),
        _ => None,
    });
    machine.step(Moment::from_millis(6), Input::Decoded { id: decode, verdict: Verdict::Accepted }).unwrap();
    let summary = completed(machine.outcome().cloned().unwrap());
    assert_eq!((summary.usage.total_tokens(), summary.requests, summary.tool_calls), (70, 4, 2));
    assert_eq!(summary.sub_runs.len(), 1);
    assert_eq!(summary.sub_runs[0].spent, spent);
}

/// Issue 31: what the limits leave a sub-run, and a sub-run's spending that
/// crosses a limit fails the run at the usage stage with the whole tree's
/// count.
#[test]
fn deleg_04_a_sub_run_crossing_the_limit_fails_the_run() {
    let limits = UsageLimits::new().total_tokens(100).requests(10);
    let (mut machine, tool) = delegating(limits, Start::prompt("go"));
    assert_eq!(machine.limits_left(), UsageLimits::new().total_tokens(90).requests(9));
    let spent = SubRunUsage::new(Usage::new(4_000, 1_000), 1, 0, None);
    let outputs = machine.step(Moment::from_millis(3), Input::SubRunSpent { id: tool, spent }).unwrap();
    assert_eq!(outputs.last(), Some(&Output::Done));
    let error = failed(machine.outcome().cloned().unwrap());
    assert_eq!(error.stage, Stage::Usage);
    let Cause::Usage(crossed) = error.cause else { panic!() };
    assert_eq!((crossed.limit, crossed.actual), (100, 5_010));
}

/// Issue 31: limits a start inherits from a delegating run tighten the
/// configuration's, dimension by dimension.
#[test]
fn deleg_04_inherited_limits_tighten_the_configurations() {
    let mut start = Start::prompt("go");
    start.limits = Some(UsageLimits::new().total_tokens(50).tool_calls(3));
    let (machine, _) = delegating(UsageLimits::new().total_tokens(100).requests(10), start);
    // 10 tokens, 1 request and 1 tool call used.
    assert_eq!(machine.limits_left(), UsageLimits::new().total_tokens(40).requests(9).tool_calls(2));
}

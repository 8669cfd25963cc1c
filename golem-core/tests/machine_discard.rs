//! Streamed turns that fail after fragments reached the caller (SPEC
//! RETRY-06, ERR-05, EVT-01): discard-and-retry when the policy opts in, a
//! reported `retry_declined` when it does not, and the forwarded fragments
//! kept as incomplete evidence either way. Simulated time throughout.

use crate::outcomes::{completed, failed};
use golem_core::log::{outputs_digest, replay};
use golem_core::machine::{CancelMode, Input, Output, Start};
use golem_core::sim::{ModelReply, Sim};
use golem_core::*;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn config(policy: RetryPolicy, models: u32) -> RunConfig {
    let mut config = RunConfig::default();
    config.retry = policy;
    config.models = models;
    config.tools = vec![ToolSpec::new("lookup", "", serde_json::json!({"type": "object"}))];
    config
}

fn streamed() -> Start {
    Start::prompt("hi").with_stream(true).with_jitter_phase(7)
}

/// A streamed reply of `text`, as its fragments and its response.
fn text(words: &[&str]) -> ModelReply {
    let deltas = words.iter().map(|w| Delta::text(*w)).collect();
    ModelReply::ok(10 * MS, Response::text(words.concat())).with_deltas(deltas)
}

/// Fragments `words`, then a reset.
fn broken(words: &[&str]) -> ModelReply {
    let deltas = words.iter().map(|w| Delta::text(*w)).collect();
    ModelReply::err(10 * MS, ModelError::transport("connection reset mid-stream")).with_deltas(deltas)
}

/// The fragment opening call `id` to `name` with `args`.
fn call_delta(id: &str, name: &str, args: &str) -> Delta {
    Delta::ToolCall { index: 0, id: id.into(), name: name.into(), args: args.into(), signature: String::new() }
}

fn lookup_call() -> ModelReply {
    let call = ToolCall::new("c1", "lookup", r#"{"q":"x"}"#);
    let delta = call_delta("c1", "lookup", r#"{"q":"x"}"#);
    ModelReply::ok(10 * MS, Response::tool_calls(vec![call])).with_deltas(vec![delta])
}

fn sim(policy: RetryPolicy, models: u32, replies: Vec<ModelReply>) -> Sim {
    Sim::new(config(policy, models), streamed(), Sim::scripted(replies))
        .unwrap()
        .tool("lookup", |_, _| golem_core::sim::ToolReply::output(MS, "found"))
}

/// The event lines without deltas.
fn events(sim: &Sim) -> Vec<String> {
    sim.event_lines().into_iter().filter(|l| !l.starts_with("delta")).collect()
}

/// The text deltas of each attempt, split where the run discarded a turn.
fn shown(sim: &Sim) -> Vec<String> {
    let mut shown = vec![String::new()];
    for event in sim.events() {
        match &event.kind {
            EventKind::Delta { delta: Delta::Text { text }, .. } => shown.last_mut().unwrap().push_str(text),
            EventKind::TurnDiscarded { .. } => shown.push(String::new()),
            _ => {}
        }
    }
    shown
}

#[test]
fn retry_06_discard_and_retry_announces_the_discard_then_retries_like_a_plain_turn() {
    let replies = vec![broken(&["The ans"]), text(&["The answer", " is 42."])];
    let mut sim = sim(RetryPolicy::recommended(), 1, replies);
    let summary = completed(sim.run());
    assert_eq!(summary.messages.last().unwrap().content, "The answer is 42.");
    assert_eq!(summary.requests, 2);
    let lines = events(&sim);
    assert_eq!(
        lines[..4],
        [
            "model_start t0 a1 m0",
            "model_end t0 a1 m0 error: connection reset mid-stream",
            "turn_discarded t0 a1 m0",
            lines[3].as_str()
        ]
    );
    assert!(lines[3].starts_with("retrying t0 a2 after "), "{lines:#?}");
    assert_eq!(lines[4..], ["model_start t0 a2 m0", "model_end t0 a2 m0"]);
    // What survives the discard concatenates to the content (SPEC STREAM-04).
    assert_eq!(shown(&sim), ["The ans", "The answer is 42."]);
}

#[test]
fn retry_06_discard_and_retry_also_moves_to_the_next_fallback_member() {
    let replies = vec![broken(&["Hel"]), text(&["Hello"])];
    let mut sim = sim(RetryPolicy::new().discard_and_retry(true), 2, replies);
    completed(sim.run());
    assert_eq!(
        events(&sim),
        [
            "model_start t0 a1 m0",
            "model_end t0 a1 m0 error: connection reset mid-stream",
            "turn_discarded t0 a1 m0",
            "model_start t0 a1 m1",
            "model_end t0 a1 m1",
        ]
    );
}

#[test]
fn retry_06_a_tool_turn_cut_short_is_retried_and_its_tool_runs_once() {
    let cut = call_delta("c1", "lookup", r#"{"q":"#);
    let replies = vec![
        ModelReply::err(10 * MS, ModelError::new(ModelErrorKind::Truncated, "cut")).with_deltas(vec![cut]),
        lookup_call(),
        text(&["done"]),
    ];
    let mut sim = sim(RetryPolicy::recommended(), 1, replies);
    let summary = completed(sim.run());
    assert_eq!((summary.requests, summary.tool_calls, sim.executions()), (3, 1, 1));
}

#[test]
fn retry_06_without_the_opt_in_a_retry_left_unused_is_declined_and_reported() {
    let replies = vec![broken(&["The ans"]), text(&["never asked"])];
    let mut sim = sim(RetryPolicy::new().max_attempts(3), 1, replies);
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Model);
    let cause = error.model_error().expect("a model error");
    assert!(cause.retryable, "the fault was transient; the run declined to repeat the turn");
    assert_eq!(error.retry_declined(), Some(DeclineReason::FragmentsForwarded));
    assert_eq!(error.requests, 1);
    assert_eq!(
        events(&sim),
        [
            "model_start t0 a1 m0",
            "model_end t0 a1 m0 error: connection reset mid-stream",
            "retry_declined t0 a1 m0: fragments of the streamed turn had reached the caller",
        ]
    );
    // The text the caller saw is evidence, apart from the conversation.
    let partial = error.partial.expect("forwarded fragments are evidence");
    let incomplete = partial.incomplete.expect("the incomplete turn");
    assert_eq!((incomplete.role, incomplete.content.as_str()), (Role::Assistant, "The ans"));
    assert_eq!(partial.messages.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User]);
    let json = serde_json::to_value(error.retry_declined).unwrap();
    assert_eq!(json, "fragments_forwarded");
}

#[test]
fn retry_06_with_no_attempt_left_nothing_is_declined_but_the_fragments_stay_evidence() {
    let mut sim = sim(RetryPolicy::new(), 1, vec![lookup_call(), broken(&["It is ", "sun"])]);
    let error = failed(sim.run());
    assert_eq!(error.retry_declined(), None);
    assert!(!sim.event_lines().iter().any(|l| l.starts_with("retry_declined")));
    let partial = error.partial.expect("evidence");
    // The completed tool turn, then the cut one, marked incomplete.
    let roles: Vec<Role> = partial.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
    let incomplete = partial.incomplete.unwrap();
    assert_eq!(incomplete.content, "It is sun");
    assert_eq!(incomplete.run_id, partial.messages[1].run_id, "stamped like the run's messages");
}

#[test]
fn retry_06_an_incomplete_tool_call_is_evidence_and_never_runs() {
    let cut = call_delta("c9", "lookup", r#"{"q":"ha"#);
    let reply = ModelReply::err(10 * MS, ModelError::new(ModelErrorKind::Truncated, "cut")).with_deltas(vec![cut]);
    let mut sim = sim(RetryPolicy::new(), 1, vec![reply]);
    let error = failed(sim.run());
    assert_eq!(sim.executions(), 0);
    let incomplete = error.partial.unwrap().incomplete.unwrap();
    assert_eq!(incomplete.tool_calls.len(), 1);
    assert_eq!((incomplete.tool_calls[0].id.as_str(), incomplete.tool_calls[0].args.as_str()), ("c9", r#"{"q":"ha"#));
}

#[test]
fn retry_06_a_streamed_turn_that_completed_is_never_incomplete_evidence() {
    // The turn arrives whole; its tool call is refused with no budget left.
    let call = ToolCall::new("c1", "nope", "{}");
    let delta = call_delta("c1", "nope", "{}");
    let reply = ModelReply::ok(10 * MS, Response::tool_calls(vec![call])).with_deltas(vec![delta]);
    let mut sim = sim(RetryPolicy::new(), 1, vec![reply]);
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Tool);
    let partial = error.partial.unwrap();
    assert_eq!(partial.incomplete, None);
    assert_eq!(partial.messages.len(), 2, "the completed turn is in the conversation");
}

#[test]
fn retry_06_a_discarded_turn_is_not_evidence_of_a_later_failure() {
    let policy = RetryPolicy::new().max_attempts(2).discard_and_retry(true);
    let replies = vec![broken(&["first try"]), ModelReply::err(10 * MS, ModelError::api(503, "busy"))];
    let mut sim = sim(policy, 1, replies);
    let error = failed(sim.run());
    assert!(error.partial.is_none(), "the caller cleared the discarded turn: {:?}", error.partial);
    assert_eq!(error.requests, 2);
}

#[test]
fn retry_06_a_cancellation_mid_stream_keeps_what_was_forwarded() {
    let reply = ModelReply::ok(100 * MS, Response::text("slow answer")).with_deltas(vec![Delta::text("slow ")]);
    let mut sim = sim(RetryPolicy::new(), 1, vec![reply]).inject(
        80 * MS,
        Input::Cancel { reason: golem_core::error::CancelReason::Caller, mode: CancelMode::Immediate },
    );
    let error = failed(sim.run());
    assert!(error.is_canceled());
    assert_eq!(error.partial.unwrap().incomplete.unwrap().content, "slow ");
}

#[test]
fn retry_06_a_plain_turn_that_fails_leaves_no_incomplete_evidence() {
    let mut cfg = config(RetryPolicy::new(), 1);
    cfg.retry.discard_and_retry = true;
    let mut sim = Sim::new(cfg, Start::prompt("hi"), Sim::scripted(vec![broken(&["never streamed"])])).unwrap();
    let error = failed(sim.run());
    assert!(error.partial.is_none());
}

#[test]
fn log_02_a_discarded_turn_replays_exactly() {
    let replies = vec![broken(&["The ans"]), text(&["The answer"])];
    let mut sim = sim(RetryPolicy::recommended(), 1, replies);
    let outcome = sim.run();
    let log = sim.log();
    let replayed = replay(&log).expect("the log replays");
    assert_eq!(replayed.machine.outcome(), Some(&outcome));
    let discarded = replayed
        .outputs
        .iter()
        .flatten()
        .filter(|o| matches!(o, Output::Event(e) if matches!(e.kind, EventKind::TurnDiscarded { .. })))
        .count();
    assert_eq!(discarded, 1);
}

#[test]
fn log_03_a_declined_retry_is_left_out_of_the_digest_so_older_logs_still_check() {
    let replies = vec![broken(&["The ans"])];
    let mut sim = sim(RetryPolicy::new().max_attempts(2), 1, replies);
    let outcome = sim.run();
    let log = sim.log();
    let replayed = replay(&log).expect("the log replays");
    assert_eq!(replayed.machine.outcome(), Some(&outcome));
    // The record that failed the run: its outputs with and without the
    // event (as a log written before it existed saw them) digest alike.
    let last = replayed.outputs.last().unwrap();
    assert!(last.iter().any(|o| matches!(o, Output::Event(e) if matches!(e.kind, EventKind::RetryDeclined { .. }))));
    let without: Vec<Output> = last
        .iter()
        .filter(|o| !matches!(o, Output::Event(e) if matches!(e.kind, EventKind::RetryDeclined { .. })))
        .cloned()
        .collect();
    assert_eq!(outputs_digest(last), outputs_digest(&without));
    assert_eq!(log.records.last().unwrap().out.as_deref(), Some(outputs_digest(&without).as_str()));
}

#[test]
fn evt_01_the_new_events_serialise_with_their_tags() {
    let discarded = EventKind::TurnDiscarded { turn: 0, attempt: 1, member: 0 };
    assert_eq!(
        serde_json::to_value(&discarded).unwrap(),
        serde_json::json!({"event": "turn_discarded", "turn": 0, "attempt": 1, "member": 0})
    );
    let declined =
        EventKind::RetryDeclined { turn: 2, attempt: 1, member: 1, reason: DeclineReason::FragmentsForwarded };
    let json = serde_json::to_value(&declined).unwrap();
    assert_eq!(json["event"], "retry_declined");
    assert_eq!(json["reason"], "fragments_forwarded");
    assert_eq!(serde_json::from_value::<EventKind>(json).unwrap(), declined);
}

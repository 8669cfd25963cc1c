//! Tool batches, tool choice and tool-mode output in simulated time
//! (SPEC TOOL, RUN-04, RUN-06, RUN-11, OUT-04..06). One test per behaviour,
//! named after the SPEC item it pins.

use crate::outcomes::{completed, failed};
use golem_core::config::OutputMode;
use golem_core::error::{CancelReason, ToolFailure, ToolFailureKind};
use golem_core::machine::{Start, ToolOutcome, Verdict};
use golem_core::model::WireToolChoice;
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::tool::TimeoutPolicy;
use golem_core::*;
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn spec(name: &str) -> ToolSpec {
    ToolSpec::new(name, format!("the {name} tool"), json!({"type": "object"}))
}

fn config(tools: &[&str]) -> RunConfig {
    {
        let mut config = RunConfig::default();
        config.tools = tools.iter().map(|n| spec(n)).collect();
        config
    }
}

fn parallel(tools: &[&str]) -> RunConfig {
    {
        let mut built = config(tools);
        built.parallel_tools = true;
        built
    }
}

fn with_tool_retries(mut cfg: RunConfig, n: u32) -> RunConfig {
    cfg.retry.tool_retries = n;
    cfg
}

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall::new(id, name, args)
}

fn calls(list: Vec<ToolCall>) -> ModelReply {
    ModelReply::ok(MS, Response::tool_calls(list))
}

fn text(content: &str) -> ModelReply {
    ModelReply::ok(MS, Response::text(content))
}

fn lines(sim: &Sim) -> Vec<&str> {
    sim.transcript().iter().map(String::as_str).collect()
}

fn count(sim: &Sim, prefix: &str) -> usize {
    sim.transcript().iter().filter(|l| l.starts_with(prefix)).count()
}

fn tool_failure(error: &RunError) -> &ToolFailure {
    match &error.cause {
        Cause::Tool(failure) => failure,
        other => panic!("expected a tool failure, got {other:#?}"),
    }
}

fn tool_messages(messages: &[Message]) -> Vec<(&str, &str)> {
    messages.iter().filter(|m| m.role == Role::Tool).map(|m| (m.tool_call_id.as_str(), m.content.as_str())).collect()
}

fn rejected(reason: &str) -> ToolReply {
    ToolReply::outcome(MS, ToolOutcome::Reject { reason: reason.into() })
}

fn fatal(message: &str) -> ToolOutcome {
    ToolOutcome::Fatal { cause: CauseRecord::new("test", message) }
}

// ---------------------------------------------------------------------------
// TOOL-03: correctable rejections
// ---------------------------------------------------------------------------

#[test]
fn tool_03_rejection_with_budget_becomes_correction_text() {
    let cfg = with_tool_retries(config(&["dice"]), 1);
    let replies = vec![calls(vec![call("c1", "dice", r#"{"n":-1}"#)]), text("ok")];
    let mut sim = Sim::new(cfg, Start::prompt("roll"), Sim::scripted(replies))
        .unwrap()
        .tool("dice", |_, _| rejected("n must be positive"));
    let summary = completed(sim.run());
    assert_eq!(
        summary.messages[2],
        Message::tool_result(
            "c1",
            "dice",
            "Your tool call was rejected: n must be positive. Correct the arguments and call the tool again."
        )
    );
    assert_eq!(summary.messages[2].content, texts::tool_rejected("n must be positive"));
    assert_eq!(summary.tool_calls, 1);
}

#[test]
fn tool_03_rejection_without_budget_is_fatal_without_attempt_count() {
    let replies = vec![calls(vec![call("c1", "dice", r#"{"n":-1}"#)])];
    let mut sim = Sim::new(config(&["dice"]), Start::prompt("roll"), Sim::scripted(replies))
        .unwrap()
        .tool("dice", |_, _| rejected("n must be positive"));
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(
        tool_failure(&error).failure,
        ToolFailureKind::Rejected { reason: "n must be positive".into(), attempts: 1 }
    );
    assert_eq!(error.to_string(), "tool stage: tool dice rejected the call: n must be positive");
    assert!(!error.to_string().contains("after"));
}

#[test]
fn tool_03_exhausted_budget_reads_after_n_attempts() {
    let cfg = with_tool_retries(config(&["dice"]), 2);
    let replies = (1..=3).map(|i| calls(vec![call(&format!("c{i}"), "dice", "{}")])).collect();
    let mut sim = Sim::new(cfg, Start::prompt("roll"), Sim::scripted(replies))
        .unwrap()
        .tool("dice", |_, _| rejected("n must be positive"));
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(error.to_string(), "tool stage: tool dice rejected the call after 3 attempts: n must be positive");
    assert_eq!(count(&sim, "execute_tool"), 3);
}

// ---------------------------------------------------------------------------
// TOOL-04: one run-wide budget; per-tool budgets
// ---------------------------------------------------------------------------

#[test]
fn tool_04_budget_is_run_wide_across_tools() {
    let cfg = with_tool_retries(config(&["alpha", "beta"]), 1);
    let replies = vec![calls(vec![call("c1", "alpha", "{}")]), calls(vec![call("c2", "beta", "{}")]), text("done")];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| rejected("bad alpha"))
        .tool("beta", |_, _| rejected("bad beta"));
    let error = failed(sim.run());
    let failure = tool_failure(&error);
    assert_eq!(failure.tool, "beta");
    assert_eq!(failure.failure, ToolFailureKind::Rejected { reason: "bad beta".into(), attempts: 2 });
}

#[test]
fn tool_04_budget_is_not_reset_by_output_rounds() {
    let mut cfg = with_tool_retries(config(&["alpha"]), 1);
    cfg.retry.output_retries = 1;
    let replies = vec![
        calls(vec![call("c1", "alpha", "{}")]),
        text("first answer"),
        calls(vec![call("c2", "alpha", "{}")]),
        text("second answer"),
    ];
    let mut decodes = 0;
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| rejected("bad alpha"))
        .decoder(move |_| {
            decodes += 1;
            if decodes == 1 {
                Verdict::Rejected { reason: "try again".into() }
            } else {
                Verdict::Accepted
            }
        });
    let error = failed(sim.run());
    assert!(sim.event_lines().iter().any(|l| l == "output_rejected round 1: try again"));
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(tool_failure(&error).failure, ToolFailureKind::Rejected { reason: "bad alpha".into(), attempts: 2 });
}

#[test]
fn tool_04_per_tool_max_retries_uses_its_own_counter() {
    let mut cfg = with_tool_retries(config(&["alpha", "beta"]), 1);
    cfg.tools[0].max_retries = Some(2);
    let replies = vec![
        calls(vec![call("c1", "alpha", "{}")]),
        calls(vec![call("c2", "alpha", "{}")]),
        // beta's rejection is charged to the run-wide counter, untouched by alpha's two.
        calls(vec![call("c3", "beta", "{}")]),
        // alpha's third rejection exceeds its own budget of 2.
        calls(vec![call("c4", "alpha", "{}")]),
        text("done"),
    ];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| rejected("bad alpha"))
        .tool("beta", |_, _| rejected("bad beta"));
    let error = failed(sim.run());
    let failure = tool_failure(&error);
    assert_eq!(failure.tool, "alpha");
    assert_eq!(failure.call_id, "c4");
    assert_eq!(failure.failure, ToolFailureKind::Rejected { reason: "bad alpha".into(), attempts: 3 });
    assert_eq!(error.to_string(), "tool stage: tool alpha rejected the call after 3 attempts: bad alpha");
}

// ---------------------------------------------------------------------------
// TOOL-05: arguments that are not a JSON object
// ---------------------------------------------------------------------------

#[test]
fn tool_05_non_object_args_are_never_executed_and_the_rejection_is_charged() {
    let cfg = with_tool_retries(config(&["read"]), 1);
    let replies = vec![
        calls(vec![call("c1", "read", r#"{"path": "notes.t"#)]),
        calls(vec![call("c2", "read", "[1, 2]")]),
        text("done"),
    ];
    let mut sim = Sim::new(cfg, Start::prompt("read"), Sim::scripted(replies))
        .unwrap()
        .tool("read", |_, _| ToolReply::output(MS, "contents"));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 0, "{:#?}", sim.transcript());
    // The first refusal was fed back; the second exhausted the budget of 1.
    assert_eq!(sim.requests()[1].messages[2].content, texts::tool_rejected(texts::INCOMPLETE_ARGS));
    assert!(texts::INCOMPLETE_ARGS.contains("incomplete"));
    assert_eq!(error.stage, Stage::Tool);
    let failure = tool_failure(&error);
    assert_eq!(failure.call_id, "c2");
    assert!(matches!(failure.failure, ToolFailureKind::Rejected { attempts: 2, .. }), "{failure:?}");
    assert_eq!(error.partial.as_ref().unwrap().tool_calls, 0);
}

// ---------------------------------------------------------------------------
// TOOL-06: unknown and hidden tools
// ---------------------------------------------------------------------------

#[test]
fn tool_06_unknown_tool_rejection_lists_names_and_is_charged() {
    let cfg = with_tool_retries(config(&["alpha", "beta"]), 1);
    let replies = vec![calls(vec![call("c1", "gamma", "{}")]), calls(vec![call("c2", "gamma", "{}")]), text("done")];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 0);
    let rejection = &sim.requests()[1].messages[2];
    assert_eq!(rejection.tool_call_id, "c1");
    assert_eq!(rejection.content, texts::tool_rejected(&texts::unknown_tool("gamma", &["alpha", "beta"])));
    assert!(rejection.content.contains("alpha, beta"), "{}", rejection.content);
    assert_eq!(error.stage, Stage::Tool);
    assert!(matches!(tool_failure(&error).failure, ToolFailureKind::Rejected { attempts: 2, .. }));
    // Unknown-tool rejections are not dispatches (SPEC USAGE-06).
    assert_eq!(error.partial.as_ref().unwrap().tool_calls, 0);
}

#[test]
fn tool_06_hidden_by_choice_tool_is_rejected_listing_visible_names() {
    let mut cfg = with_tool_retries(config(&["alpha", "beta"]), 1);
    cfg.tool_choice = Some(ToolChoice::Restrict("alpha".into()));
    cfg.output =
        OutputMode::Tool { name: "final".into(), description: String::new(), schema: json!({"type": "object"}) };
    let replies = vec![calls(vec![call("c1", "beta", "{}")]), calls(vec![call("c2", "final", r#"{"a":1}"#)])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("beta", |_, _| ToolReply::output(MS, "beta ran"));
    let summary = completed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 0, "a hidden tool must never run");
    let rejection = &summary.messages[2];
    assert_eq!(rejection.tool_call_id, "c1");
    assert_eq!(rejection.content, texts::tool_rejected(&texts::unknown_tool("beta", &["alpha", "final"])));
}

#[test]
fn tool_06_hidden_tool_is_charged_to_the_run_wide_budget() {
    let mut cfg = config(&["alpha", "beta"]);
    cfg.tool_choice = Some(ToolChoice::Restrict("alpha".into()));
    let replies = vec![calls(vec![call("c1", "beta", "{}")])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(tool_failure(&error).tool, "beta");
    assert_eq!(count(&sim, "execute_tool"), 0);
}

#[test]
fn tool_06_zero_budget_fails_before_any_call_of_the_batch_runs() {
    let replies = vec![calls(vec![call("c1", "alpha", "{}"), call("c2", "gamma", "{}"), call("c3", "alpha", "{}")])];
    let mut sim = Sim::new(config(&["alpha"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "ran"));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 0, "{:#?}", sim.transcript());
    assert_eq!(count(&sim, "tool_start"), 0);
    assert_eq!(error.stage, Stage::Tool);
    let failure = tool_failure(&error);
    assert_eq!(failure.tool, "gamma");
    assert_eq!(failure.call_id, "c2");
    assert!(matches!(failure.failure, ToolFailureKind::Rejected { attempts: 1, .. }));
    let partial = error.partial.unwrap();
    assert_eq!(partial.messages.last().unwrap().role, Role::Assistant);
    assert_eq!(partial.tool_calls, 0);
}

// ---------------------------------------------------------------------------
// TOOL-07: sequential execution
// ---------------------------------------------------------------------------

#[test]
fn tool_07_sequential_runs_in_emission_order_one_at_a_time() {
    let replies =
        vec![calls(vec![timed("c1", "alpha", 30), timed("c2", "beta", 10), timed("c3", "alpha", 20)]), text("done")];
    let mut sim = Sim::new(config(&["alpha", "beta"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", latency_tool)
        .tool("beta", latency_tool);
    let summary = completed(sim.run());
    // One call at a time: every execute_tool after the first follows the previous call's answer.
    let seq: Vec<&str> =
        lines(&sim).into_iter().filter(|l| l.starts_with("execute_tool") || l.contains("tool_finished")).collect();
    assert_eq!(
        seq,
        vec![
            "execute_tool #1 alpha",
            "@31ms tool_finished #1 output rc1",
            "execute_tool #2 beta",
            "@41ms tool_finished #2 output rc2",
            "execute_tool #3 alpha",
            "@61ms tool_finished #3 output rc3",
        ]
    );
    assert_eq!(tool_messages(&summary.messages), vec![("c1", "rc1"), ("c2", "rc2"), ("c3", "rc3")]);
}

#[test]
fn tool_07_fatal_stops_the_batch_and_partial_ends_at_the_requesting_turn() {
    let replies = vec![calls(vec![call("c1", "alpha", "{}"), call("c2", "beta", "{}"), call("c3", "alpha", "{}")])];
    let mut sim = Sim::new(config(&["alpha", "beta"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "fine"))
        .tool("beta", |_, _| ToolReply::outcome(MS, fatal("disk on fire")));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 2, "the call after the fatal one never executes");
    assert!(!lines(&sim).iter().any(|l| l.starts_with("tool_start c3")));
    assert_eq!(error.stage, Stage::Tool);
    let failure = tool_failure(&error);
    assert_eq!(failure.call_id, "c2");
    assert_eq!(failure.failure, ToolFailureKind::Fatal { cause: CauseRecord::new("test", "disk on fire") });
    assert_eq!(error.to_string(), "tool stage: tool beta failed: disk on fire");
    // ERR-03: a failing batch adds none of its results.
    let partial = error.partial.unwrap();
    assert_eq!(partial.messages.len(), 2);
    assert_eq!(partial.messages[1].role, Role::Assistant);
    assert_eq!(partial.messages[1].tool_calls.len(), 3);
    assert_eq!(partial.tool_calls, 2);
}

// ---------------------------------------------------------------------------
// TOOL-08: parallel groups
// ---------------------------------------------------------------------------

fn latency_tool(c: &ToolCall, _: bool) -> ToolReply {
    let ms: u64 = c.args.parse().ok().and_then(|v| v["ms"].as_u64()).unwrap_or(1);
    ToolReply::output(Duration::from_millis(ms), format!("r{}", c.id))
}

fn timed(id: &str, tool: &str, ms: u64) -> ToolCall {
    call(id, tool, &format!(r#"{{"ms":{ms}}}"#))
}

#[test]
fn tool_08_parallel_results_in_emission_order_despite_completion_order() {
    let replies =
        vec![calls(vec![timed("c1", "alpha", 30), timed("c2", "alpha", 10), timed("c3", "alpha", 20)]), text("done")];
    let mut sim = Sim::new(parallel(&["alpha"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", latency_tool);
    let summary = completed(sim.run());
    let finished: Vec<&str> = lines(&sim).into_iter().filter(|l| l.contains("tool_finished")).collect();
    assert_eq!(
        finished,
        vec![
            "@11ms tool_finished #2 output rc2",
            "@21ms tool_finished #3 output rc3",
            "@31ms tool_finished #1 output rc1"
        ]
    );
    // All three were dispatched before any answered.
    let first_finish = lines(&sim).iter().position(|l| l.contains("tool_finished")).unwrap();
    let last_execute = lines(&sim).iter().rposition(|l| l.starts_with("execute_tool")).unwrap();
    assert!(last_execute < first_finish);
    assert_eq!(tool_messages(&summary.messages), vec![("c1", "rc1"), ("c2", "rc2"), ("c3", "rc3")]);
    assert_eq!(tool_messages(&sim.requests()[1].messages), vec![("c1", "rc1"), ("c2", "rc2"), ("c3", "rc3")]);
}

#[test]
fn tool_08_all_tool_starts_of_a_group_precede_any_tool_end() {
    let replies =
        vec![calls(vec![timed("c1", "alpha", 30), timed("c2", "alpha", 10), timed("c3", "alpha", 20)]), text("done")];
    let mut sim = Sim::new(parallel(&["alpha"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", latency_tool);
    completed(sim.run());
    let tools: Vec<String> = sim.event_lines().into_iter().filter(|l| l.starts_with("tool_")).collect();
    assert_eq!(
        tools,
        vec![
            "tool_start c1 alpha",
            "tool_start c2 alpha",
            "tool_start c3 alpha",
            "tool_end c1 alpha ok: rc1",
            "tool_end c2 alpha ok: rc2",
            "tool_end c3 alpha ok: rc3",
        ]
    );
}

#[test]
fn tool_08_sequential_tool_is_a_barrier_group() {
    let mut cfg = parallel(&["alpha", "beta", "gate"]);
    cfg.tools[2].sequential = true;
    let replies = vec![
        calls(vec![timed("c1", "alpha", 30), timed("c2", "beta", 10), timed("c3", "gate", 5), timed("c4", "alpha", 1)]),
        text("done"),
    ];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", latency_tool)
        .tool("beta", latency_tool)
        .tool("gate", latency_tool);
    let summary = completed(sim.run());
    let tools: Vec<String> = sim.event_lines().into_iter().filter(|l| l.starts_with("tool_")).collect();
    assert_eq!(
        tools,
        vec![
            "tool_start c1 alpha",
            "tool_start c2 beta",
            "tool_end c1 alpha ok: rc1",
            "tool_end c2 beta ok: rc2",
            "tool_start c3 gate",
            "tool_end c3 gate ok: rc3",
            "tool_start c4 alpha",
            "tool_end c4 alpha ok: rc4",
        ]
    );
    let execs: Vec<&str> =
        lines(&sim).into_iter().filter(|l| l.starts_with("execute_tool") || l.contains("tool_finished")).collect();
    assert_eq!(
        execs,
        vec![
            "execute_tool #1 alpha",
            "execute_tool #2 beta",
            "@11ms tool_finished #2 output rc2",
            "@31ms tool_finished #1 output rc1",
            "execute_tool #3 gate",
            "@36ms tool_finished #3 output rc3",
            "execute_tool #4 alpha",
            "@37ms tool_finished #4 output rc4",
        ]
    );
    let order: Vec<&str> = tool_messages(&summary.messages).into_iter().map(|(id, _)| id).collect();
    assert_eq!(order, vec!["c1", "c2", "c3", "c4"]);
}

#[test]
fn tool_08_max_concurrency_caps_in_flight_calls() {
    let mut cfg = parallel(&["alpha"]);
    cfg.max_concurrency = Some(2);
    let batch =
        [10, 50, 20, 5, 30].iter().enumerate().map(|(i, ms)| timed(&format!("c{}", i + 1), "alpha", *ms)).collect();
    let replies = vec![calls(batch), text("done")];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap().tool("alpha", latency_tool);
    let summary = completed(sim.run());
    let (mut in_flight, mut peak) = (0i32, 0i32);
    for line in lines(&sim) {
        if line.starts_with("execute_tool") {
            in_flight += 1;
            peak = peak.max(in_flight);
        } else if line.contains("tool_finished") {
            in_flight -= 1;
        }
    }
    assert_eq!(peak, 2, "{:#?}", sim.transcript());
    assert_eq!(count(&sim, "execute_tool"), 5);
    // All tool_starts of the group still precede the first tool_end.
    let events = sim.event_lines();
    let last_start = events.iter().rposition(|l| l.starts_with("tool_start")).unwrap();
    let first_end = events.iter().position(|l| l.starts_with("tool_end")).unwrap();
    assert!(last_start < first_end);
    let order: Vec<&str> = tool_messages(&summary.messages).into_iter().map(|(id, _)| id).collect();
    assert_eq!(order, vec!["c1", "c2", "c3", "c4", "c5"]);
}

// ---------------------------------------------------------------------------
// TOOL-09: a fatal call in a group
// ---------------------------------------------------------------------------

#[test]
fn tool_09_a_fatal_call_leaves_the_calls_waiting_for_a_slot_unstarted() {
    // One slot: c1 runs, fails fatally; c2 and c3 were waiting for the slot
    // and never start, and the run fails on c1 at once.
    let mut cfg = parallel(&["alpha", "boom"]);
    cfg.max_concurrency = Some(1);
    let replies = vec![calls(vec![call("c1", "boom", "{}"), timed("c2", "alpha", 10), timed("c3", "alpha", 10)])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", latency_tool)
        .tool("boom", |_, _| ToolReply::outcome(10 * MS, fatal("exploded")));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 1, "{:#?}", sim.transcript());
    assert_eq!(count(&sim, "cancel_tool"), 0);
    assert_eq!(tool_failure(&error).call_id, "c1");
    assert_eq!(error.partial.unwrap().tool_calls, 1);
}

#[test]
fn tool_09_fatal_cancels_running_siblings() {
    let replies = vec![calls(vec![timed("c1", "alpha", 100), call("c2", "boom", "{}"), timed("c3", "alpha", 200)])];
    let mut sim = Sim::new(parallel(&["alpha", "boom"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", latency_tool)
        .tool("boom", |_, _| ToolReply::outcome(10 * MS, fatal("exploded")));
    let error = failed(sim.run());
    let l = lines(&sim);
    let fatal_at = l.iter().position(|x| x.contains("tool_finished #2 fatal")).unwrap();
    assert_eq!(l[fatal_at + 1..fatal_at + 3], ["cancel_tool #1", "cancel_tool #3"]);
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(tool_failure(&error).call_id, "c2");
    let partial = error.partial.unwrap();
    assert_eq!(partial.messages.last().unwrap().role, Role::Assistant);
    assert_eq!(partial.tool_calls, 3);
}

#[test]
fn tool_09_earliest_failing_call_in_emission_order_is_reported() {
    // c1 is rejected without budget at 10 ms; c2 fails fatally at 30 ms. Both
    // failed; c1 comes first in emission order.
    let replies = vec![calls(vec![call("c1", "picky", "{}"), call("c2", "boom", "{}")])];
    let mut sim = Sim::new(parallel(&["picky", "boom"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("picky", |_, _| ToolReply::outcome(10 * MS, ToolOutcome::Reject { reason: "wrong".into() }))
        .tool("boom", |_, _| ToolReply::outcome(30 * MS, fatal("exploded")));
    let error = failed(sim.run());
    let failure = tool_failure(&error);
    assert_eq!(failure.call_id, "c1");
    assert_eq!(failure.failure, ToolFailureKind::Rejected { reason: "wrong".into(), attempts: 1 });
}

#[test]
fn tool_09_simultaneous_timeouts_report_the_earliest_emitted() {
    let mut cfg = parallel(&["slow"]);
    cfg.tool_timeout = Some(20 * MS);
    let replies = vec![calls(vec![call("c1", "slow", "{}"), call("c2", "slow", "{}")])];
    let mut sim =
        Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap().tool("slow", |_, _| ToolReply::stuck());
    let error = failed(sim.run());
    assert_eq!(count(&sim, "cancel_tool"), 2);
    let failure = tool_failure(&error);
    assert_eq!(failure.call_id, "c1");
    assert_eq!(failure.failure, ToolFailureKind::Timeout { after: 20 * MS });
}

// ---------------------------------------------------------------------------
// TOOL-10: timeouts
// ---------------------------------------------------------------------------

#[test]
fn tool_10_tool_timeout_takes_precedence_over_the_agent_default() {
    let mut cfg = config(&["fast", "plain"]);
    cfg.tool_timeout = Some(100 * MS);
    cfg.tools[0].timeout = Some(20 * MS);
    let replies = vec![calls(vec![call("c1", "fast", "{}"), call("c2", "plain", "{}")]), text("done")];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("fast", |_, _| ToolReply::output(MS, "f"))
        .tool("plain", |_, _| ToolReply::output(MS, "p"));
    completed(sim.run());
    let execs: Vec<&str> = lines(&sim).into_iter().filter(|l| l.starts_with("execute_tool")).collect();
    assert_eq!(execs, vec!["execute_tool #1 fast deadline 21ms", "execute_tool #2 plain deadline 102ms"]);
}

#[test]
fn tool_10_no_timeout_anywhere_means_no_deadline() {
    let replies = vec![calls(vec![call("c1", "plain", "{}")]), text("done")];
    let mut sim = Sim::new(config(&["plain"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("plain", |_, _| ToolReply::output(MS, "p"));
    completed(sim.run());
    assert!(lines(&sim).contains(&"execute_tool #1 plain"));
}

#[test]
fn tool_10_expiry_cancels_the_call_and_fails_at_tool_stage_with_timeout() {
    let mut cfg = with_tool_retries(config(&["slow"]), 5);
    cfg.tools[0].timeout = Some(20 * MS);
    let replies = vec![calls(vec![call("c1", "slow", "{}")]), text("never")];
    let mut sim =
        Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap().tool("slow", |_, _| ToolReply::stuck());
    let error = failed(sim.run());
    let l = lines(&sim);
    let tick = l.iter().position(|x| *x == "@21ms tick").unwrap();
    assert_eq!(l[tick + 1], "cancel_tool #1");
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(tool_failure(&error).failure, ToolFailureKind::Timeout { after: 20 * MS });
    assert_eq!(count(&sim, "call_model"), 1, "a timeout is never correctable");
}

#[test]
fn tool_10_failed_result_policy_reports_a_failed_message_and_continues() {
    let mut cfg = config(&["slow"]);
    cfg.tools[0].timeout = Some(20 * MS);
    cfg.tools[0].on_timeout = TimeoutPolicy::FailedResult;
    let replies = vec![calls(vec![call("c1", "slow", "{}")]), text("carried on")];
    let mut sim =
        Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap().tool("slow", |_, _| ToolReply::stuck());
    let summary = completed(sim.run());
    assert!(lines(&sim).contains(&"cancel_tool #1"));
    let result = &summary.messages[2];
    assert_eq!(result.role, Role::Tool);
    assert_eq!(result.tool_call_id, "c1");
    assert!(result.failed);
    assert!(result.content.contains("20 ms"), "{}", result.content);
    assert_eq!(summary.messages.last().unwrap().content, "carried on");
    assert_eq!(summary.tool_calls, 1);
}

#[test]
fn tool_10_result_after_the_deadline_is_a_late_result() {
    let mut cfg = config(&["slow"]);
    cfg.tools[0].timeout = Some(20 * MS);
    cfg.tools[0].on_timeout = TimeoutPolicy::FailedResult;
    let replies = vec![calls(vec![call("c1", "slow", "{}")]), ModelReply::ok(100 * MS, Response::text("done"))];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("slow", |_, _| ToolReply::output(50 * MS, "too late"));
    let summary = completed(sim.run());
    assert!(sim.event_lines().contains(&"late_result tool #1".to_string()), "{:#?}", sim.transcript());
    assert!(summary.messages.iter().all(|m| m.content != "too late"));
    assert!(summary.messages[2].failed);
}

// ---------------------------------------------------------------------------
// TOOL-11: tool choice
// ---------------------------------------------------------------------------

fn tool_names(request: &Request) -> Vec<&str> {
    request.tools.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn tool_11_restrict_advertises_only_the_chosen_tool_plus_output_tool_and_sends_no_choice() {
    let mut cfg = config(&["alpha", "beta", "gamma"]);
    cfg.tool_choice = Some(ToolChoice::Restrict("beta".into()));
    cfg.output =
        OutputMode::Tool { name: "final".into(), description: String::new(), schema: json!({"type": "object"}) };
    let replies = vec![calls(vec![call("c1", "beta", "{}")]), calls(vec![call("c2", "final", "{}")])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("beta", |_, _| ToolReply::output(MS, "b"));
    completed(sim.run());
    assert_eq!(sim.requests().len(), 2);
    for request in sim.requests() {
        assert_eq!(tool_names(request), vec!["beta", "final"]);
        assert_eq!(request.tool_choice, None);
    }
}

#[test]
fn tool_11_force_sends_the_tool_until_called_once_then_auto() {
    let mut cfg = config(&["alpha", "beta"]);
    cfg.tool_choice = Some(ToolChoice::Force("beta".into()));
    cfg.retry.output_retries = 1;
    let replies = vec![text("ignored the force"), calls(vec![call("c1", "beta", "{}")]), text("answer")];
    let mut decodes = 0;
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("beta", |_, _| ToolReply::output(MS, "b"))
        .decoder(move |_| {
            decodes += 1;
            if decodes == 1 {
                Verdict::Rejected { reason: "use beta".into() }
            } else {
                Verdict::Accepted
            }
        });
    completed(sim.run());
    let choices: Vec<Option<WireToolChoice>> = sim.requests().iter().map(|r| r.tool_choice.clone()).collect();
    assert_eq!(
        choices,
        vec![
            Some(WireToolChoice::Tool("beta".into())),
            Some(WireToolChoice::Tool("beta".into())),
            Some(WireToolChoice::Auto)
        ]
    );
    for request in sim.requests() {
        assert_eq!(tool_names(request), vec!["beta"]);
    }
}

#[test]
fn tool_11_the_output_tool_may_be_chosen() {
    let mut cfg = tool_mode(&["alpha"]);
    cfg.tool_choice = Some(ToolChoice::Force("final".into()));
    let replies = vec![calls(vec![call("c1", "final", r#"{"answer": 1}"#)])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(tool_names(&sim.requests()[0]), vec!["final"]);
    assert_eq!(sim.requests()[0].tool_choice, Some(WireToolChoice::Tool("final".into())));
}

// ---------------------------------------------------------------------------
// TOOL-12: a tool cancels the run
// ---------------------------------------------------------------------------

#[test]
fn tool_12_cancel_run_keeps_earlier_results_and_interrupts_the_rest() {
    let mut cfg = parallel(&["alpha", "stop", "gate"]);
    cfg.tools[2].sequential = true;
    let replies = vec![calls(vec![
        timed("c1", "alpha", 10),
        call("c2", "stop", "{}"),
        timed("c3", "alpha", 5),
        timed("c4", "gate", 1),
    ])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", latency_tool)
        .tool("gate", latency_tool)
        .tool("stop", |_, _| ToolReply::outcome(20 * MS, ToolOutcome::CancelRun { reason: "enough".into() }));
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Canceled);
    assert_eq!(error.cause, Cause::Canceled { reason: CancelReason::Tool, message: "enough".into() });
    assert!(!error.is_canceled(), "a tool's cancel-run is not the caller's cancellation");
    assert!(
        !lines(&sim).iter().any(|l| l.starts_with("execute_tool #4") || l.contains(" gate")),
        "later groups never start"
    );
    let partial = error.partial.unwrap();
    assert_eq!(
        tool_messages(&partial.messages),
        vec![
            ("c1", "rc1"),
            ("c2", texts::INTERRUPTED_RESULT),
            ("c3", texts::INTERRUPTED_RESULT),
            ("c4", texts::INTERRUPTED_RESULT),
        ]
    );
    // The cancelling call counts as a tool call; skipped ones do not.
    assert_eq!(partial.tool_calls, 3);
    let events = sim.event_lines();
    let canceled = events.iter().position(|l| l == "canceled Tool").expect("a canceled event");
    let last_end = events.iter().rposition(|l| l.starts_with("tool_end")).unwrap();
    assert_eq!(canceled, last_end + 1, "{events:#?}");
    assert_eq!(
        events[last_end - 2..=last_end].iter().map(|l| &l[..11]).collect::<Vec<_>>(),
        ["tool_end c1", "tool_end c2", "tool_end c3"]
    );
}

#[test]
fn tool_12_cancel_run_drops_a_pending_pause() {
    let replies = vec![calls(vec![call("c1", "gated", "{}"), call("c2", "stop", "{}")])];
    let mut sim = Sim::new(config(&["gated", "stop"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("gated", |_, _| {
            ToolReply::outcome(MS, ToolOutcome::Defer { kind: DeferKind::Approval, reason: "ask".into() })
        })
        .tool("stop", |_, _| ToolReply::outcome(MS, ToolOutcome::CancelRun { reason: "halt".into() }));
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Canceled);
    let partial = error.partial.unwrap();
    assert_eq!(
        tool_messages(&partial.messages),
        vec![("c1", texts::INTERRUPTED_RESULT), ("c2", texts::INTERRUPTED_RESULT)]
    );
    assert_eq!(partial.tool_calls, 2);
}

#[test]
fn tool_12_sequential_cancel_run_never_starts_later_calls() {
    let replies = vec![calls(vec![call("c1", "alpha", "{}"), call("c2", "stop", "{}"), call("c3", "alpha", "{}")])];
    let mut sim = Sim::new(config(&["alpha", "stop"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "a"))
        .tool("stop", |_, _| ToolReply::outcome(MS, ToolOutcome::CancelRun { reason: "halt".into() }));
    let error = failed(sim.run());
    assert_eq!(count(&sim, "execute_tool"), 2);
    let partial = error.partial.unwrap();
    assert_eq!(
        tool_messages(&partial.messages),
        vec![("c1", "a"), ("c2", texts::INTERRUPTED_RESULT), ("c3", texts::INTERRUPTED_RESULT)]
    );
    assert_eq!(partial.tool_calls, 2);
}

// ---------------------------------------------------------------------------
// TOOL-13: the interrupted result
// ---------------------------------------------------------------------------

#[test]
fn tool_13_interrupted_text_is_constant() {
    assert_eq!(
        texts::INTERRUPTED_RESULT,
        "Tool call was interrupted before execution; no result was produced. Call the tool again if you need its result."
    );
    // Two interrupted calls get byte-identical text (no timestamps, no ids).
    let replies = vec![calls(vec![call("c1", "stop", "{}"), call("c2", "alpha", "{}"), call("c3", "alpha", "{}")])];
    let mut sim = Sim::new(config(&["alpha", "stop"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("stop", |_, _| ToolReply::outcome(MS, ToolOutcome::CancelRun { reason: "halt".into() }));
    let partial = failed(sim.run()).partial.unwrap();
    let texts: Vec<&str> = tool_messages(&partial.messages).into_iter().map(|(_, t)| t).collect();
    assert_eq!(texts, vec![texts::INTERRUPTED_RESULT; 3]);
}

// ---------------------------------------------------------------------------
// RUN-04, RUN-06, RUN-11
// ---------------------------------------------------------------------------

#[test]
fn run_04_tools_go_out_in_registration_order_with_the_output_tool_last() {
    let mut cfg = config(&["zeta", "alpha", "mid"]);
    cfg.output =
        OutputMode::Tool { name: "answer".into(), description: "the answer".into(), schema: json!({"type": "object"}) };
    let replies = vec![calls(vec![call("c1", "answer", "{}")])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap();
    completed(sim.run());
    assert_eq!(tool_names(&sim.requests()[0]), vec!["zeta", "alpha", "mid", "answer"]);
    assert_eq!(sim.requests()[0].tools[3].description, "the answer");
}

#[test]
fn run_06_text_with_tool_calls_is_a_tool_turn() {
    let mut first = Response::tool_calls(vec![call("c1", "alpha", "{}")]);
    first.message.content = "Let me check that.".into();
    let replies = vec![ModelReply::ok(MS, first), text("checked")];
    let mut sim = Sim::new(config(&["alpha"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "a"));
    let summary = completed(sim.run());
    assert_eq!(count(&sim, "decode"), 1, "only the final turn is decoded");
    assert_eq!(count(&sim, "execute_tool"), 1);
    assert_eq!(summary.messages[1].content, "Let me check that.");
    assert_eq!(summary.messages[1].tool_calls.len(), 1);
    assert_eq!(summary.messages.last().unwrap().content, "checked");
}

#[test]
fn run_11_no_text_and_no_calls_goes_to_the_decoder() {
    let replies = vec![text("")];
    let seen = Rc::new(RefCell::new(Vec::new()));
    let log = seen.clone();
    let mut sim =
        Sim::new(config(&["alpha"]), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(move |r| {
            log.borrow_mut().push(r.message.content.clone());
            if r.message.content.trim().is_empty() {
                Verdict::Rejected { reason: texts::EMPTY_RESPONSE.into() }
            } else {
                Verdict::Accepted
            }
        });
    let error = failed(sim.run());
    assert_eq!(*seen.borrow(), vec![String::new()]);
    assert_eq!(error.stage, Stage::Decode);
    assert_eq!(error.to_string(), "decode stage: the response was empty");
    // The empty reply stays in evidence (ERR-03).
    assert_eq!(error.partial.unwrap().messages.len(), 2);
}

// ---------------------------------------------------------------------------
// OUT-04, OUT-05, OUT-06
// ---------------------------------------------------------------------------

fn tool_mode(tools: &[&str]) -> RunConfig {
    let mut cfg = config(tools);
    cfg.output = OutputMode::Tool {
        name: "final".into(),
        description: String::new(),
        schema: json!({"type": "object", "properties": {"answer": {}}}),
    };
    cfg
}

#[test]
fn out_05_output_call_args_reach_the_decoder_and_co_emitted_calls_are_not_executed() {
    let replies = vec![ModelReply::ok(
        MS,
        Response::tool_calls(vec![
            call("c1", "alpha", "{}"),
            call("c2", "final", r#"{"answer": 42}"#),
            call("c3", "final", r#"{"answer": 1}"#),
        ])
        .with_usage(Usage::new(3, 4)),
    )];
    let decoded = Rc::new(RefCell::new(Vec::new()));
    let log = decoded.clone();
    let mut sim = Sim::new(tool_mode(&["alpha"]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "ran"))
        .decoder(move |r| {
            log.borrow_mut().push((r.message.content.clone(), r.finish_reason));
            Verdict::Accepted
        });
    let summary = completed(sim.run());
    assert_eq!(*decoded.borrow(), vec![(r#"{"answer": 42}"#.to_string(), FinishReason::ToolCall)]);
    assert_eq!(count(&sim, "execute_tool"), 0);
    assert_eq!(
        tool_messages(&summary.messages),
        vec![("c1", texts::INTERRUPTED_RESULT), ("c2", "Result recorded."), ("c3", texts::INTERRUPTED_RESULT)]
    );
    assert_eq!(texts::OUTPUT_RECORDED, "Result recorded.");
    assert_eq!(summary.tool_calls, 0, "co-emitted calls are not tool calls");
    assert_eq!(summary.finish_reason, FinishReason::ToolCall);
}

#[test]
fn out_05_plain_text_in_tool_mode_is_decoded_as_text() {
    let replies = vec![text("just text")];
    let decoded = Rc::new(RefCell::new(Vec::new()));
    let log = decoded.clone();
    let mut sim = Sim::new(tool_mode(&[]), Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(move |r| {
        log.borrow_mut().push(r.message.content.clone());
        Verdict::Accepted
    });
    let summary = completed(sim.run());
    assert_eq!(*decoded.borrow(), vec!["just text".to_string()]);
    assert_eq!(summary.messages.len(), 2);
}

#[test]
fn out_06_tool_mode_rejection_is_a_tool_message_bound_to_the_call() {
    let mut cfg = tool_mode(&[]);
    cfg.retry.output_retries = 1;
    let replies = vec![
        calls(vec![call("c1", "final", r#"{"answer": "x"}"#)]),
        calls(vec![call("c2", "final", r#"{"answer": 4}"#)]),
    ];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies)).unwrap().decoder(|r| {
        if r.message.content.contains('4') {
            Verdict::Accepted
        } else {
            Verdict::Rejected { reason: "answer must be a number".into() }
        }
    });
    let summary = completed(sim.run());
    assert!(sim.event_lines().contains(&"output_rejected round 1: answer must be a number".to_string()));
    assert_eq!(
        tool_messages(&summary.messages),
        vec![
            ("c1", "Your result was rejected: answer must be a number. Correct the arguments and call final again."),
            ("c2", "Result recorded."),
        ]
    );
    assert_eq!(summary.messages[2].tool_name, "final");
    assert_eq!(summary.messages[2].role, Role::Tool);
}

#[test]
fn out_06_exhausted_output_budget_fails_at_decode_with_attempt_count() {
    let mut cfg = tool_mode(&[]);
    cfg.retry.output_retries = 1;
    let replies = vec![calls(vec![call("c1", "final", "{}")]), calls(vec![call("c2", "final", "{}")])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .decoder(|_| Verdict::Rejected { reason: "missing answer".into() });
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Decode);
    assert_eq!(error.to_string(), "decode stage: output rejected after 2 attempts: missing answer");
}

#[test]
fn out_06_single_rejection_without_budget_has_no_attempt_count() {
    let replies = vec![text("nope")];
    let mut sim = Sim::new(config(&[]), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .decoder(|_| Verdict::Rejected { reason: "not a number".into() });
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Decode);
    assert_eq!(error.to_string(), "decode stage: not a number");
    // The rejected response is kept (ERR-03).
    assert_eq!(error.partial.unwrap().messages.last().unwrap().content, "nope");
}

#[test]
fn out_05_fatal_decode_in_tool_mode_fails_at_decode_stage_with_the_call_open() {
    let mut cfg = tool_mode(&[]);
    cfg.retry.output_retries = 3;
    let replies = vec![calls(vec![call("c1", "final", r#"{"answer": 1}"#)])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .decoder(|_| Verdict::Fatal { message: "schema mismatch".into() });
    let error = failed(sim.run());
    assert_eq!(error.stage, Stage::Decode);
    assert_eq!(error.to_string(), "decode stage: schema mismatch");
    assert_eq!(count(&sim, "call_model"), 1, "a fatal verdict is never corrected");
    let partial = error.partial.unwrap();
    assert_eq!(partial.messages.last().unwrap().role, Role::Assistant, "the open call is left for repair");
}

#[test]
fn out_04_native_schema_rides_every_request() {
    let schema = golem_core::model::OutputSchema::new("forecast", json!({"type": "object"}));
    let mut cfg = config(&["alpha"]);
    cfg.output = OutputMode::Native { schema: schema.clone() };
    cfg.retry.output_retries = 1;
    let replies = vec![calls(vec![call("c1", "alpha", "{}")]), text("bad"), text("{}")];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("alpha", |_, _| ToolReply::output(MS, "a"))
        .decoder(|r| {
            if r.message.content == "{}" {
                Verdict::Accepted
            } else {
                Verdict::Rejected { reason: "json".into() }
            }
        });
    completed(sim.run());
    assert_eq!(sim.requests().len(), 3);
    for request in sim.requests() {
        assert_eq!(request.output_schema.as_deref(), Some(&schema));
        assert_eq!(tool_names(request), vec!["alpha"]);
    }
}

/// EVT-01 (issue 11): tool events carry the turn that requested them, and a
/// `tool_end` says how the call ended as a typed outcome, so an observer can
/// tell a correction from a failed result from a result; the JSON stays
/// readable.
#[test]
fn evt_01_tool_events_carry_their_turn_and_a_typed_outcome() {
    let replies = vec![
        calls(vec![call("c1", "a", "{}")]),
        calls(vec![call("c2", "a", "{}"), call("c3", "b", "{}")]),
        text("done"),
    ];
    let mut round = 0;
    let mut sim = Sim::new(with_tool_retries(config(&["a", "b"]), 1), Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("a", move |_, _| {
            round += 1;
            let outcome = match round {
                1 => ToolOutcome::Reject { reason: "say please".into() },
                _ => ToolOutcome::output("ok"),
            };
            ToolReply::outcome(MS, outcome)
        })
        .tool("b", |_, _| ToolReply::outcome(MS, ToolOutcome::failed("disk full")));
    completed(sim.run());
    let tool_events: Vec<(String, u32, Option<ToolEndOutcome>)> = sim
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolStart { turn, call_id, .. } => Some((format!("start {call_id}"), *turn, None)),
            EventKind::ToolEnd { turn, call_id, outcome, .. } => {
                Some((format!("end {call_id}"), *turn, Some(outcome.clone())))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        tool_events,
        vec![
            ("start c1".into(), 0, None),
            ("end c1".into(), 0, Some(ToolEndOutcome::Rejected { reason: "say please".into() })),
            ("start c2".into(), 1, None),
            ("end c2".into(), 1, Some(ToolEndOutcome::Output { content: "ok".into() })),
            ("start c3".into(), 1, None),
            ("end c3".into(), 1, Some(ToolEndOutcome::Failed { reason: "disk full".into(), cause: None })),
        ]
    );
    let end = sim.events().iter().find(|e| matches!(e.kind, EventKind::ToolEnd { .. })).unwrap();
    let json = serde_json::to_value(end).unwrap();
    assert_eq!(
        json,
        json!({"seq": end.seq, "event": "tool_end", "turn": 0, "callId": "c1", "tool": "a",
               "outcome": {"type": "rejected", "reason": "say please"}})
    );
    let back: RunEvent = serde_json::from_value(json).unwrap();
    assert_eq!(&back, end);
}

/// EVT-01: a timed-out call, a call stopped with its run and a fatal error
/// each have their own outcome.
#[test]
fn evt_01_timeouts_interruptions_and_fatal_errors_are_told_apart() {
    let mut cfg = parallel(&["slow", "boom"]);
    cfg.tools[0].timeout = Some(5 * MS);
    let replies = vec![calls(vec![call("c1", "slow", "{}"), call("c2", "boom", "{}")])];
    let mut sim = Sim::new(cfg, Start::prompt("go"), Sim::scripted(replies))
        .unwrap()
        .tool("slow", |_, _| ToolReply::stuck())
        .tool("boom", |_, _| ToolReply::outcome(MS, ToolOutcome::Fatal { cause: CauseRecord::new("error", "kaboom") }));
    failed(sim.run());
    let ends: Vec<ToolEndOutcome> = sim
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEnd { outcome, .. } => Some(outcome.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert!(
        matches!(
            &ends[0],
            ToolEndOutcome::Interrupted { cause: Interruption::SiblingFailed } | ToolEndOutcome::TimedOut { .. }
        ),
        "{ends:?}"
    );
    assert_eq!(ends[1], ToolEndOutcome::Fatal { kind: "error".into(), message: "kaboom".into() });
    assert_eq!(ends[1].error_text().as_deref(), Some("kaboom"));
    assert!(ends[1].output().is_none() && !ends[1].is_rejected());
}

//! Golden transcripts: the exact sequence of commands, events, waits and
//! inputs for the scenarios every driver must reproduce (SPEC EVT-02).

use golem_core::machine::{Input, Outcome, Start, ToolOutcome, Verdict};
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use serde_json::json;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn config_with_tool(name: &str) -> RunConfig {
    {
        let mut config = RunConfig::default();
        config.tools = vec![ToolSpec::new(name, "a tool", json!({"type": "object"}))];
        config
    }
}

fn lines(sim: &Sim) -> Vec<&str> {
    sim.transcript().iter().map(String::as_str).collect()
}

#[test]
fn evt_02_tool_round_trip() {
    let replies = vec![
        ModelReply::ok(
            10 * MS,
            Response::tool_calls(vec![ToolCall::new("c1", "dice", "{}")]).with_usage(Usage::new(5, 1)),
        ),
        ModelReply::ok(10 * MS, Response::text("rolled 4").with_usage(Usage::new(7, 2))),
    ];
    let mut sim = Sim::new(config_with_tool("dice"), Start::prompt("roll"), Sim::scripted(replies))
        .unwrap()
        .tool("dice", |_, _| ToolReply::output(5 * MS, "4"));
    let outcome = sim.run();
    assert_eq!(
        lines(&sim),
        vec![
            "model_start t0 a1 m0",
            "call_model #0 member 0 deadline 300000ms",
            "wait ModelDeadline until 300000ms",
            "@10ms model_finished #0 ok",
            "model_end t0 a1 m0",
            "tool_start c1 dice",
            "execute_tool #1 dice",
            "wait InFlight",
            // The write-ahead ledger: the body runs only after this (SPEC LOG-06).
            "@10ms tool_started #1",
            "wait InFlight",
            "@15ms tool_finished #1 output 4",
            "tool_end c1 dice ok: 4",
            "model_start t1 a1 m0",
            "call_model #2 member 0 deadline 300015ms",
            "wait ModelDeadline until 300015ms",
            "@25ms model_finished #2 ok",
            "model_end t1 a1 m0",
            "decode #3",
            "wait InFlight",
            "@25ms decoded #3 Accepted",
            "done",
        ]
    );
    let Outcome::Completed { summary, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(summary.messages.len(), 4);
    assert_eq!(summary.usage, Usage::new(12, 3));
    assert_eq!(summary.requests, 2);
    assert_eq!(summary.tool_calls, 1);
    assert_eq!(summary.messages[2], Message::tool_result("c1", "dice", "4"));
}

#[test]
fn retry_02_retried_call_with_backoff() {
    let config = {
        let mut config = RunConfig::default();
        config.retry = RetryPolicy::new().max_attempts(3);
        config
    };
    let replies = vec![
        ModelReply::err(MS, ModelError::api(503, "overloaded")),
        ModelReply::err(MS, ModelError::api(429, "slow down").with_retry_after(Duration::from_secs(2))),
        ModelReply::ok(MS, Response::text("fine")),
    ];
    let mut sim = Sim::new(config, Start::prompt("hi"), Sim::scripted(replies)).unwrap();
    let outcome = sim.run();
    assert_eq!(
        lines(&sim),
        vec![
            "model_start t0 a1 m0",
            "call_model #0 member 0 deadline 300000ms",
            "wait ModelDeadline until 300000ms",
            "@1ms model_finished #0 error: overloaded (status 503)",
            "model_end t0 a1 m0 error: overloaded (status 503)",
            "retrying t0 a2 after 500ms",
            "wait Backoff until 501ms",
            "@501ms tick",
            "model_start t0 a2 m0",
            "call_model #1 member 0 deadline 300501ms",
            "wait ModelDeadline until 300501ms",
            "@502ms model_finished #1 error: slow down (status 429)",
            "model_end t0 a2 m0 error: slow down (status 429)",
            // Retry-After (2 s) beats the default backoff (1 s) (SPEC RETRY-03).
            "retrying t0 a3 after 2000ms",
            "wait Backoff until 2502ms",
            "@2502ms tick",
            "model_start t0 a3 m0",
            "call_model #2 member 0 deadline 302502ms",
            "wait ModelDeadline until 302502ms",
            "@2503ms model_finished #2 ok",
            "model_end t0 a3 m0",
            "decode #3",
            "wait InFlight",
            "@2503ms decoded #3 Accepted",
            "done",
        ]
    );
    let Outcome::Completed { summary, .. } = outcome else { panic!("{outcome:?}") };
    // Failed attempts add no message and no usage but count as requests (SPEC RETRY-04).
    assert_eq!(summary.messages.len(), 2);
    assert_eq!(summary.requests, 3);
}

#[test]
fn out_06_output_correction() {
    let config = {
        let mut config = RunConfig::default();
        config.retry = RetryPolicy::new().output_retries(1);
        config
    };
    let replies = vec![ModelReply::ok(MS, Response::text("seven")), ModelReply::ok(MS, Response::text("7"))];
    let mut sim = Sim::new(config, Start::prompt("pick"), Sim::scripted(replies)).unwrap().decoder(|r| {
        if r.message.content.parse::<i64>().is_ok() {
            Verdict::Accepted
        } else {
            Verdict::Rejected { reason: "answer must be an integer".into() }
        }
    });
    let outcome = sim.run();
    assert_eq!(
        sim.event_lines(),
        vec![
            "model_start t0 a1 m0",
            "model_end t0 a1 m0",
            "output_rejected round 1: answer must be an integer",
            "model_start t0 a1 m0",
            "model_end t0 a1 m0",
        ]
    );
    let Outcome::Completed { summary, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(summary.messages.len(), 4);
    assert_eq!(
        summary.messages[2],
        Message::user("Your previous response was rejected: answer must be an integer. Correct it and respond again.")
    );
}

#[test]
fn defer_01_pause_and_resume() {
    let mut config = config_with_tool("delete");
    config.tools.push(ToolSpec::new("lookup", "", json!({"type": "object"})));
    let calls = vec![ToolCall::new("c1", "delete", r#"{"id":1}"#), ToolCall::new("c2", "lookup", "{}")];
    let replies = vec![ModelReply::ok(MS, Response::tool_calls(calls))];
    let mut sim = Sim::new(config.clone(), Start::prompt("clean up"), Sim::scripted(replies))
        .unwrap()
        .tool("delete", |_, approved| {
            if approved {
                ToolReply::output(MS, "deleted")
            } else {
                ToolReply::outcome(MS, ToolOutcome::Defer { kind: DeferKind::Approval, reason: "destructive".into() })
            }
        })
        .tool("lookup", |_, _| ToolReply::output(MS, "found"));
    let outcome = sim.run();
    assert_eq!(
        sim.event_lines(),
        vec![
            "model_start t0 a1 m0",
            "model_end t0 a1 m0",
            "tool_start c1 delete",
            "deferred c1 delete Approval: destructive",
            "tool_start c2 lookup",
            "tool_end c2 lookup ok: found",
        ]
    );
    let Outcome::Paused { summary, deferred } = outcome else { panic!("{outcome:?}") };
    assert_eq!(deferred.approvals.len(), 1);
    assert_eq!(deferred.approvals[0].call_id, "c1");
    assert_eq!(deferred.approvals[0].reason, "destructive");
    // The deferred call has no result yet; the other call's result is kept.
    assert_eq!(summary.messages.len(), 3);

    // Resume: a new run, the approved call re-runs first, its result placed
    // in emission order before the sibling's.
    let start = {
        let mut start = Start::default();
        start.history = summary.messages;
        start.resume = Some(DeferredResults::new().approval("c1", Approval::approve()));
        start
    };
    let replies = vec![ModelReply::ok(MS, Response::text("all clean"))];
    let mut sim = Sim::new(config, start, Sim::scripted(replies))
        .unwrap()
        .tool("delete", |_, approved| ToolReply::output(MS, if approved { "deleted" } else { "again?" }));
    let outcome = sim.run();
    assert_eq!(
        lines(&sim),
        vec![
            "tool_start c1 delete approved",
            "execute_tool #0 delete approved",
            "wait InFlight",
            "@0ms tool_started #0",
            "wait InFlight",
            "@1ms tool_finished #0 output deleted",
            "tool_end c1 delete approved ok: deleted",
            "model_start t0 a1 m0",
            "call_model #1 member 0 deadline 300001ms",
            "wait ModelDeadline until 300001ms",
            "@2ms model_finished #1 ok",
            "model_end t0 a1 m0",
            "decode #2",
            "wait InFlight",
            "@2ms decoded #2 Accepted",
            "done",
        ]
    );
    let Outcome::Completed { summary, .. } = outcome else { panic!("{outcome:?}") };
    let contents: Vec<&str> = summary.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents, vec!["clean up", "", "deleted", "found", "all clean"]);
    assert_eq!(summary.tool_calls, 1);
}

#[test]
fn mach_07_cancel_during_backoff_ends_at_model_stage() {
    let config = {
        let mut config = RunConfig::default();
        config.retry = RetryPolicy::new().max_attempts(3);
        config
    };
    let replies = vec![ModelReply::err(MS, ModelError::api(500, "boom"))];
    let mut sim = Sim::new(config, Start::prompt("hi"), Sim::scripted(replies))
        .unwrap()
        .inject(100 * MS, Input::Cancel { reason: error::CancelReason::Caller, mode: machine::CancelMode::Immediate });
    let Outcome::Failed(error) = sim.run() else { panic!() };
    assert_eq!(error.stage, Stage::Model);
    assert!(error.is_canceled());
    assert_eq!(error.requests, 1);
    assert_eq!(error.partial, None);
}

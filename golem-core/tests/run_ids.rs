//! Run and conversation ids on the machine, in simulated time (SPEC
//! EXTRA-01, LOG-01, LOG-05). The machine never mints ids: the test plays
//! the driver and hands them over in `Start`.

use crate::outcomes::{completed, failed};
use golem_core::deferral::DeferKind;
use golem_core::error::CancelReason;
use golem_core::log::{replay, EventLog};
use golem_core::machine::{CancelMode, Input, Outcome, Output, Start, ToolOutcome, Verdict};
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use serde_json::json;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);
const RUN: &str = "0190b6a8-7c00-7000-8000-000000000002";
const CONV: &str = "0190b6a8-7c00-7000-8000-00000000c0c0";

fn config(tools: &[&str]) -> RunConfig {
    {
        let mut config = RunConfig::default();
        config.tools = tools.iter().map(|n| ToolSpec::new(*n, "", json!({"type": "object"}))).collect();
        config
    }
}

fn start(prompt: &str) -> Start {
    Start::prompt(prompt).with_instructions("Be brief.").with_ids(RUN, CONV)
}

/// A message of an earlier run of the same conversation.
fn earlier(mut message: Message) -> Message {
    message.run_id = "earlier-run".into();
    message.conversation_id = CONV.into();
    message
}

fn assert_stamped(messages: &[Message]) {
    for (i, m) in messages.iter().enumerate() {
        assert_eq!((m.run_id.as_str(), m.conversation_id.as_str()), (RUN, CONV), "message {i}: {m:?}");
    }
}

fn assert_events_stamped(sim: &Sim) {
    assert!(!sim.events().is_empty());
    for e in sim.events() {
        assert_eq!((e.run_id.as_str(), e.conversation_id.as_str()), (RUN, CONV), "{e:?}");
    }
}

#[test]
fn extra_01_every_message_the_run_adds_and_every_event_carry_the_ids() {
    let history = vec![earlier(Message::user("hello")), earlier(Message::assistant("hi"))];
    let replies = vec![
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "look", "{}")])),
        ModelReply::ok(MS, Response::text("a table")),
    ];
    let mut sim =
        Sim::new(config(&["look"]), start("what is here?").with_history(history.clone()), Sim::scripted(replies))
            .unwrap()
            .tool("look", |_, _| ToolReply::output(MS, "table"));
    let summary = completed(sim.run());
    // system, history (2), prompt, tool turn, tool result, answer.
    assert_eq!(summary.messages.len(), 7);
    assert_eq!(summary.messages[1..3], history[..], "history keeps the ids it came with");
    assert_stamped(&summary.messages[..1]);
    assert_stamped(&summary.messages[3..]);
    assert_eq!((summary.run_id.as_str(), summary.conversation_id.as_str()), (RUN, CONV));
    assert_events_stamped(&sim);
}

#[test]
fn extra_01_a_model_cannot_put_other_ids_on_its_turn() {
    let mut forged = Message::assistant("hi");
    forged.run_id = "forged".into();
    forged.conversation_id = "forged".into();
    let mut sim =
        Sim::new(config(&[]), start("p"), Sim::scripted(vec![ModelReply::ok(MS, Response::new(forged))])).unwrap();
    let summary = completed(sim.run());
    assert_stamped(&summary.messages);
}

#[test]
fn extra_01_output_tool_closer_and_co_emitted_results_carry_the_ids() {
    let mut cfg = config(&["look"]);
    cfg.output =
        OutputMode::Tool { name: "final".into(), description: String::new(), schema: json!({"type": "object"}) };
    cfg.retry.output_retries = 1;
    let both = || Response::tool_calls(vec![ToolCall::new("c1", "look", "{}"), ToolCall::new("o1", "final", "{}")]);
    let replies = vec![ModelReply::ok(MS, both()), ModelReply::ok(MS, both())];
    let mut verdicts = vec![Verdict::Rejected { reason: "more".into() }, Verdict::Accepted].into_iter();
    let mut sim = Sim::new(cfg, start("p"), Sim::scripted(replies))
        .unwrap()
        .decoder(move |_| verdicts.next().unwrap_or(Verdict::Accepted));
    let summary = completed(sim.run());
    let tool_messages: Vec<&Message> = summary.messages.iter().filter(|m| m.role == Role::Tool).collect();
    assert_eq!(tool_messages.len(), 4, "two rounds, each closing the co-emitted call and the output call");
    assert_stamped(&summary.messages);
    assert_events_stamped(&sim);
}

#[test]
fn extra_01_a_repair_closer_is_a_message_of_the_run_that_adds_it() {
    // An earlier run left c1 open; this run's repair closes it.
    let history =
        vec![earlier(Message::user("go")), earlier(Message::assistant_calls(vec![ToolCall::new("c1", "look", "{}")]))];
    let mut sim = Sim::new(
        config(&["look"]),
        start("again").with_history(history),
        Sim::scripted(vec![ModelReply::ok(MS, Response::text("ok"))]),
    )
    .unwrap();
    let summary = completed(sim.run());
    let closer = &summary.messages[3];
    assert_eq!((closer.role, closer.content.as_str()), (Role::Tool, texts::INTERRUPTED_RESULT));
    assert_stamped(std::slice::from_ref(closer));
}

#[test]
fn extra_01_without_ids_a_repair_closer_keeps_the_open_calls_ids() {
    // A run without ids (a log from before ids existed) repairs as HIST-01 does alone.
    let history = vec![earlier(Message::assistant_calls(vec![ToolCall::new("c1", "look", "{}")]))];
    let start = Start::prompt("again").with_history(history);
    let mut sim =
        Sim::new(config(&["look"]), start, Sim::scripted(vec![ModelReply::ok(MS, Response::text("ok"))])).unwrap();
    let summary = completed(sim.run());
    assert_eq!(summary.messages[1].run_id, "earlier-run");
    assert_eq!(summary.messages[2].run_id, "", "the prompt of a run without ids has none");
    assert!(sim.events().iter().all(|e| e.run_id.is_empty()));
}

#[test]
fn extra_01_resolutions_and_approved_reruns_carry_the_resumed_runs_ids() {
    let history = vec![
        earlier(Message::user("go")),
        earlier(Message::assistant_calls(vec![
            ToolCall::new("a", "gated", "{}"),
            ToolCall::new("b", "gated", "{}"),
            ToolCall::new("c", "gated", "{}"),
        ])),
    ];
    let resolutions = DeferredResults::new()
        .approval("a", Approval::approve())
        .approval("b", Approval::deny("no"))
        .external("c", "from outside");
    let start = {
        let mut start = Start::default();
        start.history = history;
        start.resume = Some(resolutions);
        start
    }
    .with_ids(RUN, CONV);
    let mut sim = Sim::new(config(&["gated"]), start, Sim::scripted(vec![ModelReply::ok(MS, Response::text("ok"))]))
        .unwrap()
        .tool("gated", |_, approved| {
            assert!(approved);
            ToolReply::output(MS, "ran")
        });
    let summary = completed(sim.run());
    assert_eq!(summary.messages.len(), 6, "{:#?}", summary.messages);
    assert_stamped(&summary.messages[2..]);
    assert_events_stamped(&sim);
}

#[test]
fn extra_01_a_paused_run_reports_its_ids() {
    let replies = vec![ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "gated", "{}")]))];
    let defer = ToolOutcome::Defer { kind: DeferKind::Approval, reason: "ask".into() };
    let mut sim = Sim::new(config(&["gated"]), start("p"), Sim::scripted(replies))
        .unwrap()
        .tool("gated", move |_, _| ToolReply::outcome(MS, defer.clone()));
    let Outcome::Paused { summary, .. } = sim.run() else { panic!("expected a pause") };
    assert_eq!((summary.run_id.as_str(), summary.conversation_id.as_str()), (RUN, CONV));
    assert_stamped(&summary.messages);
}

#[test]
fn extra_01_a_failed_run_exposes_its_ids_with_and_without_partial_evidence() {
    // No turn completed: no partial, the ids are still there.
    let replies = vec![ModelReply::err(MS, ModelError::api(400, "bad"))];
    let mut sim = Sim::new(config(&[]), start("p"), Sim::scripted(replies)).unwrap();
    let error = failed(sim.run());
    assert!(error.partial.is_none());
    assert_eq!((error.run_id(), error.conversation_id()), (RUN, CONV));

    // A canceled batch: finished results stand, the rest are interrupted — all stamped.
    let replies = vec![ModelReply::ok(
        MS,
        Response::tool_calls(vec![ToolCall::new("c1", "fast", "{}"), ToolCall::new("c2", "slow", "{}")]),
    )];
    let mut cfg = config(&["fast", "slow"]);
    cfg.parallel_tools = true;
    let cancel = Input::Cancel { reason: CancelReason::Caller, mode: CancelMode::Immediate };
    let mut sim = Sim::new(cfg, start("p"), Sim::scripted(replies))
        .unwrap()
        .tool("fast", |_, _| ToolReply::output(MS, "done"))
        .tool("slow", |_, _| ToolReply::stuck())
        .inject(10 * MS, cancel);
    let error = failed(sim.run());
    assert!(error.is_canceled());
    assert_eq!((error.run_id(), error.conversation_id()), (RUN, CONV));
    let partial = error.partial.expect("a completed turn leaves evidence");
    assert_eq!(partial.messages.last().unwrap().content, texts::INTERRUPTED_RESULT);
    assert_stamped(&partial.messages);
}

#[test]
fn extra_01_serde_is_additive_runs_without_ids_serialise_as_before() {
    let event = {
        let mut event = golem_core::RunEvent::new(3, EventKind::Canceled { reason: CancelReason::Caller });
        event.run_id = Default::default();
        event.conversation_id = Default::default();
        event
    };
    let text = serde_json::to_string(&event).unwrap();
    assert_eq!(text, r#"{"seq":3,"event":"canceled","reason":"caller"}"#);
    let stamped = {
        let mut built = event;
        built.run_id = RUN.into();
        built.conversation_id = CONV.into();
        built
    };
    let text = serde_json::to_string(&stamped).unwrap();
    assert!(text.contains(r#""runId":"0190b6a8"#) && text.contains(r#""conversationId":"#), "{text}");
    assert_eq!(serde_json::from_str::<RunEvent>(&text).unwrap(), stamped);
    // A start without ids reads as it always did.
    let start: Start = serde_json::from_str(r#"{"history":[],"instructions":"","prompt":{"text":"p"}}"#).unwrap();
    assert_eq!((start.run_id.as_str(), start.conversation_id.as_str()), ("", ""));
}

#[test]
fn log_01_the_header_records_the_ids_and_replay_stamps_them_again() {
    let replies = vec![
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "look", "{}")])),
        ModelReply::ok(MS, Response::text("done")),
    ];
    let mut live = Sim::new(config(&["look"]), start("p"), Sim::scripted(replies))
        .unwrap()
        .tool("look", |_, _| ToolReply::output(MS, "x"));
    let outcome = live.run();
    let text = live.log().to_jsonl();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["run_id"], RUN);
    assert_eq!(header["conversation_id"], CONV);
    assert!(header["start"].get("runId").is_none(), "the header holds the ids once: {header}");

    let log = EventLog::parse(&text).unwrap();
    let replayed = replay(&log).unwrap();
    assert_eq!(replayed.machine.run_id(), RUN);
    assert_eq!(replayed.machine.conversation_id(), CONV);
    assert_eq!(replayed.machine.outcome(), Some(&outcome));
    let events: Vec<&RunEvent> = replayed
        .outputs
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(events, live.events().iter().collect::<Vec<_>>());
    // Outputs are digested per record: a log whose ids were edited no longer replays.
    let mut edited = log.clone();
    edited.header.run_id = "someone-else".into();
    assert!(replay(&edited).is_err());
}

#[test]
fn log_01_a_format_1_log_without_ids_replays_with_none() {
    let log = EventLog::parse(include_str!("fixtures/format-1.log.jsonl")).unwrap();
    let replayed = replay(&log).unwrap();
    assert_eq!((replayed.machine.run_id().as_str(), replayed.machine.conversation_id().as_str()), ("", ""));
    let summary = completed(replayed.machine.into_outcome().unwrap());
    assert!(summary.messages.iter().all(|m| m.run_id.is_empty() && m.conversation_id.is_empty()));
}

#[test]
fn log_05_a_crash_resume_continues_the_same_run_id() {
    let replies = vec![
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "look", "{}")])),
        ModelReply::ok(MS, Response::text("done")),
    ];
    // Crash after the model's tool turn: the tool never answered.
    let mut first = Sim::new(config(&["look"]), start("p"), Sim::scripted(replies.clone()))
        .unwrap()
        .tool("look", |_, _| ToolReply::output(MS, "x"))
        .crash_after(1);
    assert!(first.run_until_crash().is_none());
    let log = first.log();
    let replayed = replay(&log).unwrap();
    assert_eq!(replayed.machine.run_id(), RUN);
    let mut second = Sim::resume(replayed.machine, replayed.last_at, log, Sim::scripted(replies[1..].to_vec()))
        .tool("look", |_, _| ToolReply::output(MS, "x"))
        .inject(replayed.last_at.since_epoch(), Input::Recover);
    let summary = completed(second.run());
    assert_eq!(summary.run_id, RUN);
    assert_stamped(&summary.messages);
    assert_events_stamped(&second);
}

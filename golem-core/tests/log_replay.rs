//! Record, replay and crash resume on the machine (SPEC LOG-01..06).

use golem_core::log::{replay, replay_prefix, EventLog, LogError, ReplayError};
use golem_core::machine::{Input, Outcome, Output, Start, ToolOutcome};
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::tool::UnknownOutcome;
use golem_core::*;
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn config(parallel: bool) -> RunConfig {
    {
        let mut config = RunConfig::default();
        config.tools = vec![
            ToolSpec::new("roll", "", json!({"type": "object"})),
            ToolSpec::new("look", "", json!({"type": "object"})),
        ];
        config.parallel_tools = parallel;
        config.retry = RetryPolicy::new().max_attempts(2).tool_retries(1);
        config
    }
}

/// Two tool turns (the first with two calls), a retried model call, an
/// answer whose text does not depend on what the tools returned.
fn replies() -> Vec<ModelReply> {
    vec![
        ModelReply::ok(
            10 * MS,
            Response::tool_calls(vec![ToolCall::new("c1", "roll", "{}"), ToolCall::new("c2", "look", "{}")])
                .with_usage(Usage::new(10, 2)),
        ),
        ModelReply::err(MS, ModelError::api(503, "busy")),
        ModelReply::ok(
            5 * MS,
            Response::tool_calls(vec![ToolCall::new("c3", "roll", "{}")]).with_usage(Usage::new(20, 2)),
        ),
        ModelReply::ok(5 * MS, Response::text("done rolling").with_usage(Usage::new(30, 3))),
    ]
}

fn sim(parallel: bool, crash_after: Option<usize>) -> Sim {
    let mut sim = Sim::new(config(parallel), Start::prompt("play"), Sim::scripted(replies()))
        .unwrap()
        .tool("roll", |_, _| ToolReply::output(7 * MS, "4"))
        .tool("look", |_, _| ToolReply::output(3 * MS, "table"));
    if let Some(n) = crash_after {
        sim = sim.crash_after(n);
    }
    sim
}

fn events_of(outputs: &[Vec<Output>]) -> Vec<RunEvent> {
    outputs
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

fn output_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Completed { summary, .. } => summary.messages.last().unwrap().content.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn log_02_record_then_replay_gives_identical_events_and_outcome() {
    for parallel in [false, true] {
        let mut live = sim(parallel, None);
        let outcome = live.run();
        let text = live.log().to_jsonl();
        let log = EventLog::parse(&text).unwrap();
        assert_eq!(log.end, Some(golem_core::log::EndKind::Completed));
        let replayed = replay(&log).unwrap();
        assert_eq!(replayed.machine.outcome(), Some(&outcome));
        assert_eq!(events_of(&replayed.outputs), live.events());
    }
}

#[test]
fn log_02_an_edited_record_is_reported_at_its_index() {
    let mut live = sim(false, None);
    live.run();
    let mut log = live.log();
    // Change what the second model answer said.
    let index =
        log.records.iter().position(|r| matches!(&r.input, Some(Input::ModelFinished { result: Ok(_), .. }))).unwrap();
    if let Some(Input::ModelFinished { result: Ok(response), .. }) = &mut log.records[index].input {
        response.message.tool_calls[0].name = "look".into();
    }
    assert_eq!(replay(&log).unwrap_err(), ReplayError::Diverged { record: index });
}

#[test]
fn log_02_a_different_configuration_diverges() {
    let mut live = sim(false, None);
    live.run();
    let mut log = live.log();
    log.header.config.retry.max_attempts = 1; // the 503 is now fatal
    let err = replay(&log).unwrap_err();
    assert!(matches!(err, ReplayError::Diverged { .. } | ReplayError::Refused { .. }), "{err:?}");
}

#[test]
fn log_03_unknown_format_and_malformed_lines_fail_closed() {
    let mut live = sim(false, None);
    live.run();
    let text = live.log().to_jsonl();
    let newer = text.replacen("\"format\":3", "\"format\":4", 1);
    assert!(matches!(EventLog::parse(&newer), Err(LogError::UnknownFormat { found: 4 })));
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = r#"{"at":5,"input":"teleport"}"#;
    assert!(matches!(EventLog::parse(&lines.join("\n")), Err(LogError::Record { line: 3, .. })));
    let both = format!("{}\n{}", lines[0], r#"{"at":0,"input":"tick","end":"completed"}"#);
    assert!(matches!(EventLog::parse(&both), Err(LogError::Record { line: 2, .. })));
    let neither = format!("{}\n{}\n{}", lines[0], r#"{"at":0}"#, lines[1]);
    assert!(matches!(EventLog::parse(&neither), Err(LogError::Record { line: 2, .. })));
    let extra = format!("{text}{}\n", r#"{"at":999999999999,"input":"tick"}"#);
    assert!(matches!(EventLog::parse(&extra), Err(LogError::Order { .. })));
    // No complete header: the run never started (issue 16).
    assert_eq!(EventLog::parse(""), Err(LogError::NotStarted { bytes: 0 }));
    assert_eq!(EventLog::parse("not json"), Err(LogError::NotStarted { bytes: 8 }));
    // A damaged header with records after it is no crash's doing.
    let damaged = format!("not json\n{}", lines[1]);
    assert!(matches!(EventLog::parse(&damaged), Err(LogError::Header(_))));
    // A complete header that does not read fails closed, records or not.
    let bad = lines[0].replacen(r#""config":{"#, r#""config":{"maxIterations":"ten","#, 1);
    assert!(matches!(EventLog::parse(&bad), Err(LogError::Header(_))));
}

#[test]
fn log_03_committed_format_1_log_still_replays() {
    let text = include_str!("fixtures/format-1.log.jsonl");
    let log = EventLog::parse(text).unwrap();
    let replayed = replay(&log).unwrap();
    assert_eq!(output_text(replayed.machine.outcome().unwrap()), "done rolling");
}

#[test]
fn log_03_committed_format_2_log_still_replays() {
    let text = include_str!("fixtures/format-2.log.jsonl");
    let log = EventLog::parse(text).unwrap();
    assert_eq!(log.header.format, 2);
    let replayed = replay(&log).unwrap();
    assert_eq!(output_text(replayed.machine.outcome().unwrap()), "done rolling");
    // Its records are what this scenario records today (format 3 changed
    // only the header), under the settings its header holds: the
    // Retry-After ceiling of its time and no tool caps.
    let mut config = config(false);
    config.retry.max_retry_after = Duration::from_secs(60);
    (config.max_tool_result_bytes, config.max_tool_args_bytes) = (None, None);
    let mut live = Sim::new(config, Start::prompt("play"), Sim::scripted(replies()))
        .unwrap()
        .tool("roll", |_, _| ToolReply::output(7 * MS, "4"))
        .tool("look", |_, _| ToolReply::output(3 * MS, "table"));
    live.run();
    let today = live.log().to_jsonl();
    assert_eq!(today.lines().skip(1).collect::<Vec<_>>(), text.lines().skip(1).collect::<Vec<_>>());
}

#[test]
fn log_03_committed_format_3_log_still_replays() {
    let text = include_str!("fixtures/format-3.log.jsonl");
    let log = EventLog::parse(text).unwrap();
    assert_eq!(log.header.format, 3);
    assert!(log.header.start.jitter_seed.is_some() && log.header.config.max_tool_result_bytes.is_some());
    let replayed = replay(&log).unwrap();
    assert_eq!(output_text(replayed.machine.outcome().unwrap()), "done rolling");
    // The fixture is what this scenario records today, byte for byte.
    let mut live = Sim::new(config(false), Start::prompt("play").with_jitter_seed(0x5eed), Sim::scripted(replies()))
        .unwrap()
        .tool("roll", |_, _| ToolReply::output(7 * MS, "4"))
        .tool("look", |_, _| ToolReply::output(3 * MS, "table"));
    live.run();
    assert_eq!(live.log().to_jsonl(), text);
}

/// Upgrade (format 1 → 2): the tool events changed shape, so a format-1
/// log's digests are checked against outputs written in format 1's shape —
/// still checked, not skipped: an edit to a tool result is caught at its
/// record, as in a current log.
#[test]
fn log_03_format_1_digests_are_checked_in_their_own_shape() {
    let text = include_str!("fixtures/format-1.log.jsonl");
    let edited = text.replacen(r#"{"output":{"content":"table"}}"#, r#"{"output":{"content":"chair"}}"#, 1);
    assert_ne!(edited, text);
    let log = EventLog::parse(&edited).unwrap();
    let record = log
        .records
        .iter()
        .position(|r| matches!(&r.input, Some(Input::ToolFinished { outcome: ToolOutcome::Output { content, .. }, .. }) if content == "chair"))
        .unwrap();
    assert_eq!(replay(&log).unwrap_err(), ReplayError::Diverged { record });

    // The two shapes really differ: the tool_end record's format-1 digest
    // is not today's.
    let log = EventLog::parse(text).unwrap();
    let replayed = replay(&log).unwrap();
    let produced = &replayed.outputs[record + 1];
    assert!(produced.iter().any(|o| matches!(o, Output::Event(e) if matches!(e.kind, EventKind::ToolEnd { .. }))));
    assert_eq!(log.records[record].out.as_deref(), Some(golem_core::log::outputs_digest_for(1, produced).as_str()));
    assert_ne!(golem_core::log::outputs_digest(produced), golem_core::log::outputs_digest_for(1, produced));
}

/// A crashed format-1 log continued today keeps writing format-1 digests,
/// so the whole file replays in one shape.
#[test]
fn log_03_a_continued_format_1_log_keeps_its_digest_shape() {
    let text = include_str!("fixtures/format-1.log.jsonl");
    let log = EventLog::parse(text).unwrap();
    let cut = log.records.iter().position(|r| matches!(r.input, Some(Input::ToolFinished { .. }))).unwrap();
    let replayed = replay_prefix(&log, cut).unwrap();
    let mut machine = replayed.machine;
    let mut continued = EventLog::new(log.header.clone());
    continued.records = log.records[..cut].to_vec();
    for record in &log.records[cut..] {
        let input = record.input.clone().unwrap();
        let now = log.moment(record.at);
        let produced = machine.step(now, input.clone()).unwrap();
        continued.push(now, input, Some(&produced));
    }
    assert_eq!(continued.records, log.records);
}

#[test]
fn log_05_crash_at_every_point_resumes_to_the_same_outcome_without_repeating_tools() {
    for parallel in [false, true] {
        let mut whole = sim(parallel, None);
        let expected = whole.run();
        let total = whole.inputs().len();
        for cut in 0..total {
            let mut first = sim(parallel, Some(cut));
            if let Some(outcome) = first.run_until_crash() {
                panic!("cut {cut}: finished before the crash: {outcome:?}");
            }
            let text = first.log().to_jsonl();
            let log = EventLog::parse(&text).unwrap();
            assert_eq!(log.end, None);
            let replayed = replay(&log).unwrap();
            // The new process: a fresh model script positioned after the calls
            // the log already answered, the same tools, counting executions.
            let answered = log.records.iter().filter(|r| matches!(r.input, Some(Input::ModelFinished { .. }))).count();
            let rest: Vec<ModelReply> = replies().into_iter().skip(answered).collect();
            let executions = Rc::new(Cell::new(first.executions()));
            let (e1, e2) = (executions.clone(), executions.clone());
            let mut second = Sim::resume(replayed.machine, replayed.last_at, log, Sim::scripted(rest))
                .tool("roll", move |_, _| {
                    e1.set(e1.get() + 1);
                    ToolReply::output(7 * MS, "4")
                })
                .tool("look", move |_, _| {
                    e2.set(e2.get() + 1);
                    ToolReply::output(3 * MS, "table")
                })
                .inject(replayed.last_at.since_epoch(), Input::Recover);
            let outcome = second.run();
            assert_eq!(output_text(&outcome), output_text(&expected), "cut {cut}");
            assert!(executions.get() <= 3, "cut {cut}: a tool ran twice ({} executions)", executions.get());
            // The continued log replays too.
            let full = second.log();
            assert_eq!(replay(&full).unwrap().machine.outcome(), Some(&outcome), "cut {cut}");
        }
    }
}

#[test]
fn log_06_ledger_policies_for_a_call_started_before_a_crash() {
    for (policy, expect) in
        [(UnknownOutcome::Interrupt, "interrupt"), (UnknownOutcome::Redo, "redo"), (UnknownOutcome::AskHuman, "ask")]
    {
        let mut cfg = config(false);
        cfg.tools[0].on_unknown_outcome = policy;
        let replies = vec![
            ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "roll", "{}")])),
            ModelReply::ok(MS, Response::text("ok")),
        ];
        // Inputs: model_finished, tool_started — crash before the result.
        let mut first = Sim::new(cfg.clone(), Start::prompt("p"), Sim::scripted(replies.clone()))
            .unwrap()
            .tool("roll", |_, _| ToolReply::output(5 * MS, "4"))
            .crash_after(2);
        assert!(first.run_until_crash().is_none());
        let log = first.log();
        let replayed = replay(&log).unwrap();
        let mut second = Sim::resume(replayed.machine, replayed.last_at, log, Sim::scripted(replies[1..].to_vec()))
            .tool("roll", |_, _| ToolReply::output(5 * MS, "again"))
            .inject(replayed.last_at.since_epoch(), Input::Recover);
        let outcome = second.run();
        let recovered: Vec<String> = second.event_lines().into_iter().filter(|l| l.starts_with("recovered")).collect();
        match expect {
            "interrupt" => {
                assert_eq!(recovered, vec!["recovered c1 roll started=true Interrupt"]);
                let Outcome::Completed { summary, .. } = outcome else { panic!() };
                assert_eq!(summary.messages[2].content, texts::OUTCOME_UNKNOWN);
                assert!(summary.messages[2].failed);
                assert_eq!(second.executions(), 0);
            }
            "redo" => {
                assert_eq!(recovered, vec!["recovered c1 roll started=true Redo"]);
                let Outcome::Completed { summary, .. } = outcome else { panic!() };
                assert_eq!(summary.messages[2].content, "again");
                assert_eq!(second.executions(), 1);
            }
            _ => {
                let Outcome::Paused { deferred, .. } = outcome else { panic!("{outcome:?}") };
                assert_eq!(deferred.approvals[0].call_id, "c1");
                assert_eq!(deferred.approvals[0].reason, texts::OUTCOME_UNKNOWN_ASK);
            }
        }
    }
}

#[test]
fn log_06_a_call_that_never_started_just_runs() {
    let replies = vec![
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "roll", "{}")])),
        ModelReply::ok(MS, Response::text("ok")),
    ];
    // Crash right after the model answered: ExecuteTool was commanded, not started.
    let mut first = Sim::new(config(false), Start::prompt("p"), Sim::scripted(replies.clone()))
        .unwrap()
        .tool("roll", |_, _| ToolReply::output(MS, "4"))
        .crash_after(1);
    assert!(first.run_until_crash().is_none());
    assert_eq!(first.executions(), 0);
    let log = first.log();
    let replayed = replay_prefix(&log, log.records.len()).unwrap();
    let mut second = Sim::resume(replayed.machine, replayed.last_at, log, Sim::scripted(replies[1..].to_vec()))
        .tool("roll", |_, _| ToolReply::outcome(MS, ToolOutcome::output("4")))
        .inject(replayed.last_at.since_epoch(), Input::Recover);
    let Outcome::Completed { summary, .. } = second.run() else { panic!() };
    assert_eq!(summary.messages[2].content, "4");
    assert_eq!(second.executions(), 1);
    assert!(second.event_lines().contains(&"recovered c1 roll started=false Redo".to_string()));
}

#[test]
fn log_05_a_last_line_torn_by_the_crash_is_dropped() {
    let mut first = sim(false, Some(3));
    assert!(first.run_until_crash().is_none());
    let text = first.log().to_jsonl();
    let whole = EventLog::parse(&text).unwrap();
    // The crash cut the next write in half.
    let torn = format!("{text}{}", r#"{"at":99,"input":{"tool_fini"#);
    assert_eq!(EventLog::parse(&torn).unwrap(), whole);
    // A power loss may leave bytes the disk never held after it, newlines
    // included: still the tail of the crash.
    let garbled = format!("{text}{}\n\0\0\n\u{fffd}", r#"{"at":99,"input":{"tool_fini"#);
    assert_eq!(EventLog::parse(&garbled).unwrap(), whole);
    // A broken line with a record after it is not a crash's: an error.
    let broken = format!("{text}{}\n{}", r#"{"at":99,"input":{"tool_fini"#, r#"{"at":99,"input":"tick"}"#);
    assert!(matches!(EventLog::parse(&broken), Err(LogError::Record { .. })));
}

/// The decode commanded for `answer`, and the one a crash recovery commands
/// in its place: the machine keeps no copy of the response meanwhile, so
/// the second is made again from the history (issue 37).
fn decode_then_recover(output: OutputMode, answer: Response) -> (Output, Output) {
    use golem_core::machine::Command;
    let mut config = config(false);
    config.output = output;
    let mut machine = RunMachine::new(config, Start::prompt("p"), Moment::ZERO).unwrap();
    let model = machine
        .drain()
        .into_iter()
        .find_map(|o| if let Output::Command(Command::CallModel { id, .. }) = o { Some(id) } else { None })
        .unwrap();
    let decode = |outputs: Vec<Output>| {
        outputs.into_iter().find(|o| matches!(o, Output::Command(Command::Decode { .. }))).expect("a decode")
    };
    let first = machine.step(Moment::from_millis(1), Input::ModelFinished { id: model, result: Ok(Box::new(answer)) });
    let first = decode(first.unwrap());
    let again = decode(machine.step(Moment::from_millis(2), Input::Recover).unwrap());
    (first, again)
}

#[test]
fn log_06_a_decode_lost_in_a_crash_is_asked_again_with_the_same_response() {
    use golem_core::machine::Command;
    let text = Response::text("42").with_usage(Usage::new(9, 2)).with_finish_reason(FinishReason::Length);
    let output_tool =
        OutputMode::Tool { name: "out".into(), description: String::new(), schema: json!({"type": "object"}) };
    let call = Response::tool_calls(vec![ToolCall::new("c1", "out", r#"{"n":42}"#)]).with_usage(Usage::new(9, 3));
    for (output, answer, content, finish) in [
        (OutputMode::Text, text, "42", FinishReason::Length),
        (output_tool, call, r#"{"n":42}"#, FinishReason::ToolCall),
    ] {
        let (first, again) = decode_then_recover(output, answer);
        let (
            Output::Command(Command::Decode { id: a, response: r1 }),
            Output::Command(Command::Decode { id: b, response: r2 }),
        ) = (first, again)
        else {
            unreachable!()
        };
        assert_ne!(a, b, "a new id");
        assert_eq!(r1, r2);
        assert_eq!((r1.message.content.as_str(), r1.finish_reason), (content, finish));
        assert_eq!(r1.message.role, Role::Assistant);
        assert_eq!(r1.usage.input_tokens, 9, "the answer's usage");
    }
}

//! Crash at every point (issue 4, SPEC LOG-05, LOG-06): a recorded run is
//! cut after each of its log records — exactly what a process that died
//! there leaves behind — and continued from the log by a new agent with a
//! live model and live tools. Every continuation reaches the uninterrupted
//! run's answer, and no tool call executes twice.

use crate::log_buffer::Buffer;
use golem_core::log::{replay, replay_prefix, EventLog};
use golem_core::machine::{Command, Input, Output};
use golem_core::testing::FnModel;
use golem_core::{Message, Response, Role, ToolCall};
use golem_io::{Agent, Tool, ToolContext};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Answers by counting tool results, so it needs no memory: two parallel
/// calls, then one more, then the answer.
fn model() -> FnModel {
    FnModel::new(|request| {
        let results = request.messages.iter().filter(|m| m.role == Role::Tool).count();
        Ok(match results {
            0 => Response::tool_calls(vec![
                ToolCall::new("c1", "roll", r#"{"sides":6}"#),
                ToolCall::new("c2", "look", "{}"),
            ]),
            1 | 2 => Response::tool_calls(vec![ToolCall::new("c3", "roll", r#"{"sides":20}"#)]),
            _ => Response::text(format!("done after {results} results")),
        })
    })
}

/// The executions of each provider call id.
type Ledger = Arc<Mutex<BTreeMap<String, usize>>>;

fn agent(ledger: &Ledger) -> Agent<()> {
    let tool = |name: &'static str, ledger: Ledger| {
        Tool::new(name, "a game tool", serde_json::json!({"type": "object"}), move |ctx: ToolContext<()>, _args| {
            *ledger.lock().unwrap().entry(ctx.call_id().to_string()).or_default() += 1;
            Ok(format!("{name} ok"))
        })
    };
    Agent::builder(model())
        .tool(tool("roll", Arc::clone(ledger)))
        .tool(tool("look", Arc::clone(ledger)))
        .parallel_tools(true)
        .build()
        .unwrap()
}

/// Provider call ids whose body ran in the crashed process: the log holds
/// their `ToolStarted` (written before the body runs).
fn started_in(log: &EventLog, cut: usize) -> Vec<String> {
    let replayed = replay_prefix(log, cut).unwrap();
    let mut by_id = BTreeMap::new();
    for output in replayed.outputs.iter().flatten() {
        if let Output::Command(Command::ExecuteTool { id, call, .. }) = output {
            by_id.insert(id.0, call.id.clone());
        }
    }
    log.records[..cut]
        .iter()
        .filter_map(|r| match &r.input {
            Some(Input::ToolStarted { id }) => by_id.get(&id.0).cloned(),
            _ => None,
        })
        .collect()
}

fn run_cut(full: &EventLog, cut: usize, expected: &str, async_driver: bool) {
    let mut prefix = EventLog::new(full.header.clone());
    prefix.records = full.records[..cut].to_vec();
    let text = prefix.to_jsonl();
    let log = EventLog::parse(&text).unwrap();
    let first = started_in(&log, cut);
    let ledger: Ledger = Ledger::default();
    let appended = Buffer::default();
    let agent = agent(&ledger);
    let run = agent.run_with(()).continue_log(&log).unwrap().record(appended.clone());
    let result = if async_driver { futures_lite::future::block_on(run.call_async()) } else { run.call() };
    let result = result.unwrap_or_else(|e| panic!("cut {cut}: {e}"));
    assert_eq!(result.output, expected, "cut {cut}");
    // No call ran twice, across the crashed process and the new one.
    let mut runs = ledger.lock().unwrap().clone();
    for id in first {
        *runs.entry(id).or_default() += 1;
    }
    assert!(runs.values().all(|&n| n <= 1), "cut {cut}: executions {runs:?}");
    // The continued log replays to the same result.
    let whole = EventLog::parse(&(text + &appended.text())).unwrap();
    let replayed = replay(&whole).unwrap();
    let Some(golem_core::machine::Outcome::Completed { summary, .. }) = replayed.machine.outcome() else {
        panic!("cut {cut}: {:?}", replayed.machine.outcome())
    };
    assert_eq!(summary.messages, result.messages, "cut {cut}");
    assert_eq!(summary.messages.last().map(|m: &Message| m.content.as_str()), Some(expected));
}

#[test]
fn log_05_crash_after_every_record_resumes_to_the_same_answer() {
    let ledger = Ledger::default();
    let buffer = Buffer::default();
    let result = agent(&ledger).run_with(()).prompt("play").record(buffer.clone()).call().unwrap();
    let expected = result.output.clone();
    assert_eq!(expected, "done after 3 results");
    assert!(ledger.lock().unwrap().values().all(|&n| n == 1));
    let full = EventLog::parse(&buffer.text()).unwrap();
    assert!(full.records.len() >= 8, "a multi-turn run: {} records", full.records.len());
    for cut in 0..full.records.len() {
        run_cut(&full, cut, &expected, false);
        run_cut(&full, cut, &expected, true);
    }
}

#[test]
fn a_finished_log_gives_its_outcome_again_and_another_configuration_is_refused() {
    let ledger = Ledger::default();
    let buffer = Buffer::default();
    let done = agent(&ledger).run_with(()).prompt("play").record(buffer.clone()).call().unwrap();
    let full = EventLog::parse(&buffer.text()).unwrap();
    // Continuing a finished run runs nothing and writes nothing (issue 16).
    let again = Buffer::default();
    let ran_before = ledger.lock().unwrap().clone();
    let result = agent(&ledger).run_with(()).continue_log(&full).unwrap().record(again.clone()).call().unwrap();
    assert_eq!((result.output, result.messages), (done.output, done.messages));
    assert_eq!(*ledger.lock().unwrap(), ran_before);
    assert_eq!(again.text(), "");
    let mut cut = full.clone();
    cut.end = None;
    cut.records.truncate(3);
    let other = Agent::<()>::builder(model()).max_iterations(3).build().unwrap();
    assert!(matches!(other.run_with(()).continue_log(&cut), Err(golem_io::Error::NotResumable(_))));
}

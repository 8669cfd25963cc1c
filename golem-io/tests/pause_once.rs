//! A pause is used once (SPEC PAUSE-01): resuming one paused log from two
//! processes racing — this test binary again, twice — runs the approved
//! tool once; every later resume is refused with a typed error and runs
//! nothing; and an approved call's idempotency key names the paused run and
//! the call, whichever run resumes it, so a tool can dedupe an application
//! that resumes twice by a path golem cannot guard.

use crate::crash_support::scratch_dir;
use golem_core::testing::ScriptedModel;
use golem_core::{Approval, DeferredResults};
use golem_io::{Agent, Error, LogFile, RunOutcome, Tool, ToolError};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The paused log a child resumes; set only in children.
const CHILD_LOG: &str = "GOLEM_PAUSE_CHILD_LOG";

/// The model of a resumed run: the refund's result in, the answer out.
fn resumed() -> ScriptedModel {
    ScriptedModel::new().text("done")
}

/// An agent on `model` whose `refund` needs approval and, once approved, appends its
/// idempotency key to `ledger` — the side effect that must happen once.
fn agent(ledger: PathBuf, model: ScriptedModel) -> Agent<()> {
    let refund = Tool::new("refund", "Refund the order.", json!({"type": "object"}), move |ctx, _args| {
        if !ctx.is_approved() {
            return Err(ToolError::approval("refunds need a human"));
        }
        let mut file = std::fs::OpenOptions::new().append(true).create(true).open(&ledger).unwrap();
        writeln!(file, "{}", ctx.idempotency_key()).unwrap();
        Ok("refunded 40 EUR")
    });
    Agent::<()>::builder(model).tool(refund).build().unwrap()
}

/// Pause a run on the refund, recording to `dir/paused.jsonl`; its run id.
fn pause(dir: &Path) -> String {
    let path = dir.join("paused.jsonl");
    let outcome = agent(dir.join("ledger"), ScriptedModel::new().tool_call("refund", "{}"))
        .run_with(())
        .prompt("refund it")
        .record(LogFile::create(&path).unwrap())
        .call_pausable();
    let Ok(RunOutcome::Paused(paused)) = outcome else { panic!("{outcome:?}") };
    assert_eq!(paused.deferred.approvals[0].call_id, "call_1");
    paused.run_id().to_string()
}

fn approved() -> DeferredResults {
    DeferredResults::new().approval("call_1", Approval::approve())
}

#[test]
#[ignore = "a child process of the two-process resume test, which starts it"]
fn pause_child() {
    let Ok(log) = std::env::var(CHILD_LOG) else { return };
    let log = PathBuf::from(log);
    let ledger = log.with_file_name("ledger");
    let resumed = agent(ledger, resumed()).run_with(()).resume_log_file(&log, approved()).and_then(|run| run.call());
    match resumed {
        Ok(result) => println!("\nchild: RESUMED {}", result.output),
        Err(Error::AlreadyResumed { .. }) => println!("\nchild: REFUSED"),
        Err(other) => panic!("{other}"),
    }
}

fn child(log: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "pause_once::pause_child", "--ignored", "--test-threads=1", "--nocapture"])
        .env(CHILD_LOG, log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn pause_01_two_processes_resuming_one_paused_log_run_the_approved_tool_once() {
    let dir = scratch_dir();
    let paused_run = pause(dir.path());
    let log = dir.path().join("paused.jsonl");
    // Both started before either finishes: they race for the pause.
    let children = [child(&log), child(&log)];
    let mut said: Vec<String> = children
        .into_iter()
        .map(|c| {
            let output = c.wait_with_output().unwrap();
            assert!(output.status.success(), "a child failed: {}", String::from_utf8_lossy(&output.stderr));
            let stdout = String::from_utf8(output.stdout).unwrap();
            stdout.lines().find_map(|l| l.strip_prefix("child: ")).unwrap_or_else(|| panic!("{stdout}")).to_string()
        })
        .collect();
    said.sort();
    assert_eq!(said, ["REFUSED", "RESUMED done"]);
    let ledger = std::fs::read_to_string(dir.path().join("ledger")).unwrap();
    assert_eq!(ledger.lines().collect::<Vec<_>>(), [format!("{paused_run}:call_1")], "the refund ran once");
    // And a third resume, later, in this process: refused, nothing runs.
    let third = agent(dir.path().join("ledger"), resumed());
    let again = third.run_with(()).resume_log_file(&log, approved());
    let Err(Error::AlreadyResumed { by_run, .. }) = again else { panic!("{again:?}") };
    assert!(!by_run.is_empty() && by_run != paused_run, "the claim names the resuming run: {by_run}");
    assert_eq!(std::fs::read_to_string(dir.path().join("ledger")).unwrap(), ledger);
}

#[test]
fn pause_01_a_refused_resolution_does_not_use_up_the_pause() {
    let dir = scratch_dir();
    pause(dir.path());
    let log = dir.path().join("paused.jsonl");
    let wrong = DeferredResults::new().approval("call_2", Approval::approve());
    let first = agent(dir.path().join("ledger"), resumed());
    let refused = first.run_with(()).resume_log_file(&log, wrong);
    assert!(matches!(refused, Err(Error::Setup(_))), "{refused:?}");
    let done = agent(dir.path().join("ledger"), resumed())
        .run_with(())
        .resume_log_file(&log, approved())
        .unwrap()
        .call()
        .unwrap();
    assert_eq!(done.output, "done");
}

#[test]
fn pause_01_an_approved_call_is_keyed_by_the_paused_run_whoever_resumes_it() {
    // Resuming from memory twice (what golem cannot see across processes):
    // two runs, two run ids — one idempotency key, the paused run's.
    let dir = scratch_dir();
    let paused_run = pause(dir.path());
    let log =
        golem_core::log::EventLog::parse(&std::fs::read_to_string(dir.path().join("paused.jsonl")).unwrap()).unwrap();
    let mut runs = Vec::new();
    for _ in 0..2 {
        let done = agent(dir.path().join("ledger"), resumed())
            .run_with(())
            .resume_log(&log, approved())
            .unwrap()
            .call()
            .unwrap();
        runs.push(done.run_id().to_string());
    }
    assert_ne!(runs[0], runs[1]);
    let key = format!("{paused_run}:call_1");
    let ledger = std::fs::read_to_string(dir.path().join("ledger")).unwrap();
    assert_eq!(ledger.lines().collect::<Vec<_>>(), [key.as_str(), key.as_str()]);
}

//! Log files across crashes (issue 16, SPEC LOG-05): `LogFile` cuts a torn
//! tail before a continued run appends; a run that reached its outcome
//! before the crash is finished, not refused — its end marker written, its
//! recorded outcome returned, typed output included; a log with only its
//! header continues; a log without one is a run that never started.

use crate::crash_support::scratch_dir;
use golem_core::log::{EndKind, EventLog, LogError};
use golem_core::testing::ScriptedModel;
use golem_core::{Approval, DeferredResults, Stage};
use golem_io::{Agent, Error, LogFile, RunOutcome, Tool, ToolContext, ToolError};
use serde::Deserialize;
use std::path::Path;

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
}

/// The log at `path` without its last line (the end marker).
fn drop_end_marker(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let body = &bytes[..bytes.len() - 1];
    let cut = body.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    write(path, &bytes[..cut]);
    bytes[cut..].to_vec()
}

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Verdict {
    ok: bool,
}

#[test]
fn issue_16_open_for_continue_cuts_a_torn_tail_and_ends_the_last_line() {
    let dir = scratch_dir();
    let path = dir.path().join("run.jsonl");
    let agent = Agent::<()>::builder(ScriptedModel::new().text("a").text("b")).build().unwrap();
    agent.run_with(()).prompt("one").record(LogFile::create(&path).unwrap()).call().unwrap();
    let whole = std::fs::read(&path).unwrap();
    let header = whole.iter().position(|&b| b == b'\n').unwrap() + 1;

    // A record cut short, then bytes a power loss left.
    let mut torn = whole[..header + 20].to_vec();
    torn.extend_from_slice(b"\0\0\n\xff");
    write(&path, &torn);
    let (log, _) = LogFile::open_for_continue(&path).unwrap();
    assert!(log.records.is_empty() && log.end.is_none());
    assert_eq!(std::fs::read(&path).unwrap(), &whole[..header], "cut back to the header");

    // A header complete but for its newline: the newline is added.
    write(&path, &whole[..header - 1]);
    LogFile::open_for_continue(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), &whole[..header]);

    // An intact log is not changed.
    write(&path, &whole);
    let (log, _) = LogFile::open_for_continue(&path).unwrap();
    assert_eq!(log.end, Some(EndKind::Completed));
    assert_eq!(std::fs::read(&path).unwrap(), whole);

    // No complete header: the run never started; a missing file is an I/O error.
    for cut in [0, 1, header / 2, header - 2] {
        write(&path, &whole[..cut]);
        let err = LogFile::open_for_continue(&path).unwrap_err();
        assert_eq!(err, Error::Log(LogError::NotStarted { bytes: cut }), "cut at {cut}");
        assert!(err.to_string().contains("nothing ran, and it can be started again"), "{err}");
    }
    let missing = LogFile::open_for_continue(dir.path().join("none.jsonl")).unwrap_err();
    assert!(matches!(missing, Error::Record(ref m) if m.contains("none.jsonl")), "{missing}");
}

#[test]
fn issue_16_a_completed_run_without_its_end_marker_is_finished_with_its_typed_output() {
    let dir = scratch_dir();
    let path = dir.path().join("run.jsonl");
    let agent = Agent::<()>::builder(ScriptedModel::new().text(r#"{"ok":true}"#)).output::<Verdict>().build().unwrap();
    let done = agent.run_with(()).prompt("judge").record(LogFile::create(&path).unwrap()).call().unwrap();
    let marker = drop_end_marker(&path);

    for async_driver in [false, true] {
        let (log, file) = LogFile::open_for_continue(&path).unwrap();
        assert_eq!(log.end, None);
        let run = agent.run_with(()).continue_log(&log).unwrap().record(file);
        let result = if async_driver { futures_lite::future::block_on(run.call_async()) } else { run.call() }.unwrap();
        assert_eq!(result.output, Verdict { ok: true });
        assert_eq!((result.messages, result.run_id), (done.messages.clone(), done.run_id.clone()));
        // The end marker, and nothing else, was written.
        let (log, _) = LogFile::open_for_continue(&path).unwrap();
        assert_eq!(log.end, Some(EndKind::Completed));
        assert_eq!(drop_end_marker(&path), marker);
    }
}

#[test]
fn issue_16_a_paused_or_failed_run_without_its_end_marker_is_finished_too() {
    let dir = scratch_dir();
    let path = dir.path().join("run.jsonl");
    let gate = Tool::new("gate", "Needs a human.", serde_json::json!({"type": "object"}), |ctx: ToolContext<()>, _| {
        if ctx.is_approved() {
            Ok("through")
        } else {
            Err(ToolError::approval("let it through?"))
        }
    });
    let model = || ScriptedModel::new().tool_call("gate", "{}").text("done");
    let agent = Agent::<()>::builder(model()).tool(gate).build().unwrap();
    let paused = agent.run_with(()).prompt("go").record(LogFile::create(&path).unwrap()).call_pausable().unwrap();
    drop_end_marker(&path);
    let (log, file) = LogFile::open_for_continue(&path).unwrap();
    let again = agent.run_with(()).continue_log(&log).unwrap().record(file).call_pausable().unwrap();
    assert_eq!(again, paused);
    let (log, _) = LogFile::open_for_continue(&path).unwrap();
    assert_eq!(log.end, Some(EndKind::Paused));
    // The finished pause resumes as any other.
    let call = again.paused().unwrap().deferred.approvals[0].call_id.clone();
    let answers = DeferredResults::new().approval(call, Approval::approve());
    assert_eq!(agent.run_with(()).resume_log(&log, answers).unwrap().call().unwrap().output, "done");

    let broken =
        Tool::new("broken", "Always fails.", serde_json::json!({"type": "object"}), |_ctx: ToolContext<()>, _| {
            Err::<String, _>(ToolError::fatal("the disk is gone"))
        });
    let agent = Agent::<()>::builder(ScriptedModel::new().tool_call("broken", "{}")).tool(broken).build().unwrap();
    let failed = agent.run_with(()).prompt("go").record(LogFile::create(&path).unwrap()).call().unwrap_err();
    assert_eq!(failed.stage(), Some(Stage::Tool));
    drop_end_marker(&path);
    let (log, file) = LogFile::open_for_continue(&path).unwrap();
    let again = agent.run_with(()).continue_log(&log).unwrap().record(file).call().unwrap_err();
    assert_eq!((again.stage(), again.run_id()), (failed.stage(), failed.run_id()));
    assert_eq!(EventLog::read_bytes(&std::fs::read(&path).unwrap()).unwrap().log.end, Some(EndKind::Failed));
}

#[test]
fn issue_16_a_log_with_only_its_header_continues_under_its_run_id() {
    let dir = scratch_dir();
    let path = dir.path().join("run.jsonl");
    let agent = Agent::<()>::builder(ScriptedModel::new().text("hello")).build().unwrap();
    let first = agent.run_with(()).prompt("hi").record(LogFile::create(&path).unwrap()).call().unwrap();
    let whole = std::fs::read(&path).unwrap();
    let header = whole.iter().position(|&b| b == b'\n').unwrap() + 1;
    write(&path, &whole[..header]);
    let (log, file) = LogFile::open_for_continue(&path).unwrap();
    assert!(log.records.is_empty());
    let agent = Agent::<()>::builder(ScriptedModel::new().text("hello")).build().unwrap();
    let result = agent.run_with(()).continue_log(&log).unwrap().record(file).call().unwrap();
    assert_eq!((result.output.as_str(), result.run_id()), ("hello", first.run_id()));
    let (log, _) = LogFile::open_for_continue(&path).unwrap();
    assert_eq!(log.end, Some(EndKind::Completed));
}

#[test]
fn issue_16_a_finished_log_gives_its_outcome_on_either_driver() {
    let dir = scratch_dir();
    let path = dir.path().join("run.jsonl");
    let agent = Agent::<()>::builder(ScriptedModel::new().text("once")).build().unwrap();
    agent.run_with(()).prompt("hi").record(LogFile::create(&path).unwrap()).call().unwrap();
    let whole = std::fs::read(&path).unwrap();
    let (log, file) = LogFile::open_for_continue(&path).unwrap();
    // The scripted model has no answer left: nothing may call it.
    let outcome = futures_lite::future::block_on(
        agent.run_with(()).continue_log(&log).unwrap().record(file).call_pausable_async(),
    );
    let Ok(RunOutcome::Completed(result)) = outcome else { panic!("{outcome:?}") };
    assert_eq!(result.output, "once");
    assert_eq!(std::fs::read(&path).unwrap(), whole, "nothing written");
}

#[cfg(unix)]
#[test]
fn log_08_log_files_are_created_readable_by_their_owner_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch_dir();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let fresh = dir.path().join("fresh.jsonl");
    let agent = Agent::<()>::builder(ScriptedModel::new().text("secret answer")).build().unwrap();
    agent.run_with(()).prompt("a private prompt").record(LogFile::create(&fresh).unwrap()).call().unwrap();
    assert_eq!(mode(&fresh), 0o600, "a new log");
    // A world-readable file the log replaces is narrowed too.
    let replaced = dir.path().join("replaced.jsonl");
    write(&replaced, b"old");
    std::fs::set_permissions(&replaced, std::fs::Permissions::from_mode(0o644)).unwrap();
    drop(LogFile::create(&replaced).unwrap());
    assert_eq!(mode(&replaced), 0o600, "a replaced file");
}

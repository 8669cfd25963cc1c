//! `run_command` against what an injected model can ask of it (issue 15
//! item 4): the child sees no API key unless configured, a `setsid` daemon
//! it starts is gone once the call returns (on completion and on timeout),
//! and no reader is left blocked on a pipe someone outside the group holds.
#![cfg(all(feature = "command", unix))]
#![cfg_attr(not(target_os = "linux"), allow(dead_code))] // the helpers serve the Linux tests

use golem_io::tools::command::{CommandError, RunCommand};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The pids of this user's processes whose command line holds `tag`.
fn tagged(tag: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            cmdline.split(|b| *b == 0).any(|arg| arg == tag.as_bytes())
        })
        .filter(|pid| {
            // A zombie is dead; it only waits for its reaper.
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            !stat.rsplit(')').next().unwrap_or_default().trim_start().starts_with('Z')
        })
        .collect()
}

fn eventually_none(tag: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if tagged(tag).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    tagged(tag).is_empty()
}

/// A command-line word no other process has: a sleep of this many seconds.
fn unique_seconds() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("9{}{:03}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Kills whatever still carries `tag` when the test ends, pass or fail.
struct Sweep(String);

impl Drop for Sweep {
    fn drop(&mut self) {
        for pid in tagged(&self.0) {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_setsid_daemon_started_by_a_command_is_gone_after_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunCommand::builder(dir.path()).build().unwrap();
    // On completion: `setsid -f` forks a daemon in a new session and exits.
    let seconds = unique_seconds();
    let _sweep = Sweep(seconds.clone());
    assert_eq!(run.run(&format!("setsid -f sleep {seconds}")).unwrap(), "");
    assert!(eventually_none(&seconds, Duration::from_secs(10)), "the daemon outlived the call: {:?}", tagged(&seconds));

    // On timeout: the daemon is started, then the command hangs.
    let seconds = unique_seconds();
    let _sweep = Sweep(seconds.clone());
    let slow = RunCommand::builder(dir.path()).timeout(Duration::from_secs(2)).build().unwrap();
    let command = format!("sh -c 'setsid -f sleep {seconds} >/dev/null 2>&1; sleep 300'");
    let error = slow.run(&command).unwrap_err();
    assert!(matches!(&error, CommandError::Failed(text) if text.contains("timed out")), "{error:?}");
    assert!(
        eventually_none(&seconds, Duration::from_secs(10)),
        "the daemon outlived the timeout: {:?}",
        tagged(&seconds)
    );
}

#[test]
#[cfg(target_os = "linux")] // util-linux's `setsid -f`
fn no_reader_is_left_blocked_on_a_pipe_a_stranger_holds() {
    // Without the descendant sweep a daemon keeps the output pipe open;
    // the call still returns, and its reader lets go of the pipe, so the
    // daemon's next write fails (SIGPIPE) instead of being read forever.
    let dir = tempfile::tempdir().unwrap();
    let run = RunCommand::builder(dir.path()).track_descendants(false).build().unwrap();
    let tag = unique_seconds();
    let _sweep = Sweep(tag.clone());
    let script = "sleep 2; while :; do echo tick; sleep 0.2; done";
    run.run(&format!("setsid -f sh -c '{script}' {tag}")).unwrap();
    assert!(
        eventually_none(&tag, Duration::from_secs(30)),
        "the daemon still writes into a read pipe: {:?}",
        tagged(&tag)
    );
}

/// Run by [`a_child_sees_no_api_key_unless_configured`] in a process of its
/// own, started with `OPENAI_API_KEY` set: setting it here would race with
/// every other test thread reading the environment.
#[test]
#[ignore = "run by a_child_sees_no_api_key_unless_configured"]
fn child_env_probe() {
    if std::env::var_os("GOLEM_ENV_PROBE").is_none() {
        return;
    }
    const KEY: &str = "sk-env-probe-4242";
    assert_eq!(std::env::var("OPENAI_API_KEY").as_deref(), Ok(KEY), "the probe runs with the key set");
    let dir = tempfile::tempdir().unwrap();
    let build = |builder: golem_io::tools::command::RunCommandBuilder| builder.build().unwrap();
    let default = build(RunCommand::builder(dir.path()));
    assert_eq!(default.run("printenv OPENAI_API_KEY").unwrap(), "[shell: exited with status 1]");
    assert!(!default.run("env").unwrap().contains(KEY), "no variable holds it");
    assert!(default.run("printenv PATH").unwrap().len() > 1, "PATH is passed");
    assert!(default.run("printenv HOME").unwrap().len() > 1, "HOME is passed");
    let passed = build(RunCommand::builder(dir.path()).pass_env("OPENAI_API_KEY"));
    assert_eq!(passed.run("printenv OPENAI_API_KEY").unwrap(), format!("{KEY}\n"));
    let inherited = build(RunCommand::builder(dir.path()).inherit_env(true));
    assert_eq!(inherited.run("printenv OPENAI_API_KEY").unwrap(), format!("{KEY}\n"));
    let set = build(RunCommand::builder(dir.path()).env("OPENAI_API_KEY", "configured"));
    assert_eq!(set.run("printenv OPENAI_API_KEY").unwrap(), "configured\n");
    let empty = build(RunCommand::builder(dir.path()).clear_env(true).pass_env("PATH"));
    assert_eq!(empty.run("printenv HOME").unwrap(), "[shell: exited with status 1]", "nothing but what is passed");
}

#[test]
fn a_child_sees_no_api_key_unless_configured() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["hardening_command::child_env_probe", "--exact", "--ignored", "--test-threads=1"])
        .env("OPENAI_API_KEY", "sk-env-probe-4242")
        .env("GOLEM_ENV_PROBE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the probe failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("1 passed"), "the probe ran: {stdout}");
}

//! `run_command` (SPEC SHELL): the argv-splitting table, shell features
//! refused by default, the process group killed whole, the output cap, exit
//! statuses, missing programs, the allowlist.
#![cfg(all(feature = "command", unix))]

use crate::tools_support;

use golem_io::tools::command::{split_command, CommandError, RunCommand, SplitError};
use golem_io::CancellationToken;
use std::path::Path;
use std::time::{Duration, Instant};

fn runner(dir: &Path) -> RunCommand {
    RunCommand::builder(dir).build().unwrap()
}

/// True once `pid` is gone or a zombie (dead, waiting for a reaper that
/// is not ours).
fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn wait_dead(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if dead(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn read_pid(path: &Path) -> u32 {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        assert!(Instant::now() < until, "no pid written to {}", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn argv_splitting_table() {
    let ok: &[(&str, &[&str])] = &[
        ("ls", &["ls"]),
        ("  ls   -la\tdir  ", &["ls", "-la", "dir"]),
        ("echo 'a b'  \"c d\"", &["echo", "a b", "c d"]),
        ("echo a\\ b", &["echo", "a b"]),
        ("echo 'it''s'", &["echo", "its"]),
        ("echo \"it's\"", &["echo", "it's"]),
        ("echo 'a|b;c&d>e<f*g?h[i]$j`k`~l#m'", &["echo", "a|b;c&d>e<f*g?h[i]$j`k`~l#m"]),
        ("echo \"a|b;c&d>e<f*g?h[i]~l#m\"", &["echo", "a|b;c&d>e<f*g?h[i]~l#m"]),
        ("echo \"\\\"q\\\" \\\\ \\$HOME \\`x\\`\"", &["echo", "\"q\" \\ $HOME `x`"]),
        ("echo \"\\n stays\"", &["echo", "\\n stays"]),
        ("echo \\| \\; \\& \\> \\* \\$x", &["echo", "|", ";", "&", ">", "*", "$x"]),
        ("echo '' \"\"", &["echo", "", ""]),
        ("echo a''b", &["echo", "ab"]),
        ("echo cost: $ 5", &["echo", "cost:", "$", "5"]),
        ("echo a~b x#y", &["echo", "a~b", "x#y"]),
        ("env FOO=bar printenv FOO", &["env", "FOO=bar", "printenv", "FOO"]),
        ("git commit -m \"fix: a\\\nb\"", &["git", "commit", "-m", "fix: ab"]),
        ("grep -e \"x{2}\" f", &["grep", "-e", "x{2}", "f"]),
        ("echo héllo 'wörld'", &["echo", "héllo", "wörld"]),
    ];
    for (command, argv) in ok {
        let want: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        assert_eq!(split_command(command), Ok(want), "{command}");
    }
    let refused: &[(&str, SplitError)] = &[
        ("", SplitError::Empty),
        ("   \t ", SplitError::Empty),
        ("echo 'open", SplitError::UnterminatedQuote('\'')),
        ("echo \"open", SplitError::UnterminatedQuote('"')),
        ("echo end\\", SplitError::TrailingBackslash),
        ("ls | wc -l", SplitError::ShellFeature("a pipe (|)")),
        ("make && make install", SplitError::ShellFeature("a background job or && list (&)")),
        ("sleep 5 &", SplitError::ShellFeature("a background job or && list (&)")),
        ("cd /; ls", SplitError::ShellFeature("a command list (; or a newline)")),
        ("ls\nrm x", SplitError::ShellFeature("a command list (; or a newline)")),
        ("echo hi > out.txt", SplitError::ShellFeature("a redirection (< or >)")),
        ("sort < in.txt", SplitError::ShellFeature("a redirection (< or >)")),
        ("(ls)", SplitError::ShellFeature("a subshell (parentheses)")),
        ("echo `id`", SplitError::ShellFeature("command substitution (`…`)")),
        ("echo \"`id`\"", SplitError::ShellFeature("command substitution (`…`)")),
        ("echo $(id)", SplitError::ShellFeature("command substitution ($(…))")),
        ("echo \"$(id)\"", SplitError::ShellFeature("command substitution ($(…))")),
        ("echo $HOME", SplitError::ShellFeature("a variable ($…)")),
        ("echo \"${HOME}\"", SplitError::ShellFeature("a variable ($…)")),
        ("echo $?", SplitError::ShellFeature("a variable ($…)")),
        ("echo $'\\n'", SplitError::ShellFeature("ANSI-C or locale quoting ($'…' or $\"…\")")),
        ("ls *.rs", SplitError::ShellFeature("a glob (*, ? or [)")),
        ("ls file?.txt", SplitError::ShellFeature("a glob (*, ? or [)")),
        ("ls [ab].txt", SplitError::ShellFeature("a glob (*, ? or [)")),
        ("ls ~/x", SplitError::ShellFeature("tilde expansion (~)")),
        ("ls # comment", SplitError::ShellFeature("a comment (#)")),
        ("FOO=1 env", SplitError::ShellFeature("a variable assignment (NAME=value)")),
    ];
    for (command, error) in refused {
        assert_eq!(split_command(command).as_ref(), Err(error), "{command:?}");
    }
}

#[test]
fn shell_features_are_refused_by_default_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let run = runner(dir.path());
    let error = run.run("echo hi > created.txt").unwrap_err();
    assert_eq!(
        error,
        CommandError::Failed(
            "shell features are off for this tool: a redirection (< or >) is not available. Run one program with its arguments; quote a special character to pass it literally.".into()
        )
    );
    assert!(!dir.path().join("created.txt").exists());
    assert!(run.run("touch made; ls").is_err());
    assert!(!dir.path().join("made").exists());
    // Quoted, the same characters are plain arguments.
    assert_eq!(run.run("echo 'a > b' \"$ x\"").unwrap(), "a > b $ x\n");
    let description = run.tool::<()>().spec().definition.description.clone();
    assert!(description.starts_with("Run one shell command and return its combined stdout and stderr. A non-zero exit status is reported at the end of the output, not as a failure. Shell features are off"));
}

#[test]
fn shell_mode_runs_sh_c() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunCommand::builder(dir.path()).shell(true).env("WHO", "world").build().unwrap();
    assert_eq!(run.run("echo \"hello $WHO\" | tr a-z A-Z; echo $((1 + 2))").unwrap(), "HELLO WORLD\n3\n");
    assert_eq!(
        run.tool::<()>().spec().definition.description,
        "Run one shell command and return its combined stdout and stderr. A non-zero exit status is reported at the end of the output, not as a failure."
    );
    assert!(RunCommand::builder(dir.path()).shell(true).allow_program("ls").build().is_err());
}

#[test]
fn output_keeps_write_order_and_reports_the_status() {
    let dir = tempfile::tempdir().unwrap();
    let run = runner(dir.path());
    let out = run.run("sh -c 'echo out1; echo err1 >&2; echo out2; exit 3'").unwrap();
    assert_eq!(out, "out1\nerr1\nout2\n\n\n[shell: exited with status 3]");
    assert_eq!(run.run("sh -c 'exit 7'").unwrap(), "[shell: exited with status 7]");
    assert_eq!(run.run("sh -c 'echo bye; kill -TERM $$'").unwrap(), "bye\n\n\n[shell: terminated by signal 15]");
    assert_eq!(run.run("echo fine").unwrap(), "fine\n");
    assert_eq!(run.run("cat").unwrap(), "", "stdin is null: cat sees end-of-file at once");
    let pwd = run.run("pwd").unwrap();
    assert_eq!(pwd.trim_end(), std::fs::canonicalize(dir.path()).unwrap().to_str().unwrap());
}

#[test]
fn output_past_the_cap_is_discarded_while_the_pipe_drains() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunCommand::builder(dir.path()).max_bytes(1000).build().unwrap();
    // 3 MB through a 64 KiB pipe: finishes only if the pipe keeps draining.
    let started = Instant::now();
    let out = run.run("sh -c 'yes | head -c 3000000; exit 4'").unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    let expected =
        format!("{}\n\n[shell: output truncated at 1000 bytes]\n\n[shell: exited with status 4]", "y\n".repeat(500));
    assert_eq!(out, expected);
}

#[test]
fn timeout_kills_the_whole_group_grandchildren_included() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunCommand::builder(dir.path()).timeout(Duration::from_millis(500)).build().unwrap();
    let started = Instant::now();
    let error = run.run("sh -c 'sleep 30 & echo $! > grandchild.pid; echo started; wait'").unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(error, CommandError::Failed("started\n\n\n[shell: timed out after 0.5 s; process group killed]".into()));
    assert!(elapsed < Duration::from_secs(5), "returned after {elapsed:?}, not after the grandchild's 30 s");
    let grandchild = read_pid(&dir.path().join("grandchild.pid"));
    assert!(wait_dead(grandchild), "the sleeping grandchild {grandchild} survived");
}

#[test]
fn a_grandchild_outliving_its_parent_is_killed_once_the_command_ends() {
    let dir = tempfile::tempdir().unwrap();
    let run = runner(dir.path());
    // The child exits at once; the grandchild keeps the pipe open. The call
    // returns after the 1 s grace, not the grandchild's 30 s, and takes the
    // grandchild with it.
    let started = Instant::now();
    let out = run.run("sh -c 'sleep 30 & echo $! > holder.pid; echo parent done'").unwrap();
    assert_eq!(out, "parent done\n");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(wait_dead(read_pid(&dir.path().join("holder.pid"))));
    // Detached from the pipe, a background process still dies with the group.
    let out = run.run("sh -c 'sleep 30 >/dev/null 2>&1 & echo $! > detached.pid'").unwrap();
    assert_eq!(out, "");
    assert!(wait_dead(read_pid(&dir.path().join("detached.pid"))));
}

#[test]
fn cancellation_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let run = runner(dir.path());
    let token = CancellationToken::new();
    let canceller = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let started = Instant::now();
    let error = run.run_with_cancellation("sh -c 'sleep 30 & echo $! > c.pid; wait'", &token).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(error, CommandError::Failed("[shell: canceled; process group killed]".into()));
    // ERR-01's spelling in the public name too (issue 11 item 13).
    assert_eq!(golem_io::tools::command::texts::CANCELED, "[shell: canceled; process group killed]");
    assert!(wait_dead(read_pid(&dir.path().join("c.pid"))));
}

#[test]
fn a_missing_program_is_a_clear_failed_result() {
    let dir = tempfile::tempdir().unwrap();
    let run = runner(dir.path());
    assert_eq!(
        run.run("definitely-not-a-program-xyz --flag").unwrap_err(),
        CommandError::Failed("cannot run \"definitely-not-a-program-xyz\": program not found".into())
    );
    std::fs::write(dir.path().join("not-executable"), "#!/bin/sh\necho hi\n").unwrap();
    let error = run.run("./not-executable").unwrap_err();
    assert!(
        matches!(&error, CommandError::Failed(t) if t.starts_with("cannot run \"./not-executable\": ")),
        "{error:?}"
    );
    let message = tools_support::through_agent(run.tool(), r#"{"command":"definitely-not-a-program-xyz"}"#);
    assert!(message.failed);
    assert_eq!(message.content, "cannot run \"definitely-not-a-program-xyz\": program not found");
}

#[test]
fn empty_and_malformed_commands_are_correctable() {
    let dir = tempfile::tempdir().unwrap();
    let run = runner(dir.path());
    assert_eq!(run.run("  ").unwrap_err(), CommandError::Rejected("command is required".into()));
    assert_eq!(
        run.run("echo 'x").unwrap_err(),
        CommandError::Rejected("the command has an unterminated ' quote".into())
    );
}

#[test]
fn the_allowlist_names_the_programs_that_may_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunCommand::builder(dir.path()).allow_program("echo").allow_program("true").build().unwrap();
    assert_eq!(run.run("echo allowed").unwrap(), "allowed\n");
    assert_eq!(
        run.run("ls").unwrap_err(),
        CommandError::Failed("program \"ls\" is not allowed; allowed programs: echo, true".into())
    );
    assert!(run.run("/bin/echo sneaky").is_err(), "the first word is compared as written");
}

#[test]
fn the_environment_is_minimal_with_overrides_or_cleared() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunCommand::builder(dir.path()).env("GOLEM_TOOL_TEST", "set").build().unwrap();
    assert_eq!(run.run("printenv GOLEM_TOOL_TEST").unwrap(), "set\n");
    assert!(run.run("printenv PATH").unwrap().len() > 1, "PATH is passed");
    let clean =
        RunCommand::builder(dir.path()).clear_env(true).track_descendants(false).env("ONLY", "this").build().unwrap();
    assert_eq!(clean.run("/usr/bin/env").unwrap(), "ONLY=this\n");
}

#[test]
fn the_tool_runs_through_an_agent() {
    let dir = tempfile::tempdir().unwrap();
    let run = runner(dir.path());
    let message = tools_support::through_agent(run.tool(), r#"{"command":"sh -c 'echo done; exit 2'"}"#);
    assert_eq!((message.content.as_str(), message.failed), ("done\n\n\n[shell: exited with status 2]", false));
    let message = tools_support::through_agent_async(run.tool(), r#"{"command":"echo async"}"#);
    assert_eq!(message.content, "async\n");
}

//! A parallel tool batch under Restate (SPEC DUR-04): its bodies run side
//! by side, each started once — across a SIGKILL of the service in the
//! middle of the batch too — and a sequential tool still stands alone.
//! Bodies note when they start and finish in files, outside the process
//! that runs them.

use crate::restate_support::service::{self, count, counted, hold, note, serve_if_child, wait_for, wall_ms, Service};
use crate::restate_support::Server;
use golem_io::restate::{DurableAgents, Ingress, RunRequest};
use golem_io::{Agent, Model, ModelError, Request, Response, Role, Tool, ToolCall, ToolContext};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Asks for one call of each tool in `calls` at once, then answers with
/// the results in call order: `done: <r1>; <r2>; …`.
struct Batch {
    dir: PathBuf,
    calls: &'static [&'static str],
}

impl Model for Batch {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        let results: Vec<&str> =
            request.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
        if results.is_empty() {
            count(&self.dir, "model-1");
            let calls = self.calls.iter().map(|name| ToolCall::new(format!("c-{name}"), *name, "{}")).collect();
            return Ok(Response::tool_calls(calls));
        }
        count(&self.dir, "model-2");
        Ok(Response::text(format!("done: {}", results.join("; "))))
    }
}

/// A tool that naps `ms` (or, with `hold-<name>`, until the process is
/// killed), noting the wall-clock times it started and finished.
fn nap(dir: &Path, name: &'static str, ms: u64) -> Tool<()> {
    let dir = dir.to_path_buf();
    Tool::new(name, "Nap.", json!({"type": "object"}), move |_: ToolContext<()>, _args| {
        note(&dir, &format!("started-{name}"), &wall_ms().to_string());
        hold(&dir, name);
        std::thread::sleep(Duration::from_millis(ms));
        note(&dir, &format!("finished-{name}"), &wall_ms().to_string());
        Ok(format!("{name} rested"))
    })
}

fn batch(dir: &Path, calls: &'static [&'static str], tools: Vec<Tool<()>>) -> Agent<()> {
    let model = Batch { dir: dir.to_path_buf(), calls };
    tools.into_iter().fold(Agent::builder(model), |b, t| b.tool(t)).parallel_tools(true).build().unwrap()
}

/// `naps`: four one-second naps. `mixed`: two quick naps and two that the
/// tests hold. `barrier`: two naps, a sequential one, two more.
fn agents(dir: &Path) -> DurableAgents {
    const NAPS: &[&str] = &["nap-a", "nap-b", "nap-c", "nap-d"];
    const MIXED: &[&str] = &["fast-a", "fast-b", "slow-c", "slow-d"];
    const BARRIER: &[&str] = &["one-a", "one-b", "alone", "two-a", "two-b"];
    let naps = batch(dir, NAPS, NAPS.iter().map(|n| nap(dir, n, 1000)).collect());
    let mixed = batch(
        dir,
        MIXED,
        vec![nap(dir, "fast-a", 100), nap(dir, "fast-b", 100), nap(dir, "slow-c", 1000), nap(dir, "slow-d", 1000)],
    );
    let barrier_tools =
        BARRIER.iter().map(|n| if *n == "alone" { nap(dir, n, 300).sequential() } else { nap(dir, n, 300) }).collect();
    let barrier = batch(dir, BARRIER, barrier_tools);
    DurableAgents::new().agent("naps", naps, ()).agent("mixed", mixed, ()).agent("barrier", barrier, ())
}

/// Not a test: the service the tests start, as a child process.
#[test]
fn service_child() {
    serve_if_child(agents);
}

fn setup(test: &str) -> Option<(tempfile::TempDir, Server, Service)> {
    service::setup(test, "restate_parallel::service_child")
}

/// The wall-clock time noted in `file` (its first line).
fn noted(dir: &Path, file: &str) -> u128 {
    let text = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    text.lines().next().and_then(|l| l.parse().ok()).unwrap_or_else(|| panic!("{file}: {text:?}"))
}

#[test]
fn dur04_a_parallel_batch_of_four_one_second_tools_takes_about_one_second() {
    let Some((_scratch, server, service)) = setup("restate_parallel (DUR-04 timing)") else { return };
    let dir = &service.dir;
    let ingress = Ingress::new(server.ingress_url());
    // The ingress's first request after a registration takes a while
    // (half a second here); that is not the batch's time.
    assert!(ingress.status("warm-up").unwrap().waiting.is_empty());
    let started = Instant::now();
    ingress.start("naps-1", &RunRequest::new("naps", "nap")).unwrap();
    let outcome = ingress.outcome("naps-1").unwrap();
    let took = started.elapsed();
    assert_eq!(
        outcome.output(),
        Some(&json!("done: nap-a rested; nap-b rested; nap-c rested; nap-d rested")),
        "{:?}",
        outcome.error
    );
    // One after another they would take four seconds; side by side about
    // one, plus the journal's round trips (generous for a loaded 2-core CI).
    assert!(took >= Duration::from_secs(1) && took < Duration::from_millis(2500), "the batch took {took:?}");
    for name in ["nap-a", "nap-b", "nap-c", "nap-d"] {
        assert_eq!((counted(dir, &format!("started-{name}")), counted(dir, &format!("finished-{name}"))), (1, 1));
    }
    assert_eq!((counted(dir, "model-1"), counted(dir, "model-2")), (1, 1));
    let log = golem_core::log::EventLog::parse(&outcome.logs[0]).unwrap();
    assert!(golem_core::log::replay(&log).unwrap().machine.is_done());
    eprintln!("restate parallel batch: 4 tools of 1 s each in {:.2} s", took.as_secs_f64());
}

#[test]
fn dur04_a_service_killed_during_a_parallel_batch_runs_each_tool_body_once() {
    let Some((_scratch, server, mut service)) = setup("restate_parallel (DUR-04 kill)") else { return };
    let dir = service.dir.clone();
    let ingress = Ingress::new(server.ingress_url());
    std::fs::write(dir.join("hold-slow-c"), b"").unwrap();
    std::fs::write(dir.join("hold-slow-d"), b"").unwrap();
    ingress.start("mixed-1", &RunRequest::new("mixed", "nap")).unwrap();
    // Killed with both slow bodies running and both quick answers in the
    // journal.
    wait_for(&dir, "held-slow-c");
    wait_for(&dir, "held-slow-d");
    server.wait_for_completed_steps("golem tool answer", 2);
    service.crash_and_restart();

    let outcome = ingress.outcome("mixed-1").unwrap();
    let output = outcome.output().and_then(|o| o.as_str()).unwrap_or_else(|| panic!("{:?}", outcome.error));
    // The quick answers were journaled: the replay feeds them. The slow
    // bodies died with the process: their outcome is unknown, and the
    // model hears so (the tools' default policy) — they are not run again.
    assert!(output.starts_with("done: fast-a rested; fast-b rested; "), "{output}");
    assert!(!output.contains("slow-c rested") && !output.contains("slow-d rested"), "{output}");
    for name in ["fast-a", "fast-b", "slow-c", "slow-d"] {
        assert_eq!(counted(&dir, &format!("started-{name}")), 1, "{name} started again");
    }
    assert_eq!((counted(&dir, "finished-fast-a"), counted(&dir, "finished-fast-b")), (1, 1));
    assert_eq!((counted(&dir, "finished-slow-c"), counted(&dir, "finished-slow-d")), (0, 0));
    assert_eq!((counted(&dir, "model-1"), counted(&dir, "model-2")), (1, 1));
    let log = golem_core::log::EventLog::parse(&outcome.logs[0]).unwrap();
    assert!(golem_core::log::replay(&log).unwrap().machine.is_done());
    assert!(outcome.logs[0].contains("\"recover\""), "{}", outcome.logs[0]);
}

#[test]
fn dur04_a_sequential_tool_is_a_barrier_in_a_durable_batch() {
    let Some((_scratch, server, service)) = setup("restate_parallel (DUR-04 barrier)") else { return };
    let dir = &service.dir;
    let ingress = Ingress::new(server.ingress_url());
    ingress.start("barrier-1", &RunRequest::new("barrier", "nap")).unwrap();
    let outcome = ingress.outcome("barrier-1").unwrap();
    assert_eq!(
        outcome.output(),
        Some(&json!("done: one-a rested; one-b rested; alone rested; two-a rested; two-b rested")),
        "{:?}",
        outcome.error
    );
    let start = |name: &str| noted(dir, &format!("started-{name}"));
    let end = |name: &str| noted(dir, &format!("finished-{name}"));
    // The groups: [one-a, one-b], [alone], [two-a, two-b]. Within a group
    // the bodies overlap; the sequential tool runs after the first group
    // ended and before the last began.
    assert!(start("one-b") < end("one-a") && start("one-a") < end("one-b"), "the first group ran one after another");
    assert!(start("two-b") < end("two-a") && start("two-a") < end("two-b"), "the last group ran one after another");
    assert!(start("alone") >= end("one-a").max(end("one-b")), "the sequential tool started before its group's barrier");
    assert!(
        start("two-a").min(start("two-b")) >= end("alone"),
        "the last group started before the sequential tool ended"
    );
}

//! Durable runs on a real Restate server (SPEC DUR-01, DUR-02): the service
//! (this test binary again, serving the agents below) is killed with
//! SIGKILL mid-tool and mid-model-call and started again; an approval
//! waits across a crash of both the service and the server; and 100 runs
//! go through Restate at once. Tool bodies and model calls are counted in
//! files, outside the process that makes them.

use crate::restate_support::service::{self, count, counted, hold, serve_if_child, wait_for, Service};
use crate::restate_support::Server;
use golem_core::Backoff;
use golem_io::restate::{DurableAgents, Ingress, IngressError, Resolution, RunRequest};
use golem_io::{
    Agent, Model, ModelError, Request, Response, RetryPolicy, Role, Tool, ToolCall, ToolContext, ToolError,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Answers by what the conversation holds: the first turn asks for the
/// `tool` call, the turn after a tool result ends with `done: <result>`.
/// Every call is counted (`model-<turn>`); with a `hold-model-<turn>`
/// marker the first such call blocks until the process is killed.
struct Counted {
    dir: PathBuf,
    tool: &'static str,
}

impl Model for Counted {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        let result = request.messages.iter().rev().find(|m| m.role == Role::Tool);
        let turn = if result.is_some() { 2 } else { 1 };
        count(&self.dir, &format!("model-{turn}"));
        hold(&self.dir, &format!("model-{turn}"));
        Ok(match result {
            Some(result) => Response::text(format!("done: {}", result.content)),
            None => Response::tool_calls(vec![ToolCall::new("call-1", self.tool, "{}")]),
        })
    }
}

/// Fails its first call ever (a retryable 503), then answers.
struct Flaky {
    dir: PathBuf,
}

impl Model for Flaky {
    fn generate(&self, _: &Request) -> Result<Response, ModelError> {
        count(&self.dir, "flaky");
        if counted(&self.dir, "flaky") == 1 {
            return Err(ModelError::api(503, "busy"));
        }
        Ok(Response::text("recovered"))
    }
}

/// The served agents: `charge` (a side effect), `refund` (needs approval)
/// and `echo` (for the throughput run).
fn agents(dir: &Path) -> DurableAgents {
    let charge = {
        let dir = dir.to_path_buf();
        Tool::new("charge", "Charge the card.", json!({"type": "object"}), move |_ctx: ToolContext<()>, _args| {
            count(&dir, "tool-charge");
            hold(&dir, "tool");
            Ok("charged")
        })
    };
    let refund = {
        let dir = dir.to_path_buf();
        Tool::new("refund", "Refund the order.", json!({"type": "object"}), move |ctx: ToolContext<()>, _args| {
            if !ctx.is_approved() {
                return Err(ToolError::approval("refunds need a human"));
            }
            count(&dir, "tool-refund");
            Ok("refunded")
        })
    };
    let echo = Tool::new("echo", "Echo.", json!({"type": "object"}), |_ctx: ToolContext<()>, _args| Ok("echoed"));
    let model = |tool| Counted { dir: dir.to_path_buf(), tool };
    // A retry two seconds after the failure: long enough to crash in.
    let retry = RetryPolicy::new().max_attempts(3).backoff(Backoff::Table { delays: vec![Duration::from_secs(2)] });
    let flaky = Agent::<()>::builder(Flaky { dir: dir.to_path_buf() }).retry_policy(retry).build().unwrap();
    // A tool that outlasts its timeout: the journaled step ends at the
    // deadline, and the run fails at the tool stage (the default policy).
    let nap = Tool::new("nap", "Nap.", json!({"type": "object"}), |_ctx: ToolContext<()>, _args| {
        std::thread::sleep(Duration::from_secs(3));
        Ok("rested")
    });
    let slow = Agent::builder(model("nap")).tool(nap).tool_timeout(Duration::from_millis(200)).build().unwrap();
    let lookup = Tool::new("lookup", "Stock level.", json!({"type": "object"}), |_ctx: ToolContext<()>, _args| {
        Err::<String, _>(ToolError::external("the warehouse answers"))
    });
    let stock = Agent::builder(model("lookup")).tool(lookup).build().unwrap();
    DurableAgents::new()
        .agent("stock", stock, ())
        .agent("slow", slow, ())
        .agent("flaky", flaky, ())
        .agent("charge", Agent::builder(model("charge")).tool(charge).build().unwrap(), ())
        .agent("refund", Agent::builder(model("refund")).tool(refund).build().unwrap(), ())
        .agent("echo", Agent::builder(model("echo")).tool(echo).build().unwrap(), ())
}

/// Not a test: the service the tests start, as a child process.
#[test]
fn service_child() {
    serve_if_child(agents);
}

/// A server and a registered service, or `None` when the test is skipped.
fn setup(test: &str) -> Option<(tempfile::TempDir, Server, Service)> {
    service::setup(test, "restate_durable::service_child")
}

#[test]
fn a_run_killed_mid_tool_and_between_model_calls_completes_with_each_body_run_once() {
    let Some((_scratch, server, mut service)) = setup("restate_durable (kill)") else { return };
    let dir = service.dir.clone();
    let ingress = Ingress::new(server.ingress_url());

    // Reference: the same run, never killed.
    ingress.start("reference", &RunRequest::new("charge", "charge it")).unwrap();
    let reference = ingress.outcome("reference").unwrap();
    assert_eq!(reference.output(), Some(&json!("done: charged")), "{:?}", reference.error);
    assert_eq!((counted(&dir, "model-1"), counted(&dir, "tool-charge"), counted(&dir, "model-2")), (1, 1, 1));

    // Killed between the model call that asked for the tool and the one
    // after it: inside the second call.
    std::fs::write(dir.join("hold-model-2"), b"").unwrap();
    ingress.start("mid-model", &RunRequest::new("charge", "charge it")).unwrap();
    wait_for(&dir, "held-model-2");
    service.crash_and_restart();
    let outcome = ingress.outcome("mid-model").unwrap();
    assert_eq!(outcome.output(), reference.output(), "{:?}", outcome.error);
    // The first call and the tool ran once; the second once per attempt.
    assert_eq!((counted(&dir, "model-1"), counted(&dir, "tool-charge"), counted(&dir, "model-2")), (2, 2, 3));

    // Killed between the tool's start and its finish: the body ran, its
    // end was never journaled. It is not run again; the model hears that
    // the call may not have completed (the tool's default UnknownOutcome).
    std::fs::write(dir.join("hold-tool"), b"").unwrap();
    ingress.start("mid-tool", &RunRequest::new("charge", "charge it")).unwrap();
    wait_for(&dir, "held-tool");
    service.crash_and_restart();
    let outcome = ingress.outcome("mid-tool").unwrap();
    let result = outcome.result.as_ref().unwrap_or_else(|| panic!("{:?}", outcome.error));
    assert_eq!((counted(&dir, "model-1"), counted(&dir, "tool-charge"), counted(&dir, "model-2")), (3, 3, 4));
    let output = result.output.as_str().unwrap();
    assert!(output.starts_with("done: ") && output != "done: charged", "{output}");
    // golem's own log of the run replays to the same outcome, the
    // recovery included.
    assert_eq!(outcome.logs.len(), 1);
    let log = golem_core::log::EventLog::parse(&outcome.logs[0]).unwrap();
    let replayed = golem_core::log::replay(&log).unwrap();
    assert!(replayed.machine.is_done());
    assert!(outcome.logs[0].contains("\"recover\""), "{}", outcome.logs[0]);
}

#[test]
fn a_retry_wait_is_a_durable_sleep_that_a_crash_does_not_undo() {
    let Some((_scratch, server, mut service)) = setup("restate_durable (retry)") else { return };
    let dir = service.dir.clone();
    let ingress = Ingress::new(server.ingress_url());
    ingress.start("flaky-1", &RunRequest::new("flaky", "hello")).unwrap();
    // The first call failed and its failure is journaled; the run sleeps
    // before its retry (a sleep entry in Restate's journal). Crash there.
    server.wait_for_journal_entry("Sleep");
    assert_eq!(counted(&dir, "flaky"), 1);
    service.crash_and_restart();
    let outcome = ingress.outcome("flaky-1").unwrap();
    assert_eq!(outcome.output(), Some(&json!("recovered")), "{:?}", outcome.error);
    // The failed call is journaled: not made again after the crash.
    assert_eq!(counted(&dir, "flaky"), 2);
    // golem's log holds the failed attempt the retry followed.
    assert!(outcome.logs[0].contains("busy"), "{}", outcome.logs[0]);
}

#[test]
fn a_tool_past_its_timeout_fails_the_run_with_its_evidence() {
    let Some((_scratch, server, service)) = setup("restate_durable (timeout)") else { return };
    let ingress = Ingress::new(server.ingress_url());
    ingress.start("slow-1", &RunRequest::new("slow", "nap")).unwrap();
    let outcome = ingress.outcome("slow-1").unwrap();
    let error = outcome.error.as_ref().unwrap_or_else(|| panic!("completed: {:?}", outcome.output()));
    assert_eq!(error.stage, golem_io::Stage::Tool, "{error}");
    assert!(outcome.result.is_none());
    assert_eq!(counted(&service.dir, "model-1"), 1);
    assert_eq!(counted(&service.dir, "model-2"), 0);
    let log = golem_core::log::EventLog::parse(&outcome.logs[0]).unwrap();
    assert!(golem_core::log::replay(&log).unwrap().machine.is_done());

    // A run of an agent nobody serves ends at once, with a terminal error
    // that names the agents served.
    ingress.start("ghost-1", &RunRequest::new("ghost", "boo")).unwrap();
    let error = ingress.outcome("ghost-1").unwrap_err();
    let IngressError::Status { message, .. } = &error else { panic!("{error}") };
    assert!(message.contains("no agent named \"ghost\"") && message.contains("charge"), "{message}");
}

#[test]
fn an_approval_waits_across_a_crash_of_the_service_and_the_server() {
    let Some((_scratch, mut server, mut service)) = setup("restate_durable (approval)") else { return };
    let dir = service.dir.clone();
    let ingress = Ingress::new(server.ingress_url());
    ingress.start("refund-1", &RunRequest::new("refund", "refund order 1")).unwrap();
    let status = ingress.wait_until_waiting("refund-1", Duration::from_secs(60)).unwrap();
    assert_eq!(status.waiting.len(), 1);
    let call_id = status.waiting[0].call.call_id.clone();
    assert_eq!(status.waiting[0].call.tool, "refund");

    // Resolutions fail closed: an unknown call, the wrong kind.
    let unknown = ingress.resolve("refund-1", &Resolution::approve("no-such-call")).unwrap_err();
    assert!(matches!(unknown, IngressError::Status { status: 404, .. }), "{unknown}");
    let wrong = ingress.resolve("refund-1", &Resolution::result(&call_id, "42")).unwrap_err();
    assert!(matches!(wrong, IngressError::Status { status: 400, .. }), "{wrong}");

    service.kill();
    server.crash_and_restart();
    service.crash_and_restart();
    let again = Ingress::new(server.ingress_url());
    assert_eq!(again.status("refund-1").unwrap().waiting[0].call.call_id, call_id);
    assert_eq!(counted(&dir, "tool-refund"), 0);

    again.resolve("refund-1", &Resolution::approve(&call_id)).unwrap();
    let outcome = again.outcome("refund-1").unwrap();
    assert_eq!(outcome.output(), Some(&json!("done: refunded")), "{:?}", outcome.error);
    assert_eq!(counted(&dir, "tool-refund"), 1);
    assert_eq!(counted(&dir, "model-1"), 1, "the first model call was journaled before the pause");
    // One log for the run up to its pause, one for the resume.
    assert_eq!(outcome.logs.len(), 2);
    assert!(again.status("refund-1").unwrap().waiting.is_empty());
}

#[test]
fn external_results_and_denials_resolve_by_call_id() {
    let Some((_scratch, server, service)) = setup("restate_durable (external, deny)") else { return };
    let ingress = Ingress::new(server.ingress_url());

    ingress.start("stock-1", &RunRequest::new("stock", "how many?")).unwrap();
    let status = ingress.wait_until_waiting("stock-1", Duration::from_secs(60)).unwrap();
    let waiting = &status.waiting[0];
    assert_eq!((waiting.kind, waiting.call.reason.as_str()), (golem_io::DeferKind::External, "the warehouse answers"));
    let wrong = ingress.resolve("stock-1", &Resolution::approve(&waiting.call.call_id)).unwrap_err();
    assert!(matches!(wrong, IngressError::Status { status: 400, .. }), "{wrong}");
    ingress.resolve("stock-1", &Resolution::result(&waiting.call.call_id, "42 in stock")).unwrap();
    assert_eq!(ingress.outcome("stock-1").unwrap().output(), Some(&json!("done: 42 in stock")));

    ingress.start("refund-2", &RunRequest::new("refund", "refund order 2")).unwrap();
    let status = ingress.wait_until_waiting("refund-2", Duration::from_secs(60)).unwrap();
    ingress.resolve("refund-2", &Resolution::deny(&status.waiting[0].call.call_id, "over the limit")).unwrap();
    let outcome = ingress.outcome("refund-2").unwrap();
    let output = outcome.output().and_then(|o| o.as_str()).unwrap_or_default().to_string();
    assert!(output.starts_with("done: ") && output.contains("over the limit"), "{output}");
    assert_eq!(counted(&service.dir, "tool-refund"), 0, "a denied call never runs");
}

#[test]
fn a_hundred_concurrent_runs_complete() {
    let Some((_scratch, server, service)) = setup("restate_durable (throughput)") else { return };
    const RUNS: usize = 100;
    let ingress = Ingress::new(server.ingress_url());
    let started = Instant::now();
    for i in 0..RUNS {
        ingress.start(&format!("echo-{i}"), &RunRequest::new("echo", "echo")).unwrap();
    }
    let outcomes: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RUNS)
            .map(|i| {
                let ingress = ingress.clone();
                scope.spawn(move || ingress.outcome(&format!("echo-{i}")).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let durable = started.elapsed();
    for outcome in &outcomes {
        assert_eq!(outcome.output(), Some(&json!("done: echoed")), "{:?}", outcome.error);
    }
    assert_eq!(counted(&service.dir, "model-1"), RUNS);
    assert_eq!(counted(&service.dir, "model-2"), RUNS);

    // The same runs on the in-process async driver, for the overhead.
    let local_dir = tempfile::tempdir().unwrap();
    let model = Counted { dir: local_dir.path().to_path_buf(), tool: "echo" };
    let echo = Tool::new("echo", "Echo.", json!({"type": "object"}), |_ctx: ToolContext<()>, _args| Ok("echoed"));
    let agent = Agent::builder(model).tool(echo).build().unwrap();
    let started = Instant::now();
    let results = smol::block_on(futures::future::join_all((0..RUNS).map(|_| agent.run_async((), "echo"))));
    let local = started.elapsed();
    assert!(results.iter().all(|r| r.as_ref().is_ok_and(|r| r.output == "done: echoed")));
    let per_run = durable.saturating_sub(local).as_secs_f64() * 1000.0 / RUNS as f64;
    eprintln!(
        "restate throughput: {RUNS} concurrent runs in {:.2} s ({:.1} runs/s); in-process async driver {:.3} s \
         ({:.0} runs/s); overhead {per_run:.1} ms per run",
        durable.as_secs_f64(),
        RUNS as f64 / durable.as_secs_f64(),
        local.as_secs_f64(),
        RUNS as f64 / local.as_secs_f64(),
    );
}

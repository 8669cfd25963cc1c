//! A delegated sub-run runs on its parent's driver kind and inherits its
//! cancellation (SPEC DELEG-04): under the async driver its future is polled
//! inside the parent's run — on the thread polling the parent, with the
//! sub-agent's models and tools on their async faces — and under the
//! blocking driver it blocks on its own blocking driver.

use golem_core::model::{AsyncModel, BoxFuture, ModelError, Request, Response};
use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{Model, Role, RunError, Stage, ToolCall};
use golem_io::{Agent, CancellationToken, Tool, ToolContext, ToolError};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

/// Delegates once to `helper`, then repeats the tool result it got.
fn planner() -> FnModel {
    FnModel::new(|request| match request.messages.iter().rev().find(|m| m.role == Role::Tool) {
        Some(result) => Ok(Response::text(format!("got: {}", result.content))),
        None => Ok(Response::tool_calls(vec![ToolCall::new("d1", "helper", r#"{"prompt":"dig"}"#)])),
    })
}

/// A model with both faces that records which face served each call, and
/// on which thread.
#[derive(Clone, Default)]
struct TwoFaced {
    calls: Arc<Mutex<Vec<(&'static str, ThreadId)>>>,
}

impl TwoFaced {
    fn record(&self, face: &'static str) -> Result<Response, ModelError> {
        self.calls.lock().unwrap().push((face, thread::current().id()));
        Ok(Response::text("found it"))
    }

    fn calls(&self) -> Vec<(&'static str, ThreadId)> {
        self.calls.lock().unwrap().clone()
    }
}

impl Model for TwoFaced {
    fn generate(&self, _: &Request) -> Result<Response, ModelError> {
        self.record("blocking")
    }

    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

impl AsyncModel for TwoFaced {
    fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move {
            // Answer only after a wake, as real I/O would.
            futures_lite::future::yield_now().await;
            self.record("async")
        })
    }

    fn as_blocking(&self) -> Option<&dyn Model> {
        Some(self)
    }
}

#[test]
fn under_the_async_driver_the_sub_run_is_polled_inside_the_parents_run() {
    let model = TwoFaced::default();
    let specialist = Agent::<()>::builder_async(model.clone()).build().unwrap();
    let tool = specialist.as_tool("helper", "");
    assert!(tool.is_async(), "the delegation tool has an async face");
    let parent = Agent::builder(planner()).tool(tool).build().unwrap();

    let result = futures_lite::future::block_on(parent.run_async((), "go")).unwrap();

    assert_eq!(result.output, "got: found it");
    // A sub-run on the blocking driver would have used the blocking face on
    // a pool thread; this one was awaited by the thread polling the parent.
    assert_eq!(model.calls(), [("async", thread::current().id())]);
}

#[test]
fn under_the_blocking_driver_the_sub_run_stays_blocking() {
    let model = TwoFaced::default();
    let specialist = Agent::<()>::builder_async(model.clone()).build().unwrap();
    let parent = Agent::builder(planner()).tool(specialist.as_tool("helper", "")).build().unwrap();

    let result = parent.run((), "go").unwrap();

    assert_eq!(result.output, "got: found it");
    let faces: Vec<&str> = model.calls().iter().map(|(face, _)| *face).collect();
    assert_eq!(faces, ["blocking"], "the sub-run used its model's blocking face, no block_on of the async one");
}

#[test]
fn a_failed_sub_run_reads_the_same_under_the_async_driver() {
    let locked = Tool::new("archive", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        Err::<String, _>(ToolError::fatal("the archive is locked"))
    });
    let specialist = Agent::builder(ScriptedModel::new().tool_call("archive", "{}")).tool(locked).build().unwrap();
    let parent = Agent::builder(planner()).tool(specialist.as_tool("helper", "")).build().unwrap();

    let err = futures_lite::future::block_on(parent.run_async((), "go")).unwrap_err().into_run().unwrap();

    assert_eq!(err.stage, Stage::Tool);
    let inner = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<RunError>()).expect("inner RunError");
    assert_eq!(inner.stage, Stage::Tool);
    assert_eq!(
        err.to_string(),
        "tool stage: tool helper failed: tool stage: tool archive failed: the archive is locked"
    );
}

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// An async-only model that never answers: it tells when its call started
/// and when the call was dropped.
struct Silent {
    started: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

impl AsyncModel for Silent {
    fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        let guard = DropFlag(Arc::clone(&self.dropped));
        Box::pin(async move {
            let _guard = guard;
            self.started.store(true, Ordering::SeqCst);
            std::future::pending().await
        })
    }
}

fn wait_for(flag: &AtomicBool) -> bool {
    let give_up = Instant::now() + Duration::from_secs(5);
    while !flag.load(Ordering::SeqCst) && Instant::now() < give_up {
        thread::sleep(Duration::from_millis(2));
    }
    flag.load(Ordering::SeqCst)
}

/// Cancels `token` once `started` is set.
fn cancel_when(started: &Arc<AtomicBool>, token: &CancellationToken) -> thread::JoinHandle<()> {
    let (started, token) = (Arc::clone(started), token.clone());
    thread::spawn(move || {
        assert!(wait_for(&started), "the sub-run's work started");
        token.cancel();
    })
}

#[test]
fn cancelling_the_async_parent_drops_the_sub_runs_work_at_once() {
    let (started, dropped) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let silent = Silent { started: Arc::clone(&started), dropped: Arc::clone(&dropped) };
    let specialist = Agent::<()>::builder_async(silent).build().unwrap();
    let parent = Agent::builder(planner()).tool(specialist.as_tool("helper", "")).build().unwrap();
    let token = CancellationToken::new();
    let canceller = cancel_when(&started, &token);

    let run = parent.run_with(()).cancellation(token).prompt("go").call_async();
    let err = futures_lite::future::block_on(run).unwrap_err();

    canceller.join().unwrap();
    assert!(err.is_canceled(), "{err}");
    // The sub-run lived inside the parent's tool future, so it went with it.
    assert!(dropped.load(Ordering::SeqCst), "the sub-run's model call was dropped before the parent returned");
}

#[test]
fn cancelling_the_blocking_parent_reaches_the_sub_runs_tools() {
    let (started, stopped) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let (s, t) = (Arc::clone(&started), Arc::clone(&stopped));
    let patient = Tool::new("patient", "", json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
        s.store(true, Ordering::SeqCst);
        let give_up = Instant::now() + Duration::from_secs(5);
        while !ctx.is_canceled() && Instant::now() < give_up {
            thread::sleep(Duration::from_millis(2));
        }
        t.store(ctx.is_canceled(), Ordering::SeqCst);
        Ok("done")
    });
    let specialist =
        Agent::builder(ScriptedModel::new().tool_call("patient", "{}").text("x")).tool(patient).build().unwrap();
    let parent = Agent::builder(planner()).tool(specialist.as_tool("helper", "")).build().unwrap();
    let token = CancellationToken::new();
    let canceller = cancel_when(&started, &token);

    let err = parent.run_with(()).cancellation(token).prompt("go").call().unwrap_err();

    canceller.join().unwrap();
    assert!(err.is_canceled(), "{err}");
    assert!(wait_for(&stopped), "the sub-run's tool saw the parent's cancellation");
}

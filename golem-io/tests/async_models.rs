//! Models in both drivers (SPEC MODEL-01, DRV-04): an async-only model runs
//! under the blocking driver, a blocking-only model under the async driver,
//! a model with both faces natively in each, and a fallback chain mixes
//! them.

use golem_core::model::{AsyncModel, AsyncStreamingModel, BoxFuture, DeltaSink, ModelError, Request, Response};
use golem_core::testing::stream_response;
use golem_core::{EventKind, Model};
use golem_io::Agent;
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

/// An async-only model: answers after an async-io timer, streams through the
/// core fake's delta split.
struct Sleepy {
    answer: &'static str,
}

impl AsyncStreamingModel for Sleepy {
    fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move {
            async_io::Timer::after(Duration::from_millis(5)).await;
            Ok(Response::text(self.answer))
        })
    }

    fn stream_async<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn DeltaSink,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move { stream_response(AsyncStreamingModel::generate_async(self, request).await?, 3, sink) })
    }
}

/// A blocking-only model that records the thread it ran on.
struct Recording {
    threads: Arc<Mutex<Vec<ThreadId>>>,
    result: Result<&'static str, ModelError>,
}

impl Model for Recording {
    fn generate(&self, _: &Request) -> Result<Response, ModelError> {
        self.threads.lock().unwrap().push(thread::current().id());
        self.result.clone().map(Response::text)
    }
}

/// An async-only model that always fails retryably.
struct Flaky;

impl AsyncModel for Flaky {
    fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async { Err(ModelError::api(503, "overloaded")) })
    }
}

/// Both faces, each answering with its own name, so a test sees which ran.
struct TwoFaced;

impl Model for TwoFaced {
    fn generate(&self, _: &Request) -> Result<Response, ModelError> {
        Ok(Response::text("blocking face"))
    }
    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

impl AsyncModel for TwoFaced {
    fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async { Ok(Response::text("async face")) })
    }
    fn as_blocking(&self) -> Option<&dyn Model> {
        Some(self)
    }
}

#[test]
fn an_async_only_model_runs_under_the_blocking_driver() {
    let agent = Agent::<()>::builder_async(Sleepy { answer: "from async" }).build().unwrap();
    assert_eq!(agent.run((), "hi").unwrap().output, "from async");
}

#[test]
fn an_async_only_model_streams_under_the_blocking_driver() {
    let agent = Agent::<()>::builder_async(Sleepy { answer: "streamed reply" }).build().unwrap();
    let mut pieces = Vec::new();
    let result = agent
        .run_stream((), "hi", |d| {
            if let Some(text) = d.text() {
                pieces.push(text.to_string());
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(pieces, ["str", "eam", "ed ", "rep", "ly"]);
    assert_eq!(result.output, "streamed reply");
}

#[test]
fn a_blocking_only_model_runs_on_the_pool_under_the_async_driver() {
    let threads = Arc::new(Mutex::new(Vec::new()));
    let model = Recording { threads: Arc::clone(&threads), result: Ok("from the pool") };
    let agent = Agent::<()>::builder(model).build().unwrap();

    let result = futures_lite::future::block_on(agent.run_async((), "hi")).unwrap();

    assert_eq!(result.output, "from the pool");
    let ran_on = threads.lock().unwrap().clone();
    assert_eq!(ran_on.len(), 1);
    assert_ne!(ran_on[0], thread::current().id(), "the executor's thread never blocks on the model");
}

#[test]
fn a_model_with_both_faces_runs_natively_in_each_driver() {
    let blocking_first = Agent::<()>::builder(TwoFaced).build().unwrap();
    let async_first = Agent::<()>::builder_async(TwoFaced).build().unwrap();
    for agent in [blocking_first, async_first] {
        assert_eq!(agent.run((), "hi").unwrap().output, "blocking face");
        let result = smol::block_on(agent.run_async((), "hi")).unwrap();
        assert_eq!(result.output, "async face");
    }
}

/// Member indices of the model-end events, and whether each failed.
fn members(events: &Mutex<Vec<EventKind>>) -> Vec<(u32, bool)> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            EventKind::ModelEnd { member, error, .. } => Some((*member, error.is_some())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_fallback_chain_mixes_async_and_blocking_members_in_both_drivers() {
    let threads = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let busy = Recording { threads: Arc::clone(&threads), result: Err(ModelError::api(429, "busy")) };
    let agent = Agent::<()>::builder_async(Flaky)
        .fallback(busy)
        .fallback_async(Sleepy { answer: "third time lucky" })
        .observer(move |e| sink.lock().unwrap().push(e.kind.clone()))
        .build()
        .unwrap();

    // Pinned ids: the results compare byte for byte (SPEC EXTRA-01).
    let run = || agent.run_with(()).prompt("hi").run_id("r-1").conversation_id("c-1");
    let blocking = run().call().unwrap();
    let asynchronous = smol::block_on(run().call_async()).unwrap();

    assert_eq!(blocking.output, "third time lucky");
    assert_eq!(serde_json::to_string(&blocking).unwrap(), serde_json::to_string(&asynchronous).unwrap());
    let one_run = [(0, true), (1, true), (2, false)];
    assert_eq!(members(&events), [one_run, one_run].concat());
    assert_eq!(threads.lock().unwrap().len(), 2, "the blocking member ran once per driver");
}

#[test]
fn a_chain_streams_only_if_every_member_can() {
    let threads = Arc::new(Mutex::new(Vec::new()));
    let plain = Recording { threads, result: Ok("x") };
    let agent = Agent::<()>::builder_async(Sleepy { answer: "a" }).fallback(plain).build().unwrap();
    let err = smol::block_on(agent.run_with(()).prompt("hi").on_delta(|_| Ok(())).call_async()).unwrap_err();
    assert_eq!(err.as_setup(), Some(&golem_core::machine::SetupError::StreamingUnsupported));
}

/// Calls a tool at once, then answers after 300 ms.
struct SlowSecondAnswer {
    calls: std::sync::atomic::AtomicUsize,
}

impl AsyncStreamingModel for SlowSecondAnswer {
    fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move {
            if self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                return Ok(Response::tool_calls(vec![golem_core::ToolCall::new("c1", "quick", "{}")]));
            }
            async_io::Timer::after(Duration::from_millis(300)).await;
            Ok(Response::text("answered"))
        })
    }

    fn stream_async<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn DeltaSink,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move { stream_response(AsyncStreamingModel::generate_async(self, request).await?, 3, sink) })
    }
}

/// The async driver keeps one deadline timer per run (issue 37): armed for
/// a tool's 100 ms timeout, it fires early in the slow model call after it,
/// which is a no-op for the run; the call is then answered, not timed out.
#[test]
fn a_deadline_timer_kept_from_a_tool_fires_early_without_harm() {
    let quick = golem_io::Tool::new_async(
        "quick",
        "",
        serde_json::json!({"type": "object"}),
        |_: golem_io::ToolContext<()>, _| async { Ok("done") },
    )
    .timeout(Duration::from_millis(100));
    let model = SlowSecondAnswer { calls: Default::default() };
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let agent = Agent::<()>::builder_async(model)
        .tool(quick)
        .observer(move |e: &golem_core::RunEvent| seen.lock().unwrap().push(e.kind.clone()))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let result = async_io::block_on(agent.run_async((), "go")).unwrap();
    assert_eq!(result.output, "answered");
    assert!(started.elapsed() >= Duration::from_millis(300));
    let events = events.lock().unwrap();
    assert_eq!(events.iter().filter(|k| matches!(k, EventKind::ModelStart { .. })).count(), 2, "no retry");
    assert!(!events.iter().any(|k| matches!(k, EventKind::Retrying { .. })));
}

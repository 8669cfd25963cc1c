//! Cancellation as an input on both drivers (SPEC MACH-07, DRV-05, ERR-04,
//! ERR-05): a token ends the run with partial evidence that resumes cleanly
//! through run-with-history; dropping the async run cancels at once.

use golem_core::model::{AsyncModel, BoxFuture, ModelError, Request, Response};
use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{texts, Message, Role, Stage, ToolCall};
use golem_io::{Agent, CancellationToken, Error, RunResult, Tool, ToolContext};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// An async model that never answers; `dropped` tells when its call was
/// dropped.
struct Silent {
    dropped: Arc<AtomicBool>,
}

impl AsyncModel for Silent {
    fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        let guard = DropFlag(Arc::clone(&self.dropped));
        Box::pin(async move {
            let _guard = guard;
            std::future::pending().await
        })
    }
}

fn wait_for(flag: &AtomicBool) -> bool {
    let give_up = Instant::now() + Duration::from_secs(2);
    while !flag.load(Ordering::SeqCst) && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(5));
    }
    flag.load(Ordering::SeqCst)
}

#[test]
fn dropping_the_run_future_drops_the_model_call_at_once() {
    let dropped = Arc::new(AtomicBool::new(false));
    let agent = Agent::<()>::builder_async(Silent { dropped: Arc::clone(&dropped) }).build().unwrap();
    let mut run = Box::pin(agent.run_async((), "hello?"));

    let first = futures_lite::future::block_on(futures_lite::future::poll_once(&mut run));
    assert!(first.is_none(), "the model never answers");
    assert!(!dropped.load(Ordering::SeqCst));
    drop(run);

    assert!(dropped.load(Ordering::SeqCst), "dropping the run dropped its model call");
}

#[test]
fn dropping_the_run_future_tells_a_blocking_tool_on_the_pool_to_stop() {
    let started = Arc::new(AtomicBool::new(false));
    let stopped = Arc::new(AtomicBool::new(false));
    let (s, t) = (Arc::clone(&started), Arc::clone(&stopped));
    let patient = Tool::new("patient", "", json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
        s.store(true, Ordering::SeqCst);
        let give_up = Instant::now() + Duration::from_secs(2);
        while !ctx.is_canceled() && Instant::now() < give_up {
            std::thread::sleep(Duration::from_millis(2));
        }
        t.store(ctx.is_canceled(), Ordering::SeqCst);
        Ok("done")
    });
    let agent =
        Agent::builder(ScriptedModel::new().tool_call("patient", "{}").text("x")).tool(patient).build().unwrap();
    let mut run = Box::pin(agent.run_async((), "go"));

    // Poll until the tool runs on the pool, then walk away from the run.
    let give_up = Instant::now() + Duration::from_secs(2);
    while !started.load(Ordering::SeqCst) && Instant::now() < give_up {
        assert!(futures_lite::future::block_on(futures_lite::future::poll_once(&mut run)).is_none());
        std::thread::sleep(Duration::from_millis(2));
    }
    drop(run);

    assert!(wait_for(&stopped), "the abandoned tool saw its cancellation");
}

/// Calls `fast` and `slow` together; answers once it sees their results.
fn planner() -> FnModel {
    FnModel::new(|request: &Request| {
        if request.messages.iter().any(|m| m.role == Role::Tool) {
            let last_user = request.messages.iter().rev().find(|m| m.role == Role::User);
            return Ok(Response::text(format!("resumed after: {}", last_user.map_or("", |m| m.content.as_str()))));
        }
        Ok(Response::tool_calls(vec![ToolCall::new("f", "fast", "{}"), ToolCall::new("s", "slow", "{}")]))
    })
}

fn cancellable_agent(token: CancellationToken) -> Agent<()> {
    let fast = Tool::new_async("fast", "", json!({"type": "object"}), |_: ToolContext<()>, _| async { Ok("quick") });
    // The slow tool pulls the plug on its own run, mid-batch.
    let slow = Tool::new_async("slow", "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
        let token = token.clone();
        async move {
            async_io::Timer::after(Duration::from_millis(20)).await;
            token.cancel();
            std::future::pending::<Result<String, golem_io::ToolError>>().await
        }
    });
    Agent::builder(planner()).tools([fast, slow]).parallel_tools(true).build().unwrap()
}

fn run_both(run: impl Fn(bool) -> Result<RunResult<String>, Error>) -> [Result<RunResult<String>, Error>; 2] {
    [run(false), run(true)]
}

#[test]
fn a_canceled_run_keeps_partial_evidence_that_resumes_with_history() {
    let outcomes = run_both(|use_async| {
        let token = CancellationToken::new();
        let agent = cancellable_agent(token.clone());
        // Pinned ids: the drivers' evidence compares whole (SPEC EXTRA-01).
        let run = agent.run_with(()).prompt("do both").cancellation(token).run_id("r-1").conversation_id("c-1");
        if use_async {
            smol::block_on(run.call_async())
        } else {
            run.call()
        }
    });
    let [blocking, asynchronous] = outcomes;
    let (blocking, asynchronous) = (blocking.unwrap_err(), asynchronous.unwrap_err());
    assert_eq!(blocking, asynchronous, "both drivers keep the same evidence");

    assert!(asynchronous.is_canceled());
    assert_eq!(asynchronous.stage(), Some(Stage::Tool));
    let partial = asynchronous.as_run().unwrap().partial.clone().expect("the run completed a turn");
    // The finished result is kept; the unfinished call gets the interrupted
    // result, so the history is valid without repair (SPEC ERR-05).
    let tools: Vec<(&str, &str)> = partial
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(tools, [("f", "quick"), ("s", texts::INTERRUPTED_RESULT)]);

    let agent = cancellable_agent(CancellationToken::new());
    let resumed = smol::block_on(agent.run_with_history_async((), partial.messages.clone(), "carry on")).unwrap();
    assert_eq!(resumed.output, "resumed after: carry on");
    assert_eq!(resumed.conversation_id(), "c-1", "the history's conversation goes on");
    let again =
        agent.run_with(()).history(partial.messages).prompt("carry on").run_id(resumed.run_id()).call().unwrap();
    assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&resumed).unwrap());
}

#[test]
fn a_history_cut_mid_batch_is_repaired_before_resuming() {
    // Evidence cut right after the requesting turn: the calls are dangling.
    let history = vec![
        Message::user("do both"),
        Message::assistant_calls(vec![ToolCall::new("f", "fast", "{}"), ToolCall::new("s", "slow", "{}")]),
    ];
    let agent = cancellable_agent(CancellationToken::new());
    let resumed = smol::block_on(agent.run_with_history_async((), history, "carry on")).unwrap();
    assert_eq!(resumed.output, "resumed after: carry on");
    let closed: Vec<&str> =
        resumed.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
    assert_eq!(closed, [texts::INTERRUPTED_RESULT, texts::INTERRUPTED_RESULT]);
}

#[test]
fn cancelling_stops_an_async_run_waiting_on_its_model() {
    let dropped = Arc::new(AtomicBool::new(false));
    let agent = Agent::<()>::builder_async(Silent { dropped: Arc::clone(&dropped) }).build().unwrap();
    let token = CancellationToken::new();
    let canceller = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        canceller.cancel();
    });

    let started = Instant::now();
    let err =
        futures::executor::block_on(agent.run_with(()).prompt("hi").cancellation(token).call_async()).unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    assert!(err.is_canceled(), "{err:?}");
    assert_eq!(err.stage(), Some(Stage::Model));
    assert!(dropped.load(Ordering::SeqCst), "the model call was dropped");
}

#[test]
fn an_async_model_under_the_blocking_driver_is_dropped_on_cancel() {
    let dropped = Arc::new(AtomicBool::new(false));
    let agent =
        Agent::<()>::builder_async(Silent { dropped: Arc::clone(&dropped) }).model_deadline(None).build().unwrap();
    let token = CancellationToken::new();
    let canceller = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        canceller.cancel();
    });

    let err = agent.run_with(()).prompt("hi").cancellation(token).call().unwrap_err();

    assert!(err.is_canceled(), "{err:?}");
    assert!(wait_for(&dropped), "the block_on call was dropped");
}

#[test]
fn a_token_canceled_before_an_async_run_stops_it_before_any_request() {
    let model = ScriptedModel::new().text("never");
    let agent = Agent::<()>::builder(model.clone()).build().unwrap();
    let token = CancellationToken::new();
    token.cancel();
    let err = smol::block_on(agent.run_with(()).prompt("hi").cancellation(token).call_async()).unwrap_err();
    assert!(err.is_canceled());
    assert_eq!(model.request_count(), 0);
}

//! The async driver under every executor it promises (SPEC DRV-03): the same
//! tool run gives byte-identical JSON to the blocking driver's, and the
//! machine's deadlines fire (async-io's timers) wherever the run is polled.

use golem_core::testing::ScriptedModel;
use golem_core::{Response, Stage, ToolCall};
use golem_io::{Agent, Error, RunResult, Tool, ToolContext};
use serde_json::json;
use std::future::Future;
use std::time::{Duration, Instant};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Sum {
    a: i64,
    b: i64,
}

/// One async tool, one blocking tool, a parallel group, then an answer.
fn agent() -> Agent<String> {
    let model = ScriptedModel::new()
        .respond(Response::tool_calls(vec![
            ToolCall::new("c1", "add", r#"{"a":2,"b":3}"#),
            ToolCall::new("c2", "greet", "{}"),
        ]))
        .text("5, and hello");
    let add = Tool::typed_async("add", "Add two numbers.", |_: ToolContext<String>, s: Sum| async move {
        async_io::Timer::after(Duration::from_millis(5)).await;
        Ok((s.a + s.b).to_string())
    });
    let greet = Tool::new("greet", "Greet.", json!({"type": "object"}), |ctx: ToolContext<String>, _| {
        Ok(format!("hello {}", ctx.deps()))
    });
    Agent::builder(model).tools([add, greet]).parallel_tools(true).build().unwrap()
}

fn json(result: Result<RunResult<String>, Error>) -> String {
    serde_json::to_string(&result.unwrap()).unwrap()
}

// Ids are pinned so the results compare byte for byte (SPEC EXTRA-01).
fn blocking_json() -> String {
    json(agent().run_with("Ada".to_string()).prompt("add and greet").run_id("r-1").conversation_id("c-1").call())
}

/// The async run, as a future any executor can poll.
fn async_run() -> impl Future<Output = String> + Send + 'static {
    let agent = agent();
    async move {
        let run = agent.run_with("Ada".to_string()).prompt("add and greet").run_id("r-1").conversation_id("c-1");
        json(run.call_async().await)
    }
}

#[test]
fn smol_block_on_matches_the_blocking_driver() {
    assert_eq!(smol::block_on(async_run()), blocking_json());
}

#[test]
fn async_io_block_on_matches_the_blocking_driver() {
    assert_eq!(async_io::block_on(async_run()), blocking_json());
}

#[test]
fn futures_executor_block_on_matches_the_blocking_driver() {
    assert_eq!(futures::executor::block_on(async_run()), blocking_json());
}

#[test]
fn futures_lite_block_on_matches_the_blocking_driver() {
    assert_eq!(futures_lite::future::block_on(async_run()), blocking_json());
}

#[test]
fn a_smol_executor_task_matches_the_blocking_driver() {
    let ex = smol::Executor::new();
    let task = ex.spawn(async_run());
    assert_eq!(smol::block_on(ex.run(task)), blocking_json());
}

#[tokio::test(flavor = "current_thread")]
async fn tokio_current_thread_matches_the_blocking_driver() {
    let expected = tokio::task::spawn_blocking(blocking_json).await.unwrap();
    assert_eq!(async_run().await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_multi_thread_spawned_run_matches_the_blocking_driver() {
    let expected = tokio::task::spawn_blocking(blocking_json).await.unwrap();
    assert_eq!(tokio::spawn(async_run()).await.unwrap(), expected);
}

/// A tool that never answers: only the machine's deadline, served by an
/// async-io timer, can end the run.
fn stuck_agent() -> Agent<()> {
    let model = ScriptedModel::new().tool_call("stuck", "{}").text("never");
    let stuck = Tool::new_async("stuck", "", json!({"type": "object"}), |_: ToolContext<()>, _| async {
        std::future::pending::<Result<String, golem_io::ToolError>>().await
    });
    Agent::builder(model).tool(stuck.timeout(Duration::from_millis(40))).build().unwrap()
}

async fn fails_at_the_deadline() {
    let started = Instant::now();
    let err = stuck_agent().run_async((), "go").await.unwrap_err();
    assert_eq!(err.stage(), Some(Stage::Tool), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
}

#[tokio::test(flavor = "current_thread")]
async fn deadlines_fire_inside_tokio_current_thread() {
    fails_at_the_deadline().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadlines_fire_inside_tokio_multi_thread() {
    fails_at_the_deadline().await;
}

#[test]
fn deadlines_fire_under_futures_executor() {
    futures::executor::block_on(fails_at_the_deadline());
}

//! The run future is `Send` when its inputs are (SPEC DRV-03): checked at
//! compile time, and by handing runs to executors that demand it.

use golem_core::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext};
use std::future::Future;
use std::rc::Rc;

fn assert_send<T: Send>(_: &T) {}

fn assert_send_static_future<F: Future + Send + 'static>(_: &F) {}

/// Deps that are `Send + Sync` but neither `Clone` nor `Copy`.
struct Deps {
    name: String,
}

fn agent() -> Agent<Deps> {
    let hello =
        Tool::new_async("hello", "", serde_json::json!({"type": "object"}), |ctx: ToolContext<Deps>, _| async move {
            Ok(format!("hello {}", ctx.deps().name))
        });
    Agent::builder(ScriptedModel::new().tool_call("hello", "{}").text("hi")).tool(hello).build().unwrap()
}

#[test]
fn run_futures_are_send() {
    let agent = agent();
    assert_send(&agent.run_async(Deps { name: "a".into() }, "x"));
    assert_send(&agent.run_with_history_async(Deps { name: "b".into() }, Vec::new(), "x"));
    assert_send(&agent.run_with(Deps { name: "c".into() }).prompt("x").call_async());
    assert_send(&agent.run_with(Deps { name: "d".into() }).prompt("x").events());
}

#[test]
fn a_streamed_run_is_send_with_a_callback_borrowing_local_state() {
    let agent = agent();
    let mut fragments = Vec::new();
    let run = agent.run_stream_async(Deps { name: "e".into() }, "x", |d| {
        fragments.push(d.delta.clone());
        Ok(())
    });
    assert_send(&run);
}

#[test]
fn an_owned_agent_makes_a_spawnable_future() {
    let agent = agent();
    let run = async move { agent.run_async(Deps { name: "f".into() }, "x").await.map(|r| r.into_output()) };
    assert_send_static_future(&run);
    let output = smol::block_on(smol::spawn(run)).unwrap();
    assert_eq!(output, "hi");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_spawn_accepts_the_run() {
    let agent = agent();
    let handle = tokio::spawn(async move { agent.run_async(Deps { name: "g".into() }, "x").await.map(|r| r.messages) });
    let messages = handle.await.unwrap().unwrap();
    assert!(messages.iter().any(|m| m.content == "hello g"));
}

#[test]
fn a_non_send_output_still_runs_on_a_local_block_on() {
    // Outputs need not be Send: the future is then !Send, and still runs.
    let agent = Agent::<()>::builder(ScriptedModel::new().text("7"))
        .decoder(golem_io::decode_fn(|_ctx, r: &golem_core::Response| Ok(Rc::new(r.message.content.clone()))))
        .build()
        .unwrap();
    let output = futures_lite::future::block_on(agent.run_async((), "x")).unwrap().output;
    assert_eq!(*output, "7");
}

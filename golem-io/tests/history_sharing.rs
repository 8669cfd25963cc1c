//! A run hands each model call the history it keeps, not a copy (issue 20):
//! every driver lets go of a call's request before it feeds the answer, so
//! the run appends to the same history again without copying it. Seen from
//! the model: every request of a run points at one shared history, held by
//! the run and the call and nobody else.

use golem_core::testing::FnModel;
use golem_core::{Request, Response, ToolCall};
use golem_io::{Agent, CancellationToken, Tool, ToolContext};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// What one model call saw of its request's history: where it lives, how
/// many hold it, how long it is.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Seen {
    at: usize,
    holders: usize,
    len: usize,
}

/// A model that calls `lookup` twice in a row, then answers; it records
/// what it saw without keeping the request.
fn model(seen: &Arc<Mutex<Vec<Seen>>>) -> FnModel {
    let seen = Arc::clone(seen);
    FnModel::new(move |request: &Request| {
        let mut seen = seen.lock().unwrap();
        seen.push(Seen {
            at: Arc::as_ptr(&request.messages) as usize,
            holders: Arc::strong_count(&request.messages),
            len: request.messages.len(),
        });
        Ok(match seen.len() {
            1 | 2 => Response::tool_calls(vec![ToolCall::new(format!("c{}", seen.len()), "lookup", "{}")]),
            _ => Response::text("done"),
        })
    })
}

fn lookup_blocking() -> Tool<()> {
    Tool::new("lookup", "", json!({"type": "object"}), |_: ToolContext<()>, _| Ok("found"))
}

fn lookup_async() -> Tool<()> {
    Tool::new_async("lookup", "", json!({"type": "object"}), |_: ToolContext<()>, _| async { Ok("found") })
}

/// One history for every call, held by the run and the call only, grown by
/// a call and its result each turn.
fn assert_shared(seen: &[Seen], how: &str) {
    assert_eq!(seen.len(), 3, "{how}: {seen:?}");
    let lens: Vec<usize> = seen.iter().map(|s| s.len).collect();
    assert_eq!(lens, [1, 3, 5], "{how}");
    assert!(seen.iter().all(|s| s.at == seen[0].at), "{how}: a call got a copy: {seen:?}");
    assert!(seen.iter().all(|s| s.holders == 2), "{how}: {seen:?}");
}

#[test]
fn the_blocking_driver_sends_every_call_the_runs_own_history() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder(model(&seen)).tool(lookup_blocking()).build().unwrap();
    let result = agent.run((), "look it up twice").unwrap();
    assert_eq!(result.output, "done");
    assert_shared(&seen.lock().unwrap(), "blocking, calls on the caller's thread");
}

#[test]
fn the_blocking_driver_shares_the_history_with_calls_on_a_worker_thread() {
    // A caller's cancellation token puts each model call on a worker thread
    // the driver watches; the worker lets go of the request before it
    // answers.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder(model(&seen)).tool(lookup_blocking()).build().unwrap();
    let result = agent.run_with(()).prompt("look it up twice").cancellation(CancellationToken::new()).call().unwrap();
    assert_eq!(result.output, "done");
    assert_shared(&seen.lock().unwrap(), "blocking, calls on a worker");
}

#[test]
fn the_async_driver_shares_the_history_with_calls_on_the_blocking_pool() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder(model(&seen)).tool(lookup_async()).build().unwrap();
    let result = futures_lite::future::block_on(agent.run_async((), "look it up twice")).unwrap();
    assert_eq!(result.output, "done");
    assert_shared(&seen.lock().unwrap(), "async, a blocking model on the pool");
}

#[test]
fn a_model_that_edits_its_request_gets_its_own_copy() {
    let model = FnModel::new(|request: &Request| {
        let mut trimmed = request.clone();
        trimmed.messages_mut().clear();
        assert!(trimmed.messages.is_empty());
        assert_eq!(request.messages.len(), 1, "the run's history is untouched");
        Ok(Response::text("ok"))
    });
    let agent = Agent::<()>::builder(model).build().unwrap();
    let result = agent.run((), "hi").unwrap();
    assert_eq!(result.messages.len(), 2);
}

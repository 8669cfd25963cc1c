//! Deferred tools through the driver: a run pauses on approval requests and
//! a resume approves one call and denies the other (SPEC DEFER-01..05).

use golem_core::testing::FnModel;
use golem_core::{texts, Approval, DeferredResults, Message, Response, Role, ToolCall};
use golem_io::{Agent, Error, PausedRun, RunOutcome, Tool, ToolContext, ToolError};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// Deletes files, but only once a human approved the call.
fn delete_tool(deleted: Arc<Mutex<Vec<String>>>) -> Tool<()> {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    Tool::new("delete", "Delete a file.", schema, move |ctx: ToolContext<()>, args| {
        let path = args["path"].as_str().unwrap_or_default().to_string();
        if !ctx.is_approved() {
            return Err(ToolError::approval(format!("delete {path}?")));
        }
        deleted.lock().unwrap().push(path.clone());
        Ok(format!("deleted {path}"))
    })
}

/// Asks to delete two files, then summarises the tool results it sees.
fn model() -> FnModel {
    FnModel::new(|request| {
        let results: Vec<&Message> = request.messages.iter().filter(|m| m.role == Role::Tool).collect();
        if results.is_empty() {
            return Ok(Response::tool_calls(vec![
                ToolCall::new("c1", "delete", r#"{"path":"a.txt"}"#),
                ToolCall::new("c2", "delete", r#"{"path":"b.txt"}"#),
            ]));
        }
        let summary: Vec<String> = results.iter().map(|m| m.content.clone()).collect();
        Ok(Response::text(summary.join(" | ")))
    })
}

#[test]
fn a_paused_run_resumes_with_one_approval_and_one_denial() {
    let deleted = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder(model()).tool(delete_tool(Arc::clone(&deleted))).build().unwrap();

    let outcome = agent.run_with(()).prompt("clean up").call_pausable().unwrap();
    assert!(outcome.is_paused());
    let RunOutcome::Paused(paused) = outcome else { panic!("{outcome:?}") };
    let requests = &paused.deferred;
    let pending: Vec<(&str, &str)> =
        requests.approvals.iter().map(|p| (p.call_id.as_str(), p.reason.as_str())).collect();
    assert_eq!(pending, [("c1", "delete a.txt?"), ("c2", "delete b.txt?")]);
    assert!(requests.external.is_empty());
    assert_eq!(paused.pending(), 2);
    assert!(deleted.lock().unwrap().is_empty());

    let results =
        DeferredResults::new().approval("c1", Approval::approve()).approval("c2", Approval::deny("keep b.txt"));
    let resumed = agent.resume((), paused.messages.clone(), results).unwrap();

    let expected = format!("deleted a.txt | {}", texts::denied("keep b.txt"));
    assert_eq!(resumed.output, expected);
    assert_eq!(*deleted.lock().unwrap(), ["a.txt"]);
    assert_eq!(resumed.tool_calls, 1, "the approved re-run counts as a tool call");
}

#[test]
fn external_results_are_handed_to_the_model_verbatim() {
    let lookup = Tool::new("lookup", "", json!({"type": "object"}), |_: ToolContext<()>, _| {
        Err::<String, _>(ToolError::external("ask the warehouse"))
    });
    let model = FnModel::new(|request| match request.messages.iter().find(|m| m.role == Role::Tool) {
        Some(result) => Ok(Response::text(format!("stock: {}", result.content))),
        None => Ok(Response::tool_calls(vec![ToolCall::new("x1", "lookup", "{}")])),
    });
    let agent = Agent::builder(model).tool(lookup).build().unwrap();

    let paused = agent.run_with(()).prompt("how many?").call_pausable().unwrap().paused().unwrap();
    assert_eq!(paused.deferred.external[0].reason, "ask the warehouse");

    let resumed = agent.resume((), paused.messages, DeferredResults::new().external("x1", "42 crates")).unwrap();
    assert_eq!(resumed.output, "stock: 42 crates");
}

#[test]
fn resolutions_for_calls_that_are_not_pending_are_a_setup_error() {
    let agent = Agent::builder(model()).tool(delete_tool(Arc::default())).build().unwrap();
    let paused = agent.run((), "clean up").unwrap_err().into_paused().unwrap();
    let results = DeferredResults::new().approval("nope", Approval::approve());
    let err = agent.resume((), paused.messages, results).unwrap_err();
    assert!(err.as_setup().is_some(), "{err:?}");
    assert_eq!(err.stage(), None);
}

/// RUN-09 (issue 11): the common path needs no unwrap — a completed run's
/// `output` is the output — and a pause can never pass for a completed
/// run: `call` (and every `run…` shortcut) returns it as `Error::Paused`,
/// carrying the whole paused run, on both drivers; `call_pausable` returns
/// it as `RunOutcome::Paused`.
#[test]
fn run_09_a_pause_is_an_error_for_call_and_an_outcome_for_call_pausable() {
    let agent = Agent::builder(model()).tool(delete_tool(Arc::default())).build().unwrap();
    let expect_paused = |err: Error| -> PausedRun {
        assert!(err.to_string().starts_with("the run paused on 2 deferred tool call(s)"), "{err}");
        assert_eq!((err.stage(), err.as_run().is_none(), err.as_paused().is_some()), (None, true, true));
        err.into_paused().unwrap()
    };
    let blocking = expect_paused(agent.run((), "clean up").unwrap_err());
    let asynchronous = expect_paused(futures_lite::future::block_on(agent.run_async((), "clean up")).unwrap_err());
    for paused in [&blocking, &asynchronous] {
        assert_eq!(paused.deferred.approvals.len(), 2);
        assert_eq!(paused.messages.len(), 2, "prompt and the deferring turn");
        assert!(!paused.run_id.is_empty());
    }
    let outcome = futures_lite::future::block_on(agent.run_with(()).prompt("clean up").call_pausable_async()).unwrap();
    assert!(matches!(outcome, RunOutcome::Paused(_)));

    // The same agent's completed run: the output, no unwrap, either way.
    let results = DeferredResults::new().approval("c1", Approval::approve()).approval("c2", Approval::approve());
    let resumed: String = agent.resume((), blocking.messages.clone(), results.clone()).unwrap().output;
    assert_eq!(resumed, "deleted a.txt | deleted b.txt");
    let outcome = agent.run_with(()).history(blocking.messages).resume(results).call_pausable().unwrap();
    assert_eq!(outcome.completed().unwrap().output, "deleted a.txt | deleted b.txt");
}

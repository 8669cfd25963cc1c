//! Bridged MCP tools in agents under both drivers, end to end against the
//! reference server, plus naming and refresh against a fake (SPEC MCP-07,
//! MCP-08, MCP-10).
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_core::testing::TestModel;
use golem_core::{Role, Stage};
use golem_io::mcp::{BridgeError, BridgeOptions, ClientOptions, HttpConfig, IsErrorAs, McpBridge, McpClient, McpError};
use golem_io::Agent;
use mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn bridge(client: &Arc<McpClient>, options: BridgeOptions) -> McpBridge {
    McpBridge::with_options(Arc::clone(client), options).expect("list the tools")
}

fn tool_texts(result: &golem_io::RunResult<String>) -> Vec<String> {
    result.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.clone()).collect()
}

#[test]
fn an_agent_calls_reference_server_tools_under_both_drivers() {
    let client = Arc::new(mcp_support::stdio_client(&[]));
    let bridge = bridge(&client, BridgeOptions::new().prefix("fx"));
    let names: Vec<&str> = bridge.listed().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names[..3], ["fx_echo", "fx_add", "fx_image"]);
    assert_eq!(bridge.listed()[0].server.name, "echo", "the original name goes on the wire");
    let model = TestModel::new().call_tools(["fx_echo", "fx_add", "fx_image", "fx_fail"]);
    let agent = Agent::<()>::builder(model).tools(bridge.tools()).build().unwrap();
    let tool = &agent.tools()[0];
    assert_eq!(tool.spec().definition.description, "Echo text back, optionally upper-cased.");
    assert_eq!(tool.spec().definition.parameters["required"], json!(["text"]));

    // Pinned ids: the drivers' conversations compare whole (SPEC EXTRA-01).
    let run = || agent.run_with(()).prompt("use every tool").run_id("r-1").conversation_id("c-1");
    let blocking = run().call().unwrap();
    let texts = tool_texts(&blocking);
    assert_eq!(texts[0], "a", "echo of the sampled text");
    assert!(texts[1].parse::<i64>().is_ok(), "add: {}", texts[1]);
    assert!(texts[3].starts_with("tool fx_fail failed: Error executing tool fail: failing on purpose"), "{}", texts[3]);
    let image = blocking.messages.iter().filter(|m| m.role == Role::Tool).nth(2).unwrap();
    assert_eq!(image.parts.len(), 1);
    assert_eq!(image.parts[0].media_type, "image/png");
    assert_eq!(blocking.output, "test answer");

    let asynchronous = futures::executor::block_on(run().call_async()).unwrap();
    assert_eq!(tool_texts(&asynchronous), texts);
    assert_eq!(
        serde_json::to_value(&asynchronous.messages).unwrap(),
        serde_json::to_value(&blocking.messages).unwrap(),
        "both drivers, same conversation"
    );
}

#[test]
fn an_agent_calls_tools_over_streamable_http() {
    let server = mcp_support::HttpServer::start(&[]);
    let client = Arc::new(server.client());
    let bridge = bridge(&client, BridgeOptions::new());
    let agent = Agent::<()>::builder(TestModel::new().call_tools(["echo"])).tools(bridge.tools()).build().unwrap();
    assert_eq!(tool_texts(&agent.run((), "echo").unwrap()), ["a"]);
    let result = smol::block_on(agent.run_async((), "echo")).unwrap();
    assert_eq!(tool_texts(&result), ["a"]);
}

#[test]
fn is_error_as_a_rejection_and_transport_failures_end_the_run_at_the_tool_stage() {
    let client = Arc::new(mcp_support::stdio_client(&[]));
    let rejecting = bridge(&client, BridgeOptions::new().is_error_as(IsErrorAs::Rejection));
    let agent = Agent::<()>::builder(TestModel::new().call_tools(["fail"])).tools(rejecting.tools()).build().unwrap();
    let error = agent.run((), "fail").unwrap_err();
    assert_eq!(error.stage(), Some(Stage::Tool), "no correction budget by default: {error}");

    let agent = Agent::<()>::builder(TestModel::new().call_tools(["die"])).tools(rejecting.tools()).build().unwrap();
    let error = agent.run((), "die").unwrap_err();
    assert_eq!(error.stage(), Some(Stage::Tool));
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    let mut found = None;
    while let Some(e) = source {
        if let Some(mcp) = e.downcast_ref::<McpError>() {
            found = Some(mcp.clone());
        }
        source = e.source();
    }
    assert!(matches!(found, Some(McpError::ServerExited { .. })), "{error}");
}

/// A fake whose tool list is `lists[n]` on the n-th listing (the last one
/// after that), announcing a change inside every call's stream.
fn listing_fake(lists: Vec<Value>) -> FakeHttp {
    let listings = AtomicUsize::new(0);
    FakeHttp::start(move |request: &FakeRequest| {
        let id = request.json()["id"].clone();
        match request.rpc_method().as_str() {
            "initialize" => FakeResponse::json(&json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}}, "serverInfo": {"name": "f", "version": "1"}}})),
            "tools/list" => {
                let n = listings.fetch_add(1, Ordering::SeqCst).min(lists.len() - 1);
                FakeResponse::json(&json!({"jsonrpc": "2.0", "id": id, "result": {"tools": lists[n]}}))
            }
            "tools/call" => FakeResponse::sse(&[
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": request.json()["params"]["name"]}]}}),
            ]),
            _ => FakeResponse::accepted(),
        }
    })
}

fn http_client(fake: &FakeHttp) -> Arc<McpClient> {
    Arc::new(
        McpClient::http(HttpConfig::new(&fake.url), ClientOptions::new().timeout(Duration::from_secs(10))).unwrap(),
    )
}

#[test]
fn odd_names_are_mapped_and_the_original_goes_on_the_wire() {
    let long = "n".repeat(80);
    let fake = listing_fake(vec![json!([{"name": "files.read"}, {"name": long}, {"name": "ok-name"}])]);
    let client = http_client(&fake);
    let bridge = bridge(&client, BridgeOptions::new());
    let names: Vec<String> = bridge.listed().iter().map(|t| t.name.clone()).collect();
    assert_eq!(names[0], "files_read");
    assert_eq!(names[1].len(), 64);
    assert!(golem_io::mcp::is_valid_name(&names[1]));
    assert_eq!(names[2], "ok-name");
    let tools = bridge.tools::<()>();
    assert_eq!(tools[0].spec().definition.parameters, json!({"type": "object"}));
    let agent = Agent::<()>::builder(TestModel::new().call_tools(["files_read"])).tools(tools).build().unwrap();
    assert_eq!(tool_texts(&agent.run((), "read").unwrap()), ["files.read"], "the server saw its own name");
}

#[test]
fn colliding_names_are_a_build_error() {
    let fake = listing_fake(vec![json!([{"name": "a.b"}, {"name": "a_b"}])]);
    let error = McpBridge::new(http_client(&fake)).unwrap_err();
    assert!(
        matches!(&error, BridgeError::Collision { name, first, second } if name == "a_b" && first == "a.b" && second == "a_b"),
        "{error}"
    );
}

#[test]
fn list_changed_marks_the_snapshot_stale_and_refresh_lists_again() {
    let fake = listing_fake(vec![json!([{"name": "one"}]), json!([{"name": "one"}, {"name": "two"}])]);
    let client = http_client(&fake);
    let mut bridge = bridge(&client, BridgeOptions::new());
    assert_eq!(bridge.listed().len(), 1);
    assert!(!bridge.is_stale());
    let agent = Agent::<()>::builder(TestModel::new()).tools(bridge.tools()).build().unwrap();
    agent.run((), "call").unwrap();
    assert!(bridge.is_stale(), "the call's stream announced a change");
    assert_eq!(bridge.listed().len(), 1, "a snapshot until refreshed");
    bridge.refresh().unwrap();
    assert!(!bridge.is_stale());
    assert_eq!(bridge.listed().len(), 2);
    assert_eq!(agent.tools().len(), 1, "agents keep the tools they were built with");
}

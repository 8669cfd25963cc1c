//! Elicitation, progress, task support and per-bridge staleness (SPEC
//! MCP-14, MCP-16, MCP-07/10): against the reference server (PyPI `mcp`)
//! where it can play its part, in-process fakes and the sans-IO session
//! where a case needs a server that misbehaves on purpose.
#![cfg(feature = "mcp")]

use crate::mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use crate::mcp_support::{self, options, stdio_config, HttpServer};
use golem_core::testing::ScriptedModel;
use golem_io::mcp::{
    BridgeOptions, CallOptions, ClientOptions, ElicitationRequest, ElicitationResponse, HttpConfig, McpBridge,
    McpClient, Message, Progress, Session, SessionConfig, SessionEvent, TaskSupport,
};
use golem_io::{Agent, ToolProgress};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn an_installed_handler_answers_elicitations_and_declares_the_capability() {
    let asked = Arc::new(Mutex::new(Vec::<ElicitationRequest>::new()));
    let seen = Arc::clone(&asked);
    let options = options().on_elicitation(move |request| {
        seen.lock().unwrap().push(request.clone());
        let mut content = Map::new();
        content.insert("name".into(), json!("Ada"));
        // `age` left out: the client fills in the schema's default.
        ElicitationResponse::Accept(content)
    });
    let client = McpClient::stdio(stdio_config(&[]), options).unwrap();
    let result = client.call_tool("ask", json!({}), None).unwrap();
    assert_eq!(text(&result), "accept: Ada, 30");
    let asked = asked.lock().unwrap();
    let request = asked.last().unwrap();
    assert_eq!(request.message, "Who are you?");
    assert_eq!(request.defaults().get("age"), Some(&json!(30)), "the schema carries the defaults (SEP-1034)");
}

#[test]
fn elicitation_works_over_streamable_http() {
    let server = HttpServer::start(&[]);
    let options = options().on_elicitation(|_| ElicitationResponse::Decline);
    let client = McpClient::http(HttpConfig::new(&server.url), options).unwrap();
    let result = client.call_tool("ask", json!({}), None).unwrap();
    assert_eq!(text(&result), "decline");
}

#[test]
fn without_a_handler_no_capability_is_declared_and_an_elicitation_is_declined() {
    let mut session = Session::new(SessionConfig::default());
    let (init, request) = session.start(Instant::now()).unwrap();
    assert_eq!(request.to_value()["params"]["capabilities"], json!({}));
    let answer = json!({"jsonrpc": "2.0", "id": init, "result": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
    session.handle_message(Instant::now(), Message::from_value(answer).unwrap());
    while session.poll_transmit().is_some() {}
    let ask = json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
        "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}}});
    session.handle_message(Instant::now(), Message::from_value(ask).unwrap());
    let reply = session.poll_transmit().unwrap().to_value();
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": "e1", "result": {"action": "decline"}}));

    // With a handler: declared, and handed to the driver instead.
    let mut session = Session::new(SessionConfig { elicitation: true, ..SessionConfig::default() });
    let (_, request) = session.start(Instant::now()).unwrap();
    assert_eq!(request.to_value()["params"]["capabilities"], json!({"elicitation": {"form": {}}}));

    // The reference server: its tool sees the client cannot be asked.
    let client = McpClient::stdio(stdio_config(&[]), options()).unwrap();
    let result = client.call_tool("ask", json!({}), None);
    let shown = format!("{result:?}");
    assert!(!shown.contains("accept"), "{shown}");
}

#[test]
fn url_mode_elicitations_are_declined_even_with_a_handler() {
    let mut session = Session::new(SessionConfig { elicitation: true, ..SessionConfig::default() });
    let (init, _) = session.start(Instant::now()).unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": init, "result": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
    session.handle_message(Instant::now(), Message::from_value(answer).unwrap());
    while session.poll_transmit().is_some() {}
    while session.poll_event().is_some() {}
    let url = json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create",
        "params": {"mode": "url", "message": "sign in", "url": "https://example.com", "elicitationId": "x"}});
    session.handle_message(Instant::now(), Message::from_value(url).unwrap());
    assert_eq!(session.poll_transmit().unwrap().to_value()["result"], json!({"action": "decline"}));
    let form = json!({"jsonrpc": "2.0", "id": 8, "method": "elicitation/create", "params": {"message": "m"}});
    session.handle_message(Instant::now(), Message::from_value(form).unwrap());
    assert!(session.poll_transmit().is_none());
    assert!(
        matches!(session.poll_event(), Some(SessionEvent::Request { method, .. }) if method == "elicitation/create")
    );
}

#[test]
fn progress_reaches_the_callers_callback_only_when_asked_for() {
    let client = McpClient::stdio(stdio_config(&[]), options()).unwrap();
    let reports = Arc::new(Mutex::new(Vec::<Progress>::new()));
    let sink = Arc::clone(&reports);
    let call = CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p.clone()));
    let result = client.call_tool_with("count", json!({"n": 3}), &call).unwrap();
    assert_eq!(text(&result), "counted 3");
    let reports = reports.lock().unwrap();
    let seen: Vec<(f64, Option<f64>, Option<&str>)> =
        reports.iter().map(|p| (p.progress, p.total, p.message.as_deref())).collect();
    assert_eq!(
        seen,
        [(1.0, Some(3.0), Some("step 1")), (2.0, Some(3.0), Some("step 2")), (3.0, Some(3.0), Some("step 3"))]
    );
    // Without a callback no token goes out, and nothing is reported.
    assert_eq!(text(&client.call_tool_with("count", json!({"n": 2}), &CallOptions::new()).unwrap()), "counted 2");
}

#[test]
fn bridged_progress_reaches_the_runs_progress_observers() {
    let client = Arc::new(McpClient::stdio(stdio_config(&[]), options()).unwrap());
    let bridge = McpBridge::with_options(Arc::clone(&client), BridgeOptions::new().progress(true)).unwrap();
    let model = ScriptedModel::new().tool_call("count", r#"{"n":2}"#).text("done");
    let agent = Agent::builder(model).tools(bridge.tools()).build().unwrap();
    let heard = Arc::new(Mutex::new(Vec::<ToolProgress>::new()));
    let sink = Arc::clone(&heard);
    let result =
        agent.run_with(()).prompt("count").on_tool_progress(move |p| sink.lock().unwrap().push(p.clone())).call();
    assert_eq!(result.unwrap().output, "done");
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 2, "{heard:?}");
    assert!(heard.iter().all(|p| p.tool_name == "count" && !p.call_id.is_empty() && p.total == Some(2.0)));
    assert_eq!(heard[1].message.as_deref(), Some("step 2"));
}

/// A fake whose listing declares each kind of task support.
fn task_server() -> FakeHttp {
    FakeHttp::start(|request: &FakeRequest| {
        let id = request.json()["id"].clone();
        let answer = |result: Value| FakeResponse::json(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
        match request.rpc_method().as_str() {
            "initialize" => answer(json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "tasks": {}},
                "serverInfo": {"name": "tasks", "version": "1"}})),
            "tools/list" => answer(json!({"tools": [
                {"name": "plain"},
                {"name": "either", "execution": {"taskSupport": "optional"}},
                {"name": "only_task", "execution": {"taskSupport": "required"}},
                {"name": "never", "execution": {"taskSupport": "forbidden"}}]})),
            "tools/call" => {
                // A plain call: no task augmentation in the params.
                assert!(request.json()["params"].get("task").is_none());
                answer(json!({"content": [{"type": "text", "text": "ran"}]}))
            }
            "GET" => FakeResponse::status(405),
            _ => FakeResponse::accepted(),
        }
    })
}

#[test]
fn task_required_tools_are_left_out_with_a_logged_reason() {
    let fake = task_server();
    let logs = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&logs);
    let options = ClientOptions::new().on_log(move |log| sink.lock().unwrap().push(log.data.to_string()));
    let client = Arc::new(McpClient::http(HttpConfig::new(&fake.url), options).unwrap());
    let listed = client.list_tools().unwrap();
    let support: Vec<TaskSupport> = listed.iter().map(|t| t.task_support).collect();
    assert_eq!(support, [TaskSupport::Forbidden, TaskSupport::Optional, TaskSupport::Required, TaskSupport::Forbidden]);
    let bridge = McpBridge::new(Arc::clone(&client)).unwrap();
    let names: Vec<&str> = bridge.listed().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["plain", "either", "never"]);
    assert_eq!(bridge.skipped().len(), 1);
    assert_eq!(bridge.skipped()[0].name, "only_task");
    assert!(logs.lock().unwrap().iter().any(|l| l.contains("only_task") && l.contains("required")));
    // The optional one runs plainly.
    let model = ScriptedModel::new().tool_call("either", "{}").text("ok");
    let agent = Agent::builder(model).tools(bridge.tools()).build().unwrap();
    let run = agent.run((), "go").unwrap();
    assert!(run.messages.iter().any(|m| m.content == "ran"));
}

#[test]
fn each_bridge_has_its_own_staleness() {
    let client = Arc::new(McpClient::stdio(stdio_config(&[]), options()).unwrap());
    let mut first = McpBridge::new(Arc::clone(&client)).unwrap();
    let second = McpBridge::new(Arc::clone(&client)).unwrap();
    assert!(!first.is_stale() && !second.is_stale() && !client.tools_changed());
    client.call_tool("changed_here", json!({}), None).unwrap();
    assert!(mcp_support::eventually(Duration::from_secs(10), || first.is_stale()));
    assert!(second.is_stale() && client.tools_changed());
    first.refresh().unwrap();
    assert!(!first.is_stale());
    assert!(second.is_stale(), "one bridge's refresh leaves the other stale");
}

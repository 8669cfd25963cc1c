//! The recorded MCP sessions (tests/fixtures/mcp/recorded; their README
//! says where they were recorded) replayed as golden sessions: the server
//! side fed to the client, the client's side checked message by message, up
//! to the offered protocol version and clientInfo.
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_io::mcp::{
    tool_result, ClientOptions, HttpConfig, IsErrorAs, McpClient, Message, Pager, Session, SessionConfig, SessionEvent,
};
use golem_io::ToolError;
use mcp_support::http_fake::{FakeHttp, FakeResponse};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

fn recorded(name: &str) -> String {
    std::fs::read_to_string(mcp_support::fixtures().join("recorded").join(name)).expect("a recorded transcript")
}

/// The recorder offered its own version and named itself; ours differ.
fn normalized(mut message: Value) -> Value {
    if message["method"] == "initialize" {
        message["params"]["protocolVersion"] = json!("offered");
        message["params"]["clientInfo"] = json!("client");
    }
    message
}

/// What one replayed session produced: each answer or event, in order.
#[derive(Debug, Default)]
struct Replay {
    results: Vec<(u64, Result<Value, String>)>,
    tools_changed: usize,
    tools: Vec<String>,
}

fn replay_stdio(name: &str) -> Replay {
    let now = Instant::now();
    let mut session = Session::new(SessionConfig { allow_legacy_version: true, ..SessionConfig::default() });
    let mut replay = Replay::default();
    let mut methods = std::collections::HashMap::new();
    for (n, line) in recorded(name).lines().enumerate() {
        let entry: Value = serde_json::from_str(line).unwrap();
        let wire = entry["msg"].clone();
        if entry["dir"] == "c2s" {
            let ours = match wire["method"].as_str().unwrap() {
                "initialize" => session.start(now).map(|(_, m)| m),
                _ if wire.get("id").is_none() => session.poll_transmit().ok_or(golem_io::mcp::McpError::Closed),
                method => session.request(now, method, wire["params"].clone()).map(|(_, m)| m),
            };
            let ours = ours.unwrap_or_else(|e| panic!("{name}:{n}: the client could not send {wire}: {e}"));
            assert_eq!(normalized(ours.to_value()), normalized(wire.clone()), "{name}:{n}");
            if let Some(id) = wire["id"].as_u64() {
                methods.insert(id, wire["method"].as_str().unwrap().to_string());
            }
            continue;
        }
        session.handle_message(now, Message::from_value(wire).unwrap_or_else(|e| panic!("{name}:{n}: {e}")));
        while let Some(event) = session.poll_event() {
            match event {
                SessionEvent::Completed { id, result } => {
                    if methods.get(&id).map(String::as_str) == Some("tools/list") {
                        let mut pager = Pager::new();
                        pager.handle_page(result.as_ref().unwrap()).unwrap();
                        replay.tools = pager.into_tools().into_iter().map(|t| t.name).collect();
                    }
                    replay.results.push((id, result.map_err(|e| e.to_string())));
                }
                SessionEvent::ToolsChanged => replay.tools_changed += 1,
                _ => {}
            }
        }
    }
    assert!(session.poll_transmit().is_none(), "{name}: the client owes nothing more");
    assert_eq!(session.pending_count(), 0, "{name}: every request was answered");
    replay
}

fn result_of(replay: &Replay, id: u64) -> &Value {
    replay.results.iter().find(|(i, _)| *i == id).and_then(|(_, r)| r.as_ref().ok()).expect("a result")
}

fn text(result: Result<golem_io::ToolResult, ToolError>) -> String {
    match result {
        Ok(r) => r.content,
        Err(ToolError::Failed(reason)) => format!("failed: {reason}"),
        Err(other) => format!("other: {other}"),
    }
}

#[test]
fn python_sdk_2_3_0() {
    let replay = replay_stdio("python-sdk-2.3.0_tiny_stdio_2025-06-18.jsonl");
    assert_eq!(replay.tools, ["add", "echo", "fail"]);
    assert_eq!(text(tool_result("add", result_of(&replay, 3), IsErrorAs::Failed)), "5");
    assert_eq!(
        text(tool_result("fail", result_of(&replay, 4), IsErrorAs::Failed)),
        "failed: tool fail failed: Error executing tool fail"
    );
    assert!(
        matches!(tool_result("nope", result_of(&replay, 5), IsErrorAs::Rejection), Err(ToolError::Reject(r)) if r == "tool nope failed: Unknown tool: nope")
    );
    assert_eq!(result_of(&replay, 10), &json!({}), "ping");
    let (_, unknown) = replay.results.iter().find(|(id, _)| *id == 11).unwrap();
    assert_eq!(unknown.as_ref().unwrap_err(), "MCP error -32601: Method not found");
}

#[test]
fn python_sdk_1_30_0() {
    let replay = replay_stdio("python-sdk-1.30.0_tiny_stdio_2025-06-18.jsonl");
    assert_eq!(replay.tools, ["add", "echo", "fail"]);
    assert_eq!(
        text(tool_result("fail", result_of(&replay, 4), IsErrorAs::Failed)),
        "failed: tool fail failed: Error executing tool fail: boom"
    );
    let (_, error) = replay.results.iter().find(|(id, _)| *id == 5).unwrap();
    assert_eq!(error.as_ref().unwrap_err(), "MCP error -32602: Invalid request parameters");
}

#[test]
fn server_everything_with_list_changed_first_and_progress_interleaved() {
    let replay = replay_stdio("server-everything-2026.8.31_stdio_2025-11-25.jsonl");
    assert_eq!(replay.tools_changed, 1, "list_changed before the tools/list response");
    assert!(replay.tools.contains(&"get-tiny-image".to_string()));
    assert_eq!(text(tool_result("echo", result_of(&replay, 3), IsErrorAs::Failed)), "Echo: hi");
    assert_eq!(
        text(tool_result("s", result_of(&replay, 5), IsErrorAs::Failed)),
        r#"{"temperature":33,"conditions":"Cloudy","humidity":82}"#
    );
    let image = tool_result("img", result_of(&replay, 6), IsErrorAs::Failed).unwrap();
    assert_eq!(image.parts.len(), 1);
    assert_eq!(image.parts[0].media_type, "image/png");
    assert!(image.parts[0].data.starts_with(b"\x89PNG"));
    assert!(image.content.starts_with("Here's the image you requested:"));
    assert_eq!(
        text(tool_result("long", result_of(&replay, 8), IsErrorAs::Failed)),
        "Long running operation completed. Duration: 1 seconds, Steps: 2."
    );
}

#[test]
fn real_world_servers() {
    let time = replay_stdio("mcp-server-time-2026.10.19_stdio_2025-06-18.jsonl");
    assert!(text(tool_result("t", result_of(&time, 3), IsErrorAs::Failed)).contains("Asia/Tokyo"));
    assert!(text(tool_result("get_current_time", result_of(&time, 4), IsErrorAs::Failed))
        .starts_with("failed: tool get_current_time failed: Error executing tool get_current_time: Invalid timezone"));
    let git = replay_stdio("mcp-server-git-2026.10.19_stdio_2025-06-18.jsonl");
    assert!(git.tools.contains(&"git_status".to_string()));
    assert!(text(tool_result("git_status", result_of(&git, 3), IsErrorAs::Failed)).starts_with("Repository status:"));
}

/// Serve a recorded streamable HTTP session: each request must match the
/// recorded one (headers included), and gets the recorded response.
fn replay_http(name: &str) -> (FakeHttp, McpClient) {
    let exchanges: Vec<Value> = serde_json::from_str(&recorded(name)).unwrap();
    let exchanges = Arc::new(exchanges);
    let next = Arc::new(AtomicUsize::new(0));
    let (script, counter) = (Arc::clone(&exchanges), Arc::clone(&next));
    let fake = FakeHttp::start(move |request| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        let Some(exchange) = script.get(n) else { return FakeResponse::status(500) };
        let wanted = &exchange["request"];
        if request.method != wanted["method"] || normalized(request.json()) != normalized(wanted["body"].clone()) {
            eprintln!("exchange {n}: got {} {}, recorded {wanted}", request.method, request.json());
            return FakeResponse::status(418);
        }
        for header in ["Content-Type", "Accept", "Mcp-Session-Id", "MCP-Protocol-Version"] {
            let recorded = wanted["headers"][header].as_str();
            let recorded = if request.method == "DELETE" && header == "Content-Type" { None } else { recorded };
            if request.header(header).map(str::to_string).as_deref() != recorded && recorded.is_some() {
                eprintln!("exchange {n}: header {header} is {:?}, recorded {recorded:?}", request.header(header));
                return FakeResponse::status(418);
            }
        }
        let response = &exchange["response"];
        let mut reply = FakeResponse::status(response["status"].as_u64().unwrap() as u16);
        for (k, v) in response["headers"].as_object().unwrap() {
            if !["transfer-encoding", "content-length", "connection", "keep-alive"].contains(&k.as_str()) {
                reply = reply.header(k, v.as_str().unwrap());
            }
        }
        let body = response["body"].as_str().unwrap_or_default();
        if !body.is_empty() {
            reply = reply.chunk(std::time::Duration::ZERO, body);
        }
        reply
    });
    // The recordings hold no standalone GET stream; mcp_http_listen covers it.
    let config = HttpConfig::new(&fake.url).listen(false);
    let client = McpClient::http(config, ClientOptions::new()).expect("the recorded handshake");
    (fake, client)
}

#[test]
fn python_sdk_over_streamable_http() {
    let (fake, client) = replay_http("python-sdk-2.3.0_tiny_streamable-http_2025-06-18.json");
    assert_eq!(client.server_info().unwrap().protocol_version, "2025-06-18");
    let tools: Vec<String> = client.list_tools().unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["add", "echo", "fail"]);
    assert_eq!(client.call_tool("add", json!({"a": 2, "b": 3}), None).unwrap()["structuredContent"]["result"], 5);
    assert_eq!(client.call_tool("fail", json!({"msg": "boom"}), None).unwrap()["isError"], true);
    client.close();
    let methods: Vec<String> = fake.requests().iter().map(|r| r.rpc_method()).collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/list", "tools/call", "tools/call", "DELETE"]
    );
}

#[test]
fn server_everything_over_streamable_http_with_priming_events_and_progress() {
    let (fake, client) = replay_http("server-everything-2026.8.31_streamable-http_2025-11-25.json");
    assert_eq!(client.server_info().unwrap().name, "mcp-servers/everything");
    let echo = client.call_tool("echo", json!({"message": "hi"}), None).unwrap();
    assert_eq!(echo["content"][0]["text"], "Echo: hi");
    let params = json!({"name": "trigger-long-running-operation", "arguments": {"duration": 1, "steps": 2}, "_meta": {"progressToken": "p1"}});
    let long = client.request("tools/call", params, None).unwrap();
    assert!(long["content"][0]["text"].as_str().unwrap().starts_with("Long running operation completed"));
    client.close();
    assert_eq!(fake.requests().len(), 5);
    assert_eq!(fake.requests()[4].method, "DELETE");
}

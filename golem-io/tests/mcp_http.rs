//! The streamable HTTP transport against the official MCP Python SDK on
//! 127.0.0.1 (SPEC MCP-02..04, MCP-06, MCP-09).
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_io::mcp::{HttpConfig, ListenState, LogMessage, McpClient, McpError};
use golem_io::CancellationToken;
use mcp_support::{free_port, options, HttpServer};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn handshake_listing_and_calls_over_sse_answers() {
    let server = HttpServer::start(&["--page-size", "5"]);
    let client = server.client();
    let info = client.server_info().unwrap();
    assert_eq!((info.name.as_str(), info.protocol_version.as_str()), ("golem-fixture", "2025-11-25"));
    let names: Vec<String> = client.list_tools().unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, mcp_support::TOOLS, "four pages");
    assert_eq!(text(&client.call_tool("echo", json!({"text": "hi"}), None).unwrap()), "hi");
    assert_eq!(client.call_tool("add", json!({"a": 1, "b": 2}), None).unwrap()["structuredContent"]["result"], 3);
    assert_eq!(client.call_tool("image", json!({}), None).unwrap()["content"][0]["type"], "image");
    let failed = client.call_tool("fail", json!({"msg": "x"}), None).unwrap();
    assert_eq!(failed["isError"], true);
    let unknown = client.call_tool("nope", json!({}), None).unwrap();
    assert_eq!((unknown["isError"].as_bool(), text(&unknown)), (Some(true), "Unknown tool: nope"));
    assert!(matches!(client.request("no/such/method", json!({}), None), Err(McpError::Protocol { code: -32601, .. })));
    client.close();
}

#[test]
fn json_answers_work_too() {
    let server = HttpServer::start(&["--json"]);
    let client = server.client();
    assert_eq!(client.list_tools().unwrap().len(), mcp_support::TOOLS.len());
    assert_eq!(text(&client.call_tool("echo", json!({"text": "json"}), None).unwrap()), "json");
}

#[test]
fn logs_arrive_inside_the_call_stream() {
    let server = HttpServer::start(&[]);
    let logs: Arc<Mutex<Vec<LogMessage>>> = Arc::default();
    let sink = Arc::clone(&logs);
    let options = options().on_log(move |log| sink.lock().unwrap().push(log.clone()));
    let client = McpClient::http(HttpConfig::new(&server.url), options).unwrap();
    assert_eq!(text(&client.call_tool("shout", json!({"text": "yo"}), None).unwrap()), "YO");
    assert_eq!(logs.lock().unwrap()[0].data, "shouting yo", "the log came before the answer, in the same stream");
}

#[test]
fn timeouts_cancellation_and_parallel_calls() {
    let server = HttpServer::start(&[]);
    let client = Arc::new(server.client());
    let start = Instant::now();
    let params = json!({"name": "slow", "arguments": {"seconds": 5}});
    let error = client.request_with_timeout("tools/call", params, Duration::from_millis(400), None).unwrap_err();
    assert!(matches!(error, McpError::Timeout { .. }), "{error:?}");
    let token = CancellationToken::new();
    let canceller = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let error = client.call_tool("slow", json!({"seconds": 5}), Some(&token)).unwrap_err();
    assert!(matches!(error, McpError::Canceled { .. }), "{error:?}");
    assert!(start.elapsed() < Duration::from_secs(3));

    let start = Instant::now();
    let calls: Vec<_> = (0..3)
        .map(|_| {
            let client = Arc::clone(&client);
            std::thread::spawn(move || client.call_tool("slow", json!({"seconds": 1}), None))
        })
        .collect();
    for call in calls {
        assert_eq!(text(&call.join().unwrap().unwrap()), "slept 1.0");
    }
    assert!(start.elapsed() < Duration::from_millis(2800), "{:?}", start.elapsed());
}

/// Kill the server `after` a call began; how long the call took to fail
/// after the kill, and its error.
fn killed_mid_call(extra: &[&str]) -> (Duration, McpError, Arc<McpClient>) {
    let mut server = HttpServer::start(extra);
    let client = Arc::new(server.client());
    let caller = Arc::clone(&client);
    let call = std::thread::spawn(move || caller.call_tool("slow", json!({"seconds": 30}), None));
    std::thread::sleep(Duration::from_millis(400));
    let start = Instant::now();
    server.kill();
    let error = call.join().unwrap().unwrap_err();
    (start.elapsed(), error, client)
}

#[test]
fn mcp_22_a_killed_server_fails_the_call_within_a_second_as_unreachable() {
    // An SSE answer without event ids (the SDK's default), one it could
    // resume (an event store, retry 100 ms), and a JSON answer not yet begun.
    for extra in [&[][..], &["--resumable"][..], &["--json"][..]] {
        let (elapsed, error, client) = killed_mid_call(extra);
        assert!(matches!(error, McpError::Unreachable { .. }), "{extra:?}: {error:?}");
        assert!(error.to_string().contains("unreachable"), "{error}");
        assert!(elapsed < Duration::from_secs(1), "{extra:?}: failed {elapsed:?} after the kill");
        let later = client.list_tools().unwrap_err();
        assert!(matches!(&later, McpError::Unreachable { reason, .. } if reason == "connection refused"), "{later:?}");
    }
}

/// The Python SDK restarted where it was: its new life answers the old
/// session 404; the GET stream finds out and starts a new session, so the
/// next call — a tool call — works.
#[test]
fn mcp_21_a_restarted_python_sdk_server_is_followed_to_a_new_session() {
    let mut server = HttpServer::start(&[]);
    let port: u16 = server.url.rsplit(':').next().unwrap().trim_end_matches("/mcp").parse().unwrap();
    let client = server.client();
    assert_eq!(text(&client.call_tool("echo", json!({"text": "before"}), None).unwrap()), "before");
    assert!(mcp_support::eventually(Duration::from_secs(30), || client.listen_state() == ListenState::Open));
    server.kill();
    assert!(mcp_support::eventually(Duration::from_secs(10), || client.listen_state() != ListenState::Open));
    let _restarted = HttpServer::start_on(port, &[]);
    assert!(
        mcp_support::eventually(Duration::from_secs(60), || client.listen_state() == ListenState::Open),
        "the stream came back: {:?}",
        client.listen_state()
    );
    assert_eq!(text(&client.call_tool("echo", json!({"text": "after"}), None).unwrap()), "after");
}

#[test]
fn mcp_22_nobody_listening_is_unreachable_at_once() {
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let start = Instant::now();
    let error = McpClient::http(HttpConfig::new(url), options()).unwrap_err();
    assert!(matches!(&error, McpError::Unreachable { reason, .. } if reason == "connection refused"), "{error:?}");
    assert!(start.elapsed() < Duration::from_secs(1), "at once");
}

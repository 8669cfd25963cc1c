//! A session the server lost (SPEC MCP-21), told from the answers real
//! servers give after a restart: tests/fixtures/mcp/recorded/session-lost.json
//! holds what the TypeScript SDK (its own apps, its transport, and
//! server-everything) and the Python SDK (1.x and 2.x) answered a request
//! carrying the session id of their previous life, and 400s of theirs that
//! mean something else.
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_io::mcp::{ClientOptions, HttpConfig, ListenState, McpClient, McpError};
use mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One recorded answer: status, content type, body.
#[derive(Clone, Debug)]
struct Recorded {
    server: String,
    request: String,
    status: u16,
    content_type: Option<String>,
    body: String,
}

fn recorded(section: &str) -> Vec<Recorded> {
    let path = mcp_support::fixtures().join("recorded/session-lost.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc[section]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| Recorded {
            server: entry["server"].as_str().unwrap().to_string(),
            request: entry["request"].as_str().unwrap_or("POST").to_string(),
            status: entry["status"].as_u64().unwrap() as u16,
            content_type: entry["content_type"].as_str().map(str::to_string),
            body: entry["body"].as_str().unwrap().to_string(),
        })
        .collect()
}

impl Recorded {
    fn response(&self) -> FakeResponse {
        let mut response = FakeResponse::status(self.status);
        if let Some(content_type) = &self.content_type {
            response = response.header("Content-Type", content_type);
        }
        response.chunk(Duration::ZERO, self.body.clone())
    }
}

fn init(request: &FakeRequest, sid: &str) -> FakeResponse {
    let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
        "serverInfo": {"name": "restarting", "version": "1"}});
    FakeResponse::json(&json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": result}))
        .header("Mcp-Session-Id", sid)
}

fn answer(request: &FakeRequest, result: Value) -> FakeResponse {
    FakeResponse::json(&json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": result}))
}

/// A server that restarts when told: the sessions of its earlier lives get
/// `lost` (a recorded answer), the current one is served.
struct Restarting {
    fake: FakeHttp,
    lives: Arc<AtomicUsize>,
}

impl Restarting {
    fn start(lost: Recorded, get_stream: bool) -> Restarting {
        let lives = Arc::new(AtomicUsize::new(1));
        let life = Arc::clone(&lives);
        let fake = FakeHttp::start(move |request| {
            let current = format!("life-{}", life.load(Ordering::SeqCst));
            let sid = request.header("Mcp-Session-Id").unwrap_or_default();
            match request.rpc_method().as_str() {
                "initialize" => init(request, &current),
                _ if sid != current => lost.response(),
                "tools/list" => answer(request, json!({"tools": [{"name": current}]})),
                "tools/call" => answer(request, json!({"content": [{"type": "text", "text": current}]})),
                // A stream that ends at once (with a short retry), so the
                // listener asks again soon, as after a dropped connection.
                "GET" if get_stream => FakeResponse::sse(&[]).chunk(Duration::ZERO, "retry: 20\n\n"),
                "GET" => FakeResponse::status(405),
                _ => FakeResponse::accepted(),
            }
        });
        Restarting { fake, lives }
    }

    fn restart(&self) {
        self.lives.fetch_add(1, Ordering::SeqCst);
    }

    fn count(&self, method: &str) -> usize {
        self.fake.requests().iter().filter(|r| r.rpc_method() == method).count()
    }
}

fn client(url: &str, listen: bool) -> McpClient {
    let config = HttpConfig::new(url).listen(listen);
    McpClient::http(config, ClientOptions::new().timeout(Duration::from_secs(10))).unwrap()
}

#[test]
fn mcp_21_every_recorded_session_loss_starts_a_new_session_and_sends_a_listing_again() {
    let posts: Vec<Recorded> = recorded("session_lost").into_iter().filter(|r| r.request == "POST").collect();
    assert!(posts.len() >= 6, "the fixture covers both SDKs");
    for lost in posts {
        let server = Restarting::start(lost.clone(), false);
        let client = client(&server.fake.url, false);
        assert_eq!(client.list_tools().unwrap()[0].name, "life-1");
        server.restart();
        let tools = client.list_tools().unwrap_or_else(|e| panic!("{}: {e}", lost.server));
        assert_eq!(tools[0].name, "life-2", "{}", lost.server);
        assert_eq!(server.count("initialize"), 2, "{}: one new session", lost.server);
    }
}

#[test]
fn mcp_21_a_recorded_session_loss_fails_a_tool_call_as_lost_and_the_next_call_works() {
    for lost in recorded("session_lost").into_iter().filter(|r| r.request == "POST") {
        let server = Restarting::start(lost.clone(), false);
        let client = client(&server.fake.url, false);
        server.restart();
        let error = client.call_tool("t", json!({}), None).unwrap_err();
        assert!(matches!(error, McpError::SessionLost { .. }), "{}: {error:?}", lost.server);
        let result = client.call_tool("t", json!({}), None).unwrap();
        assert_eq!(result["content"][0]["text"], "life-2", "{}", lost.server);
        assert_eq!(server.count("tools/call"), 2, "{}: the lost call was not sent again", lost.server);
    }
}

#[test]
fn mcp_21_other_recorded_400s_are_errors_and_start_no_session() {
    for other in recorded("other") {
        let answer = other.clone();
        let fake = FakeHttp::start(move |request| match request.rpc_method().as_str() {
            "initialize" => init(request, "only"),
            "tools/list" => answer.response(),
            _ => FakeResponse::accepted(),
        });
        let client = client(&fake.url, false);
        let error = client.list_tools().unwrap_err();
        assert_eq!(error.http_status(), Some(400), "{}: {error:?}", other.server);
        let inits = fake.requests().iter().filter(|r| r.rpc_method() == "initialize").count();
        assert_eq!(inits, 1, "{}: no new session", other.server);
    }
}

/// The case: server-everything (the TypeScript SDK) restarted.
/// Its GET stream drops; the listener reconnects, reads the 400 without an
/// `id`, and starts a new session, so the next call — a tool call — works.
#[test]
fn mcp_21_after_a_typescript_sdk_server_restarts_the_next_call_works() {
    let lost = recorded("session_lost")
        .into_iter()
        .find(|r| r.server.starts_with("server-everything") && r.request == "GET")
        .unwrap();
    assert!(!lost.body.contains("\"id\""), "the recorded answer has no id member");
    let server = Restarting::start(lost, true);
    let client = client(&server.fake.url, true);
    assert_eq!(client.call_tool("t", json!({}), None).unwrap()["content"][0]["text"], "life-1");
    server.restart();
    // The listener starts a new session when it finds the old one gone,
    // and listens there.
    assert!(mcp_support::eventually(Duration::from_secs(10), || {
        server.fake.requests().iter().any(|r| r.method == "GET" && r.header("Mcp-Session-Id") == Some("life-2"))
    }));
    assert_eq!(server.count("initialize"), 2);
    assert_eq!(client.call_tool("t", json!({}), None).unwrap()["content"][0]["text"], "life-2");
    assert_ne!(client.listen_state(), ListenState::Failed);
    assert_eq!(server.count("tools/call"), 2);
}

#[test]
fn mcp_21_without_the_listener_a_restart_costs_one_lost_call_and_no_more() {
    let lost = recorded("session_lost").into_iter().find(|r| r.server.starts_with("server-everything")).unwrap();
    let server = Restarting::start(lost, false);
    let client = client(&server.fake.url, false);
    server.restart();
    assert!(matches!(client.call_tool("t", json!({}), None), Err(McpError::SessionLost { .. })));
    for _ in 0..3 {
        assert_eq!(client.call_tool("t", json!({}), None).unwrap()["content"][0]["text"], "life-2");
    }
    assert_eq!(server.count("initialize"), 2);
}

//! Streamable HTTP edge cases against an in-process fake on 127.0.0.1:
//! headers, 202, SSE interleaving, 404 re-initialize, DELETE on close,
//! secrets (SPEC MCP-06, ERR-06).
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_io::mcp::{ClientOptions, HttpConfig, ListenState, LogMessage, McpClient, McpError};
use mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn init_answer(request: &FakeRequest, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": {"protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}}, "serverInfo": {"name": "fake-http", "version": "1"}}})
}

fn answer(request: &FakeRequest, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": result})
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// A well-behaved server: session `sid`, version `version`, echoing calls.
fn simple(sid: &'static str, version: &'static str) -> impl Fn(&FakeRequest) -> FakeResponse + Send + Sync {
    move |request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request, version)).header("Mcp-Session-Id", sid),
        "tools/call" => FakeResponse::json(&answer(request, text_result("called"))),
        "tools/list" => FakeResponse::json(&answer(request, json!({"tools": [{"name": "t"}]}))),
        "DELETE" => FakeResponse::status(200),
        // No standalone stream here (mcp_http_listen has those).
        "GET" => FakeResponse::status(405),
        _ => FakeResponse::accepted(),
    }
}

fn connect(fake: &FakeHttp) -> McpClient {
    McpClient::http(HttpConfig::new(&fake.url), ClientOptions::new().timeout(Duration::from_secs(10))).unwrap()
}

#[test]
fn every_request_carries_the_right_headers() {
    let fake = FakeHttp::start(simple("abc-123", "2025-06-18"));
    let config = HttpConfig::new(&fake.url).bearer_token("tok-SECRET").header("X-Team", "blue");
    let client = McpClient::http(config, ClientOptions::new()).unwrap();
    // The GET stream is tried once in the background; the 405 ends it.
    assert!(mcp_support::eventually(Duration::from_secs(10), || client.listen_state() == ListenState::Unsupported));
    client.list_tools().unwrap();
    client.close();
    let requests = fake.requests();
    let methods: Vec<String> = requests.iter().map(FakeRequest::rpc_method).collect();
    assert_eq!(methods, ["initialize", "notifications/initialized", "GET", "tools/list", "DELETE"]);
    for (n, request) in requests.iter().enumerate() {
        assert_eq!(request.header("Authorization"), Some("Bearer tok-SECRET"), "{n}");
        assert_eq!(request.header("X-Team"), Some("blue"), "{n}");
        match request.method.as_str() {
            "POST" => {
                assert_eq!(request.header("Content-Type"), Some("application/json"), "{n}");
                assert_eq!(request.header("Accept"), Some("application/json, text/event-stream"), "{n}");
            }
            "GET" => {
                assert_eq!(request.header("Accept"), Some("text/event-stream"), "{n}");
                assert_eq!(request.header("Last-Event-ID"), None, "nothing to resume yet");
            }
            _ => {}
        }
        let later = n > 0;
        assert_eq!(request.header("Mcp-Session-Id"), later.then_some("abc-123"), "{n}");
        assert_eq!(request.header("MCP-Protocol-Version"), later.then_some("2025-06-18"), "{n}");
    }
}

#[test]
fn secrets_stay_out_of_debug_and_errors() {
    let fake = FakeHttp::start(|_| FakeResponse::status(500));
    let config =
        HttpConfig::new(format!("{}?key=SECRET-Q", fake.url)).bearer_token("SECRET-T").header("X-Api-Key", "SECRET-H");
    let shown = format!("{config:?}");
    let error = McpClient::http(config, ClientOptions::new()).unwrap_err();
    let error_text = format!("{error} {error:?}");
    for text in [shown, error_text] {
        assert!(!text.contains("SECRET"), "{text}");
    }
    assert!(matches!(&error, McpError::HttpStatus { status: 500, url, .. } if *url == fake.url), "{error:?}");
}

#[test]
fn sse_streams_carry_server_requests_and_notifications_before_the_answer() {
    let fake = FakeHttp::start(|request| {
        match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request, "2025-11-25")).header("Mcp-Session-Id", "s1"),
        "GET" => FakeResponse::status(405),
        "tools/call" => FakeResponse::status(200)
            .header("Content-Type", "text/event-stream")
            .chunk(Duration::ZERO, "id: prime\ndata: \n\n")
            .chunk(Duration::from_millis(20), format!("event: message\ndata: {}\n\n", json!({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})))
            .chunk(Duration::ZERO, format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": 41, "method": "sampling/createMessage", "params": {}})))
            .chunk(Duration::ZERO, format!("event: message\ndata: {}\n\n", json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}})))
            .chunk(Duration::ZERO, format!("event: message\r\ndata: {}\r\n\r\n", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1, "progressToken": "p"}})))
            .chunk(Duration::ZERO, format!("event: message\ndata: {}\n\n", json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})))
            .chunk(Duration::from_millis(20), format!("event: message\ndata: {}\n\n", answer(request, text_result("done")))),
        _ => FakeResponse::accepted(),
    }
    });
    let logs: Arc<Mutex<Vec<LogMessage>>> = Arc::default();
    let sink = Arc::clone(&logs);
    let options = ClientOptions::new().on_log(move |log| sink.lock().unwrap().push(log.clone()));
    let client = McpClient::http(HttpConfig::new(&fake.url), options).unwrap();
    let result = client.call_tool("t", json!({}), None).unwrap();
    assert_eq!(result["content"][0]["text"], "done");
    assert!(client.tools_changed());
    assert_eq!(logs.lock().unwrap()[0].data, "working");
    // Replies go out on their own threads.
    let replied = || fake.requests().into_iter().filter(|r| r.rpc_method() == "reply").collect::<Vec<_>>();
    assert!(mcp_support::eventually(Duration::from_secs(5), || replied().len() == 2));
    let mut replies: Vec<Value> = replied().iter().map(FakeRequest::json).collect();
    replies.sort_by_key(|r| r["id"].is_number());
    assert_eq!(replies[0], json!({"jsonrpc": "2.0", "id": "srv-ping", "result": {}}));
    assert_eq!((replies[1]["id"].clone(), replies[1]["error"]["code"].clone()), (json!(41), json!(-32601)));
    let reply_request = fake.requests().into_iter().find(|r| r.rpc_method() == "reply").unwrap();
    assert_eq!(reply_request.header("Mcp-Session-Id"), Some("s1"));
}

#[test]
fn mcp_21_a_forgotten_session_is_initialized_again_and_a_listing_sent_again_once() {
    let generation = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&generation);
    let fake = FakeHttp::start(move |request| {
        let current = format!("s{}", counter.load(Ordering::SeqCst));
        match request.rpc_method().as_str() {
            "initialize" => {
                let sid = format!("s{}", counter.fetch_add(1, Ordering::SeqCst) + 1);
                FakeResponse::json(&init_answer(request, "2025-11-25")).header("Mcp-Session-Id", &sid)
            }
            // Only the current session works, and s3 never does.
            _ if request.header("Mcp-Session-Id") != Some(current.as_str()) || current == "s3" => {
                FakeResponse::status(404)
            }
            "tools/list" => FakeResponse::json(&answer(request, json!({"tools": [{"name": current}]}))),
            _ => FakeResponse::accepted(),
        }
    });
    let client = connect(&fake);
    assert_eq!(client.list_tools().unwrap()[0].name, "s1");
    // The server forgets s1, and the session it hands out next (s3) fails too.
    generation.store(2, Ordering::SeqCst);
    let error = client.list_tools().unwrap_err();
    assert!(matches!(error, McpError::HttpStatus { status: 404, .. }), "sent again once only: {error:?}");
    // The GET stream follows the sessions on its own schedule; left out.
    let methods: Vec<(String, Option<String>)> = fake
        .requests()
        .iter()
        .filter(|r| r.method != "GET")
        .map(|r| (r.rpc_method(), r.header("Mcp-Session-Id").map(str::to_string)))
        .collect();
    let tail: Vec<(&str, Option<&str>)> = methods[3..].iter().map(|(m, s)| (m.as_str(), s.as_deref())).collect();
    assert_eq!(
        tail,
        [
            ("tools/list", Some("s1")),
            ("initialize", None),
            ("notifications/initialized", Some("s3")),
            ("tools/list", Some("s3")),
        ]
    );
}

#[test]
fn mcp_21_a_tool_call_is_never_sent_twice_after_a_lost_session() {
    let expired = Arc::new(AtomicUsize::new(0));
    let flag = Arc::clone(&expired);
    let fake = FakeHttp::start(move |request| match request.rpc_method().as_str() {
        "initialize" => {
            let sid = if flag.load(Ordering::SeqCst) == 0 { "old" } else { "new" };
            FakeResponse::json(&init_answer(request, "2025-11-25")).header("Mcp-Session-Id", sid)
        }
        _ if flag.load(Ordering::SeqCst) == 1 && request.header("Mcp-Session-Id") == Some("old") => {
            FakeResponse::status(404)
        }
        "tools/call" => {
            FakeResponse::json(&answer(request, text_result(request.header("Mcp-Session-Id").unwrap_or("-"))))
        }
        "GET" => FakeResponse::status(405),
        _ => FakeResponse::accepted(),
    });
    let client = connect(&fake);
    expired.store(1, Ordering::SeqCst);
    let error = client.call_tool("t", json!({}), None).unwrap_err();
    assert!(matches!(&error, McpError::SessionLost { method } if method == "tools/call"), "{error:?}");
    assert!(error.to_string().contains("not sent again"), "{error}");
    // The new session is ready: the next call works at once.
    assert_eq!(client.call_tool("t", json!({}), None).unwrap()["content"][0]["text"], "new");
    let calls: Vec<Option<String>> = fake
        .requests()
        .iter()
        .filter(|r| r.rpc_method() == "tools/call")
        .map(|r| r.header("Mcp-Session-Id").map(str::to_string))
        .collect();
    assert_eq!(calls, [Some("old".to_string()), Some("new".to_string())], "the lost call was not repeated");
}

#[test]
fn close_sends_delete_and_shrugs_at_405() {
    let fake = FakeHttp::start(move |request| match request.rpc_method().as_str() {
        "DELETE" => FakeResponse::status(405),
        _ => simple("sess", "2025-11-25")(request),
    });
    let client = connect(&fake);
    let start = Instant::now();
    client.close();
    client.close();
    assert!(start.elapsed() < Duration::from_secs(2));
    let deletes: Vec<FakeRequest> = fake.requests().into_iter().filter(|r| r.method == "DELETE").collect();
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].header("Mcp-Session-Id"), Some("sess"));
    assert!(matches!(client.list_tools(), Err(McpError::Closed)));

    // Without a session there is nothing to delete.
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request, "2025-11-25")),
        _ => FakeResponse::accepted(),
    });
    drop(connect(&fake));
    assert!(fake.requests().iter().all(|r| r.method != "DELETE"));
    assert!(fake.requests().iter().all(|r| r.header("Mcp-Session-Id").is_none()));
}

#[test]
fn bad_answers_are_typed_errors() {
    let fake = FakeHttp::start(|request| {
        FakeResponse::json(&init_answer(request, "2025-11-25")).header("Mcp-Session-Id", "bad id")
    });
    assert!(matches!(
        McpClient::http(HttpConfig::new(&fake.url), ClientOptions::new()),
        Err(McpError::InvalidSessionId)
    ));

    let fake = FakeHttp::start(|request| FakeResponse::json(&init_answer(request, "2024-11-05")));
    let error = McpClient::http(HttpConfig::new(&fake.url), ClientOptions::new()).unwrap_err();
    assert!(matches!(error, McpError::UnsupportedProtocolVersion { .. }), "2024-11-05 is stdio-only: {error:?}");

    let fake = FakeHttp::start(|request| match request.json()["params"]["name"].as_str() {
        _ if request.rpc_method() != "tools/call" => simple("s", "2025-11-25")(request),
        Some("accepted") => FakeResponse::accepted(),
        Some("garbage") => {
            FakeResponse::status(200).header("Content-Type", "application/json").chunk(Duration::ZERO, "<html>")
        }
        Some("cut") => {
            FakeResponse::sse(&[json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})])
        }
        Some("teapot") => FakeResponse::status(418),
        Some("huge") => FakeResponse::status(200)
            .header("Content-Type", "application/json")
            .chunk(Duration::ZERO, vec![b' '; (32 << 20) + 10]),
        _ => FakeResponse::status(200)
            .header("Content-Type", "text/event-stream")
            .chunk(Duration::ZERO, ": keep-alive\n\n")
            .chunk(Duration::from_secs(5), ": still here\n\n"),
    });
    let client =
        McpClient::http(HttpConfig::new(&fake.url), ClientOptions::new().timeout(Duration::from_secs(20))).unwrap();
    let call = |name: &str| client.call_tool(name, json!({}), None).unwrap_err();
    assert!(matches!(call("accepted"), McpError::NoResponse { .. }));
    assert!(matches!(call("garbage"), McpError::Parse(_)));
    assert!(matches!(call("cut"), McpError::NoResponse { .. }));
    assert!(matches!(call("teapot"), McpError::HttpStatus { status: 418, .. }));
    assert!(matches!(call("huge"), McpError::BodyTooLarge { .. }));
    let start = Instant::now();
    let params = json!({"name": "hang", "arguments": {}});
    let error = client.request_with_timeout("tools/call", params, Duration::from_millis(500), None).unwrap_err();
    assert!(matches!(error, McpError::Timeout { .. }), "{error:?}");
    assert!(start.elapsed() < Duration::from_secs(2), "a stalled stream does not hold the caller");
}

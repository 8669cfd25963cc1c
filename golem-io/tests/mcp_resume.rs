//! Resumable request streams and forgotten sessions over streamable HTTP
//! (SPEC MCP-12, MCP-13), against in-process fakes on 127.0.0.1 that close
//! streams early, replay events and forget sessions on purpose.
#![cfg(feature = "mcp")]

use crate::mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use golem_io::mcp::{ClientOptions, HttpConfig, McpClient, McpError, BODY_EXCERPT};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn init(request: &FakeRequest, sid: &str) -> FakeResponse {
    let id = request.json()["id"].clone();
    FakeResponse::json(&json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}}))
    .header("Mcp-Session-Id", sid)
}

fn answer(id: &Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
}

fn sse(frames: &[String]) -> FakeResponse {
    let mut response = FakeResponse::status(200).header("Content-Type", "text/event-stream");
    for frame in frames {
        response = response.chunk(Duration::ZERO, frame.clone());
    }
    response
}

fn client(fake: &FakeHttp) -> McpClient {
    let config = HttpConfig::new(&fake.url).listen(false);
    McpClient::http(config, ClientOptions::new().timeout(Duration::from_secs(10))).unwrap()
}

/// Where a fake keeps the id of the `tools/call` its resumed stream
/// answers.
fn pending() -> (Arc<Mutex<Value>>, Arc<Mutex<Value>>) {
    let slot = Arc::new(Mutex::new(Value::Null));
    (Arc::clone(&slot), slot)
}

#[test]
fn a_stream_closed_before_its_answer_is_resumed_with_last_event_id() {
    let (set, get) = pending();
    let fake = FakeHttp::start(move |request| match request.rpc_method().as_str() {
        "initialize" => init(request, "s-1"),
        // A priming event with an id and a retry, then the server hangs up.
        "tools/call" => {
            *set.lock().unwrap() = request.json()["id"].clone();
            sse(&["id: e-1\nretry: 20\ndata: \n\n".into()])
        }
        "GET" => {
            let id = get.lock().unwrap().clone();
            sse(&[
                "id: e-2\ndata: \n\n".into(),
                format!("id: e-3\nevent: message\ndata: {}\n\n", answer(&id, "resumed")),
            ])
        }
        _ => FakeResponse::accepted(),
    });
    let client = client(&fake);
    let result = client.call_tool("slow", json!({}), None).unwrap();
    assert_eq!(result["content"][0]["text"], "resumed");
    let gets: Vec<FakeRequest> = fake.requests().into_iter().filter(|r| r.method == "GET").collect();
    assert_eq!(gets.len(), 1);
    assert_eq!(gets[0].header("Last-Event-ID"), Some("e-1"));
    assert_eq!(gets[0].header("Mcp-Session-Id"), Some("s-1"));
    assert_eq!(gets[0].header("Accept"), Some("text/event-stream"));
}

#[test]
fn replayed_events_are_not_handled_twice() {
    let (set, get) = pending();
    let ping = r#"{"jsonrpc":"2.0","id":"p-1","method":"ping"}"#;
    let fake = FakeHttp::start(move |request| match request.rpc_method().as_str() {
        "initialize" => init(request, "s-1"),
        "tools/call" => {
            *set.lock().unwrap() = request.json()["id"].clone();
            sse(&[format!("id: e-1\nretry: 10\ndata: {ping}\n\n")])
        }
        // A careless server replays e-1 before the answer.
        "GET" => {
            let id = get.lock().unwrap().clone();
            sse(&[format!("id: e-1\ndata: {ping}\n\n"), format!("id: e-2\ndata: {}\n\n", answer(&id, "once"))])
        }
        _ => FakeResponse::accepted(),
    });
    let client = client(&fake);
    assert_eq!(client.call_tool("t", json!({}), None).unwrap()["content"][0]["text"], "once");
    client.close();
    let pongs = fake.requests().iter().filter(|r| r.json().get("id") == Some(&json!("p-1"))).count();
    assert_eq!(pongs, 1, "the ping was answered once");
}

#[test]
fn resuming_is_bounded_and_a_stream_without_ids_is_not_resumed() {
    let gets = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&gets);
    let fake = FakeHttp::start(move |request| match request.rpc_method().as_str() {
        "initialize" => init(request, "s-1"),
        "tools/call" if request.json()["params"]["name"] == "no-ids" => sse(&[": nothing\n\n".into()]),
        "tools/call" => sse(&["id: e-0\nretry: 10\ndata: \n\n".into()]),
        // Every resumed stream says something, then ends without the answer.
        "GET" => {
            let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
            sse(&[format!(
                "id: g-{n}\ndata: {}\n\n",
                json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": n}})
            )])
        }
        _ => FakeResponse::accepted(),
    });
    let client = client(&fake);
    let error = client.call_tool("endless", json!({}), None).unwrap_err();
    assert!(matches!(error, McpError::NoResponse { .. }), "{error:?}");
    assert_eq!(gets.load(Ordering::SeqCst), 10, "MAX_RESUMES attempts, then the client gives up");
    let last = fake.requests().into_iter().rfind(|r| r.method == "GET").unwrap();
    assert_eq!(last.header("Last-Event-ID"), Some("g-9"), "each attempt resumes after the last event seen");

    let before = gets.load(Ordering::SeqCst);
    let error = client.call_tool("no-ids", json!({}), None).unwrap_err();
    assert!(matches!(error, McpError::NoResponse { .. }), "{error:?}");
    assert_eq!(gets.load(Ordering::SeqCst), before, "nothing to resume from");
}

#[test]
fn a_server_that_cannot_resume_fails_the_request_with_its_status() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => init(request, "s-1"),
        "tools/call" => sse(&["id: e-1\nretry: 10\ndata: \n\n".into()]),
        "GET" => FakeResponse::status(405),
        _ => FakeResponse::accepted(),
    });
    let error = client(&fake).call_tool("t", json!({}), None).unwrap_err();
    assert_eq!(error.http_status(), Some(405), "{error:?}");
}

/// The TypeScript SDK's answer to a session it does not know.
fn no_session() -> FakeResponse {
    let body = json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"},
        "id": null});
    FakeResponse::status(400).header("Content-Type", "application/json").chunk(Duration::ZERO, body.to_string())
}

#[test]
fn a_400_saying_the_session_is_gone_starts_a_new_one() {
    let inits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&inits);
    let fake = FakeHttp::start(move |request| {
        let sid = request.header("Mcp-Session-Id").unwrap_or_default().to_string();
        match request.rpc_method().as_str() {
            "initialize" => {
                let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
                init(request, &format!("s-{n}"))
            }
            // The server restarted: it knows only sessions it made since.
            _ if sid == "s-1" => no_session(),
            "tools/call" => FakeResponse::json(&answer(&request.json()["id"], &format!("on {sid}"))),
            _ => FakeResponse::accepted(),
        }
    });
    let client = client(&fake);
    // SPEC MCP-21: the call is not sent again; the new session serves the next.
    let error = client.call_tool("t", json!({}), None).unwrap_err();
    assert!(matches!(error, McpError::SessionLost { .. }), "{error:?}");
    let result = client.call_tool("t", json!({}), None).unwrap();
    assert_eq!(result["content"][0]["text"], "on s-2");
    let methods: Vec<String> = fake.requests().iter().map(FakeRequest::rpc_method).collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/call",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ]
    );
}

#[test]
fn other_400s_fail_with_the_body_and_never_restart() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => init(request, "s-1"),
        _ => {
            let body = json!({"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params: tok-SECRET-1 rejected"},
                "id": null});
            FakeResponse::status(400).chunk(Duration::ZERO, body.to_string())
        }
    });
    let config = HttpConfig::new(&fake.url).listen(false).bearer_token("tok-SECRET-1");
    let client = McpClient::http(config, ClientOptions::new()).unwrap();
    let error = client.call_tool("t", json!({}), None).unwrap_err();
    let McpError::HttpStatus { status: 400, body, .. } = &error else { panic!("{error:?}") };
    assert!(body.contains("Invalid params: [redacted] rejected"), "{body}");
    assert!(!error.to_string().contains("tok-SECRET-1") && !format!("{error:?}").contains("tok-SECRET-1"));
    assert_eq!(fake.requests().iter().filter(|r| r.rpc_method() == "initialize").count(), 1);
}

#[test]
fn refusals_keep_a_bounded_excerpt_and_the_challenge() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::status(401)
            .header(
                "WWW-Authenticate",
                r#"Bearer error="invalid_token", resource_metadata="https://x/.well-known/oauth-protected-resource""#,
            )
            .chunk(Duration::ZERO, format!("denied\n{}", "z".repeat(5000))),
        _ => FakeResponse::accepted(),
    });
    let error = McpClient::http(HttpConfig::new(&fake.url), ClientOptions::new()).unwrap_err();
    let McpError::HttpStatus { status: 401, body, challenge, .. } = &error else { panic!("{error:?}") };
    assert!(body.starts_with("denied z"));
    assert_eq!(body.chars().count(), BODY_EXCERPT + 1, "the excerpt is bounded (and marked cut)");
    assert!(challenge
        .as_deref()
        .unwrap()
        .contains("resource_metadata=\"https://x/.well-known/oauth-protected-resource\""));
    assert!(error.to_string().starts_with("HTTP status 401 from"), "{error}");
}

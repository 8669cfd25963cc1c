//! The standalone GET stream of streamable HTTP ("listening for messages
//! from the server"): against the official Python SDK, which sends what a
//! handler announces without a related request there, and against an
//! in-process fake for 405, reconnection with `Last-Event-ID`, server
//! requests on the stream, a forgotten session, refusal and close (SPEC
//! MCP-03, MCP-06).
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_io::mcp::{ClientOptions, HttpConfig, ListenState, LogMessage, McpClient};
use mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use mcp_support::{eventually, options, HttpServer};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(15);

type Logs = Arc<Mutex<Vec<LogMessage>>>;

fn logging(options: ClientOptions) -> (ClientOptions, Logs) {
    let logs: Logs = Arc::default();
    let sink = Arc::clone(&logs);
    (options.on_log(move |log| sink.lock().unwrap().push(log.clone())), logs)
}

fn logged(logs: &Logs, text: &str) -> bool {
    logs.lock().unwrap().iter().any(|log| log.data.as_str().is_some_and(|d| d.contains(text)))
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

// The Python SDK routes a notification or request a handler sends without
// a related request id (`ctx.session.send_tool_list_changed()`,
// `send_ping()`) to the session's standalone channel; over streamable HTTP
// that is the GET stream, and with no GET stream open it is dropped
// (`StreamableHTTPServerTransport.message_router`). So these only pass
// because the client listens.

#[test]
fn list_changed_sent_outside_the_call_arrives_on_the_get_stream() {
    let server = HttpServer::start(&[]);
    let client = server.client();
    assert!(eventually(WAIT, || client.listen_state() == ListenState::Open), "{:?}", client.listen_state());
    assert!(!client.tools_changed());
    assert_eq!(text(&client.call_tool("changed", json!({}), None).unwrap()), "announced");
    assert!(eventually(WAIT, || client.tools_changed()), "list_changed came on the GET stream");
    client.close();
    assert_eq!(client.listen_state(), ListenState::Closed, "the listener thread ended");
}

#[test]
fn list_changed_in_the_calls_own_stream_needs_no_get_stream() {
    let server = HttpServer::start(&[]);
    let client = McpClient::http(HttpConfig::new(&server.url).listen(false), options()).unwrap();
    client.call_tool("changed_here", json!({}), None).unwrap();
    assert!(client.tools_changed(), "in the call's SSE stream, before its answer");
    assert_eq!(client.listen_state(), ListenState::Off);
}

#[test]
fn server_requests_on_the_get_stream_are_answered_by_post() {
    let server = HttpServer::start(&[]);
    let client = server.client();
    assert!(eventually(WAIT, || client.listen_state() == ListenState::Open));
    // The server pings and asks for roots on the GET stream and waits for
    // our answers, which go back as POSTs: {} and -32601.
    let result = client.call_tool("ping_back", json!({}), None).unwrap();
    assert_eq!(text(&result), "pong; roots -32601");
}

#[test]
fn a_dropped_get_stream_resumes_with_last_event_id() {
    let server = HttpServer::start(&["--resumable"]);
    let (options, logs) = logging(options());
    let client = McpClient::http(HttpConfig::new(&server.url), options).unwrap();
    assert!(eventually(WAIT, || client.listen_state() == ListenState::Open));
    // An event on the GET stream gives the client an id to resume from.
    client.call_tool("changed", json!({}), None).unwrap();
    assert!(eventually(WAIT, || client.tools_changed()));
    // The server closes the stream, then logs while no stream is open: the
    // event store keeps it, and replays it to the GET that resumes.
    assert_eq!(text(&client.call_tool("drop_stream", json!({}), None).unwrap()), "dropped");
    assert!(eventually(WAIT, || logged(&logs, "after the drop")), "{:?}", logs.lock().unwrap());
    assert!(eventually(WAIT, || client.listen_state() == ListenState::Open), "listening again");
}

fn init_answer(request: &FakeRequest) -> Value {
    json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": {"protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": true}}, "serverInfo": {"name": "fake-listen", "version": "1"}}})
}

fn event(message: Value) -> String {
    format!("event: message\ndata: {message}\n\n")
}

fn gets(fake: &FakeHttp) -> Vec<FakeRequest> {
    fake.requests().into_iter().filter(|r| r.method == "GET").collect()
}

fn connect(fake: &FakeHttp, options: ClientOptions) -> McpClient {
    McpClient::http(HttpConfig::new(&fake.url), options.timeout(Duration::from_secs(10))).unwrap()
}

#[test]
fn no_stream_on_offer_is_fine() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request)).header("Mcp-Session-Id", "s"),
        "GET" => FakeResponse::status(405),
        _ => FakeResponse::accepted(),
    });
    let (options, logs) = logging(ClientOptions::new());
    let client = connect(&fake, options);
    assert!(eventually(WAIT, || client.listen_state() == ListenState::Unsupported));
    assert_eq!(gets(&fake).len(), 1, "405 is not asked again");
    assert!(logs.lock().unwrap().is_empty(), "and is not worth a note: {:?}", logs.lock().unwrap());
    client.close();
}

#[test]
fn a_stream_that_ends_is_resumed_and_server_requests_on_it_are_answered() {
    let opened = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&opened);
    let fake = FakeHttp::start(move |request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request)).header("Mcp-Session-Id", "s1"),
        "GET" => match count.fetch_add(1, Ordering::SeqCst) {
            // A short stream: a retry hint, a log under an id, then the end.
            0 => FakeResponse::status(200)
                .header("Content-Type", "text/event-stream")
                .chunk(Duration::ZERO, "retry: 10\n\n")
                .chunk(
                    Duration::ZERO,
                    format!(
                        "id: ev-1\n{}",
                        event(json!({"jsonrpc": "2.0",
                    "method": "notifications/message", "params": {"level": "info", "data": "first stream"}}))
                    ),
                ),
            // Resumed: requests and a notification, then held open.
            _ => FakeResponse::status(200)
                .header("Content-Type", "text/event-stream")
                .chunk(Duration::ZERO, ": resumed\n\n")
                .chunk(Duration::ZERO, event(json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})))
                .chunk(Duration::ZERO, event(json!({"jsonrpc": "2.0", "id": 7, "method": "roots/list"})))
                .chunk(Duration::ZERO, event(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})))
                .chunk(Duration::from_secs(30), ": still here\n\n"),
        },
        _ => FakeResponse::accepted(),
    });
    let (options, logs) = logging(ClientOptions::new());
    let client = connect(&fake, options);
    assert!(eventually(WAIT, || client.tools_changed()), "the resumed stream's notification");
    assert!(logged(&logs, "first stream"));
    let replies = || fake.requests().into_iter().filter(|r| r.rpc_method() == "reply").collect::<Vec<_>>();
    assert!(eventually(WAIT, || replies().len() == 2));
    let mut answers: Vec<Value> = replies().iter().map(FakeRequest::json).collect();
    answers.sort_by_key(|r| r["id"].is_number());
    assert_eq!(answers[0], json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}}));
    assert_eq!((answers[1]["id"].clone(), answers[1]["error"]["code"].clone()), (json!(7), json!(-32601)));
    assert!(replies().iter().all(|r| r.method == "POST" && r.header("Mcp-Session-Id") == Some("s1")));

    let gets = gets(&fake);
    assert_eq!(gets.len(), 2);
    for get in &gets {
        assert_eq!(get.header("Accept"), Some("text/event-stream"));
        assert_eq!(get.header("Mcp-Session-Id"), Some("s1"));
        assert_eq!(get.header("MCP-Protocol-Version"), Some("2025-11-25"));
    }
    assert_eq!(gets[0].header("Last-Event-ID"), None);
    assert_eq!(gets[1].header("Last-Event-ID"), Some("ev-1"));

    // The stream is held open; closing interrupts it and ends the thread.
    assert_eq!(client.listen_state(), ListenState::Open);
    client.close();
    assert_eq!(client.listen_state(), ListenState::Closed);
}

#[test]
fn a_forgotten_session_is_followed_to_the_new_one() {
    let generation = Arc::new(AtomicUsize::new(1));
    let current = Arc::clone(&generation);
    let fake = FakeHttp::start(move |request| {
        let sid = format!("s{}", current.load(Ordering::SeqCst));
        match request.rpc_method().as_str() {
            "initialize" => {
                let sid = format!("s{}", current.fetch_add(1, Ordering::SeqCst) + 1);
                FakeResponse::json(&init_answer(request)).header("Mcp-Session-Id", &sid)
            }
            // Session s2 is forgotten right after the handshake.
            _ if request.header("Mcp-Session-Id") != Some(sid.as_str())
                || (sid == "s2" && request.rpc_method() != "notifications/initialized") =>
            {
                FakeResponse::status(404)
            }
            "GET" => FakeResponse::status(200)
                .header("Content-Type", "text/event-stream")
                .chunk(
                    Duration::ZERO,
                    format!(
                        "id: {sid}-1\n{}",
                        event(json!({"jsonrpc": "2.0",
                    "method": "notifications/message", "params": {"level": "info", "data": format!("on {sid}")}}))
                    ),
                )
                .chunk(Duration::from_secs(30), ": still here\n\n"),
            "tools/call" => FakeResponse::json(&json!({"jsonrpc": "2.0", "id": request.json()["id"],
                "result": {"content": [{"type": "text", "text": sid}]}})),
            _ => FakeResponse::accepted(),
        }
    });
    let (options, logs) = logging(ClientOptions::new());
    let client = connect(&fake, options);
    // The GET for s2 gets 404; the listener starts s3 itself (SPEC MCP-21)
    // and listens there, so the next call finds s3 ready.
    assert!(eventually(WAIT, || logged(&logs, "on s3")), "{:?}", logs.lock().unwrap());
    assert_eq!(text(&client.call_tool("t", json!({}), None).unwrap()), "s3");
    let gets = gets(&fake);
    assert_eq!(gets.iter().map(|g| g.header("Mcp-Session-Id").unwrap()).collect::<Vec<_>>(), ["s2", "s3"]);
    assert_eq!(gets[1].header("Last-Event-ID"), None, "event ids do not carry over to a new session");
}

#[test]
fn a_refused_stream_is_not_asked_again_and_the_sink_hears_why() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request)).header("Mcp-Session-Id", "s"),
        "GET" => FakeResponse::status(403),
        _ => FakeResponse::accepted(),
    });
    let (options, logs) = logging(ClientOptions::new());
    let client = connect(&fake, options);
    assert!(eventually(WAIT, || client.listen_state() == ListenState::Failed));
    assert!(logged(&logs, "403"), "{:?}", logs.lock().unwrap());
    assert_eq!(gets(&fake).len(), 1);
}

#[test]
fn closing_while_waiting_to_reconnect_ends_the_thread() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request)).header("Mcp-Session-Id", "s"),
        "GET" => FakeResponse::status(503),
        _ => FakeResponse::accepted(),
    });
    let client = connect(&fake, ClientOptions::new());
    assert!(eventually(WAIT, || !gets(&fake).is_empty()));
    assert_eq!(client.listen_state(), ListenState::Connecting, "503 is worth another try, later");
    client.close(); // the listener is waiting out its backoff
    assert_eq!(client.listen_state(), ListenState::Closed, "the listener thread ended");
}

#[test]
fn listening_can_be_turned_off() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request)).header("Mcp-Session-Id", "s"),
        _ => FakeResponse::accepted(),
    });
    let client =
        McpClient::http(HttpConfig::new(&fake.url).listen(false), ClientOptions::new()).expect("connect without GET");
    assert_eq!(client.listen_state(), ListenState::Off);
    client.close();
    assert!(gets(&fake).is_empty());
    assert!(format!("{:?}", HttpConfig::new("http://x/mcp").listen(false)).contains("listen: false"));
}

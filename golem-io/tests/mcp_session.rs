//! The sans-IO MCP session (SPEC MCP-01..04, MCP-09) in simulated time: no
//! process, no socket, no sleep.
#![cfg(feature = "mcp")]

use golem_io::mcp::{Id, McpError, Message, Pager, ParseError, Session, SessionConfig, SessionEvent};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn msg(value: Value) -> Message {
    Message::from_value(value).expect("a valid message")
}

fn events(session: &mut Session) -> Vec<SessionEvent> {
    std::iter::from_fn(|| session.poll_event()).collect()
}

fn transmits(session: &mut Session) -> Vec<Value> {
    std::iter::from_fn(|| session.poll_transmit()).map(|m| m.to_value()).collect()
}

fn init_result(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {"tools": {"listChanged": true}},
           "serverInfo": {"name": "s", "version": "9", "title": "S"}, "instructions": "be nice"})
}

/// A session through its handshake at `now`.
fn ready(now: Instant) -> Session {
    let mut session = Session::new(SessionConfig::default());
    let (id, _) = session.start(now).unwrap();
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": id, "result": init_result("2025-11-25")})));
    transmits(&mut session);
    events(&mut session);
    session
}

#[test]
fn the_handshake_offers_the_current_version_and_keeps_what_the_server_said() {
    let now = Instant::now();
    let mut session = Session::new(SessionConfig { client_version: "1.2.3".into(), ..SessionConfig::default() });
    assert!(matches!(session.request(now, "tools/list", json!({})), Err(McpError::NotInitialized)));
    let (id, init) = session.start(now).unwrap();
    assert_eq!(id, 1);
    assert_eq!(
        init.to_value(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
               "capabilities": {}, "clientInfo": {"name": "golem", "version": "1.2.3"}}})
    );
    // Still initializing: no other call yet.
    assert!(matches!(session.request(now, "tools/list", json!({})), Err(McpError::NotInitialized)));
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": 1, "result": init_result("2025-03-26")})));
    assert_eq!(transmits(&mut session), vec![json!({"jsonrpc": "2.0", "method": "notifications/initialized"})]);
    assert!(matches!(&events(&mut session)[..], [SessionEvent::Completed { id: 1, result: Ok(_) }]));
    let info = session.server_info().unwrap();
    assert_eq!((info.name.as_str(), info.version.as_str(), info.title.as_deref()), ("s", "9", Some("S")));
    assert_eq!((info.protocol_version.as_str(), info.instructions.as_deref()), ("2025-03-26", Some("be nice")));
    assert_eq!(info.capabilities["tools"]["listChanged"], true);
    let (id, _) = session.request(now, "tools/list", json!({})).unwrap();
    assert_eq!(id, 2);
}

#[test]
fn versions_outside_the_supported_set_close_the_session() {
    let now = Instant::now();
    for (version, legacy, ok) in [
        ("2025-11-25", false, true),
        ("2025-06-18", false, true),
        ("2025-03-26", false, true),
        ("2024-11-05", false, false),
        ("2024-11-05", true, true),
        ("2026-07-28", true, false),
        ("banana", true, false),
    ] {
        let mut session = Session::new(SessionConfig { allow_legacy_version: legacy, ..SessionConfig::default() });
        let (id, _) = session.start(now).unwrap();
        session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": id, "result": init_result(version)})));
        assert_eq!(session.is_ready(), ok, "{version} legacy={legacy}");
        if !ok {
            assert!(transmits(&mut session).is_empty(), "no initialized notification after a refused version");
            let completed = events(&mut session);
            assert!(
                matches!(&completed[..], [SessionEvent::Completed { result: Err(McpError::UnsupportedProtocolVersion { version: v }), .. }] if v == version)
            );
            assert!(matches!(
                session.request(now, "ping", json!({})),
                Err(McpError::UnsupportedProtocolVersion { .. })
            ));
        }
    }
}

#[test]
fn answers_match_by_exact_id_and_several_may_be_in_flight() {
    let now = Instant::now();
    let mut session = ready(now);
    let (a, _) = session.request(now, "tools/call", json!({"name": "a"})).unwrap();
    let (b, _) = session.request(now, "tools/call", json!({"name": "b"})).unwrap();
    assert_eq!((a, b, session.pending_count()), (2, 3, 2));
    // A string id "3" and a float are not our 3; an unknown id is dropped.
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": "3", "result": {"wrong": true}})));
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": 99, "result": {}})));
    assert!(events(&mut session).is_empty());
    assert_eq!(Message::parse(br#"{"jsonrpc":"2.0","id":3.0,"result":{}}"#), Err(ParseError::Id));
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": b, "result": {"who": "b"}})));
    session.handle_message(
        now,
        msg(json!({"jsonrpc": "2.0", "id": a, "error": {"code": -32602, "message": "bad", "data": [1]}})),
    );
    let done = events(&mut session);
    assert!(matches!(&done[0], SessionEvent::Completed { id, result: Ok(r) } if *id == b && r["who"] == "b"));
    assert!(
        matches!(&done[1], SessionEvent::Completed { id, result: Err(McpError::Protocol { code: -32602, message, data: Some(d) }) }
        if *id == a && message == "bad" && d == &json!([1]))
    );
    // A duplicate answer is ignored.
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": b, "result": {}})));
    assert!(events(&mut session).is_empty());
}

#[test]
fn server_requests_get_pong_or_method_not_found_and_notifications_are_sorted() {
    let now = Instant::now();
    let mut session = ready(now);
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"})));
    session
        .handle_message(now, msg(json!({"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage", "params": {}})));
    assert_eq!(
        transmits(&mut session),
        vec![
            json!({"jsonrpc": "2.0", "id": "p1", "result": {}}),
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found", "data": "sampling/createMessage"}}),
        ]
    );
    session.handle_message(
        now,
        msg(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}})),
    );
    session.handle_message(now, msg(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})));
    session.handle_message(
        now,
        msg(json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "error", "logger": "db", "data": {"x": 1}}})),
    );
    let got = events(&mut session);
    assert!(matches!(&got[0], SessionEvent::ToolsChanged));
    assert!(
        matches!(&got[1], SessionEvent::Log(log) if log.level == "error" && log.logger.as_deref() == Some("db") && log.data["x"] == 1)
    );
    assert_eq!(got.len(), 2, "progress is ignored");
}

#[test]
fn timeouts_fail_the_request_and_tell_the_server() {
    let start = Instant::now();
    let mut session = ready(start);
    let (slow, _) = session.request_with_timeout(start, "tools/call", json!({}), Duration::from_secs(5)).unwrap();
    let (default, _) = session.request(start, "tools/list", json!({})).unwrap();
    assert_eq!(session.poll_timeout(), Some(start + Duration::from_secs(5)));
    session.handle_timeout(start + Duration::from_secs(4));
    assert!(events(&mut session).is_empty());
    session.handle_timeout(start + Duration::from_secs(5));
    assert!(
        matches!(&events(&mut session)[..], [SessionEvent::Completed { id, result: Err(McpError::Timeout { method, after }) }]
        if *id == slow && method == "tools/call" && *after == Duration::from_secs(5))
    );
    assert_eq!(
        transmits(&mut session),
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": slow, "reason": "timed out after 5s"}})
        ]
    );
    // The default is 60 s (SPEC MCP-09); a late answer is dropped.
    assert_eq!(session.poll_timeout(), Some(start + Duration::from_secs(60)));
    session.handle_message(start, msg(json!({"jsonrpc": "2.0", "id": slow, "result": {}})));
    assert!(events(&mut session).is_empty());
    assert!(session.is_pending(default));
}

#[test]
fn cancelling_forgets_the_request_and_sends_canceled() {
    let now = Instant::now();
    let mut session = ready(now);
    let (id, _) = session.request(now, "tools/call", json!({})).unwrap();
    assert!(session.cancel(id, "the run was canceled"));
    assert!(!session.cancel(id, "again"));
    assert_eq!(
        transmits(&mut session),
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "the run was canceled"}})
        ]
    );
    assert!(events(&mut session).is_empty(), "a canceled request completes nowhere");
}

#[test]
fn a_lost_connection_fails_every_pending_request_and_later_ones() {
    let now = Instant::now();
    let mut session = ready(now);
    let ids: Vec<u64> = (0..3).map(|_| session.request(now, "tools/call", json!({})).unwrap().0).collect();
    session.fail_all(McpError::ServerExited { status: "exit status: 3".into(), stderr_tail: "boom".into() });
    let failed: Vec<u64> = events(&mut session)
        .into_iter()
        .map(|e| match e {
            SessionEvent::Completed { id, result: Err(McpError::ServerExited { .. }) } => id,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(failed, ids);
    assert!(matches!(session.request(now, "tools/list", json!({})), Err(McpError::ServerExited { .. })));
}

#[test]
fn pagination_follows_cursors_and_refuses_loops() {
    let mut pager = Pager::new();
    assert_eq!(pager.next_params(), Some(json!({})));
    pager.handle_page(&json!({"tools": [{"name": "a"}], "nextCursor": "c1"})).unwrap();
    assert_eq!(pager.next_params(), Some(json!({"cursor": "c1"})));
    pager
        .handle_page(&json!({"tools": [{"name": "b", "inputSchema": {"type": "object", "required": ["x"]}}]}))
        .unwrap();
    assert_eq!(pager.next_params(), None);
    let tools = pager.into_tools();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0].input_schema, json!({"type": "object"}), "a missing schema becomes an empty object schema");
    assert_eq!(tools[1].input_schema["required"][0], "x");

    let mut looping = Pager::new();
    looping.handle_page(&json!({"tools": [], "nextCursor": "same"})).unwrap();
    assert!(matches!(looping.handle_page(&json!({"tools": [], "nextCursor": "same"})), Err(McpError::Pagination(_))));

    let mut endless = Pager::new();
    let result = (0..200).try_for_each(|n| endless.handle_page(&json!({"tools": [], "nextCursor": n.to_string()})));
    assert!(matches!(result, Err(McpError::Pagination(reason)) if reason.contains("100")));
    assert!(Pager::new().handle_page(&json!({"nope": []})).is_err());
}

#[test]
fn parse_errors_are_typed_and_never_panic() {
    let cases: [(&[u8], ParseError); 10] = [
        (b"not json", ParseError::Json(String::new())),
        (b"[1]", ParseError::Batch),
        (b"42", ParseError::NotAnObject),
        (br#"{"id":1,"result":{}}"#, ParseError::Version),
        (br#"{"jsonrpc":"2.0","method":5}"#, ParseError::Method),
        (br#"{"jsonrpc":"2.0","method":"m","params":3}"#, ParseError::Params),
        (br#"{"jsonrpc":"2.0","result":{}}"#, ParseError::MissingId),
        (br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#, ParseError::ResultAndError),
        (br#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#, ParseError::ErrorObject),
        (br#"{"jsonrpc":"2.0","id":1}"#, ParseError::Unrecognized),
    ];
    for (bytes, expected) in cases {
        let got = Message::parse(bytes).unwrap_err();
        match expected {
            ParseError::Json(_) => assert!(matches!(got, ParseError::Json(_))),
            expected => assert_eq!(got, expected, "{}", String::from_utf8_lossy(bytes)),
        }
    }
    assert_eq!(
        Message::parse(br#" {"jsonrpc":"2.0","id":"x","method":"ping"} "#).unwrap(),
        Message::Request { id: Id::Str("x".into()), method: "ping".into(), params: None }
    );
    assert_eq!(
        Message::parse_batch(br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]"#).unwrap().len(),
        2
    );
}

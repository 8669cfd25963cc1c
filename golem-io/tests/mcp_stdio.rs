//! The stdio transport against the official MCP Python SDK (the fixture
//! server) and a hand-written misbehaving fake (SPEC MCP-02..06, MCP-09).
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_io::mcp::{CallOptions, ClientOptions, LogMessage, McpClient, McpError, StdioConfig};
use golem_io::CancellationToken;
use mcp_support::{alive, eventually, fake_config, options, stdio_client, stdio_config};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn handshake_listing_and_calls_against_the_reference_server() {
    let client = stdio_client(&[]);
    let info = client.server_info().unwrap();
    assert_eq!((info.name.as_str(), info.version.as_str()), ("golem-fixture", "1.0.0"));
    assert_eq!(info.protocol_version, "2025-11-25");
    assert_eq!(info.instructions.as_deref(), Some("Test tools for golem."));
    let names: Vec<String> = client.list_tools().unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, mcp_support::TOOLS);

    assert_eq!(text(&client.call_tool("echo", json!({"text": "hi", "upper": true}), None).unwrap()), "HI");
    assert_eq!(client.call_tool("add", json!({"a": 2, "b": 40}), None).unwrap()["structuredContent"]["result"], 42);
    let image = client.call_tool("image", Value::Null, None).unwrap();
    assert_eq!(image["content"][0]["mimeType"], "image/png");
    let failed = client.call_tool("fail", json!({"msg": "boom"}), None).unwrap();
    assert_eq!(
        (failed["isError"].as_bool(), text(&failed)),
        (Some(true), "Error executing tool fail: failing on purpose: boom")
    );
    let unknown = client.call_tool("nope", json!({}), None).unwrap();
    assert_eq!((unknown["isError"].as_bool(), text(&unknown)), (Some(true), "Unknown tool: nope"));
    let error = client.request("no/such/method", json!({}), None).unwrap_err();
    assert!(matches!(error, McpError::Protocol { code: -32601, .. }), "{error:?}");
    assert_eq!(client.request("ping", json!({}), None).unwrap(), json!({}));
}

#[test]
fn pages_are_followed_to_the_end() {
    let client = stdio_client(&["--page-size", "3"]);
    assert_eq!(client.list_tools().unwrap().len(), mcp_support::TOOLS.len());
}

#[test]
fn server_logs_reach_the_sink_and_list_changed_marks_the_tools_stale() {
    let logs: Arc<Mutex<Vec<LogMessage>>> = Arc::default();
    let sink = Arc::clone(&logs);
    let options = options().on_log(move |log| sink.lock().unwrap().push(log.clone()));
    let client = McpClient::stdio(stdio_config(&[]), options).unwrap();
    assert_eq!(text(&client.call_tool("shout", json!({"text": "hey"}), None).unwrap()), "HEY");
    assert!(eventually(Duration::from_secs(5), || !logs.lock().unwrap().is_empty()));
    let log = logs.lock().unwrap()[0].clone();
    assert_eq!(
        (log.level.as_str(), log.logger.as_deref(), log.data.as_str()),
        ("warning", Some("fixture"), Some("shouting hey"))
    );
    assert!(!client.tools_changed());
    client.call_tool("changed", json!({}), None).unwrap();
    assert!(client.tools_changed());
}

#[test]
fn a_timed_out_call_fails_alone_and_the_session_goes_on() {
    let client = stdio_client(&[]);
    let start = Instant::now();
    let params = json!({"name": "slow", "arguments": {"seconds": 5}});
    let error = client.request_with_timeout("tools/call", params, Duration::from_millis(400), None).unwrap_err();
    assert!(matches!(&error, McpError::Timeout { method, .. } if method == "tools/call"), "{error:?}");
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_eq!(text(&client.call_tool("echo", json!({"text": "still here"}), None).unwrap()), "still here");
}

#[test]
fn a_canceled_call_returns_at_once() {
    let client = stdio_client(&[]);
    let token = CancellationToken::new();
    let canceller = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let start = Instant::now();
    let error = client.call_tool("slow", json!({"seconds": 10}), Some(&token)).unwrap_err();
    assert!(matches!(error, McpError::Canceled { .. }), "{error:?}");
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_eq!(text(&client.call_tool("echo", json!({"text": "ok"}), None).unwrap()), "ok");
}

#[test]
fn parallel_calls_are_not_serialized() {
    let client = Arc::new(stdio_client(&[]));
    let start = Instant::now();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let client = Arc::clone(&client);
            std::thread::spawn(move || client.call_tool("slow", json!({"seconds": 1}), None))
        })
        .collect();
    for handle in handles {
        assert_eq!(text(&handle.join().unwrap().unwrap()), "slept 1.0");
    }
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
}

#[test]
fn a_server_that_exits_mid_call_fails_every_pending_request() {
    let client = Arc::new(stdio_client(&[]));
    let waiting = Arc::clone(&client);
    let bystander = std::thread::spawn(move || waiting.call_tool("slow", json!({"seconds": 30}), None));
    std::thread::sleep(Duration::from_millis(300));
    let error = client.call_tool("die", json!({}), None).unwrap_err();
    match &error {
        McpError::ServerExited { status, stderr_tail } => {
            assert_eq!(status, "exit status: 3");
            assert!(stderr_tail.contains("fixture: dying on purpose"), "{stderr_tail:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(bystander.join().unwrap(), Err(McpError::ServerExited { .. })));
    assert!(matches!(client.list_tools(), Err(McpError::ServerExited { .. })));
}

#[test]
fn a_server_killed_mid_call_is_a_typed_error() {
    let client = Arc::new(stdio_client(&[]));
    let pid = client.process_id().unwrap();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    });
    let start = Instant::now();
    let error = client.call_tool("slow", json!({"seconds": 30}), None).unwrap_err();
    killer.join().unwrap();
    assert!(matches!(&error, McpError::ServerExited { status, .. } if status.contains("9")), "{error:?}");
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn close_leaves_no_process_behind_and_is_idempotent() {
    let client = stdio_client(&[]);
    let pid = client.process_id().unwrap();
    assert!(alive(pid));
    let start = Instant::now();
    client.close();
    assert!(start.elapsed() < Duration::from_secs(4), "the SDK server exits when stdin closes, no SIGKILL needed");
    assert!(!alive(pid));
    client.close();
    assert!(matches!(client.list_tools(), Err(McpError::Closed)));

    let dropped = stdio_client(&[]);
    let pid = dropped.process_id().unwrap();
    drop(dropped);
    assert!(!alive(pid));
}

#[test]
fn a_server_ignoring_eof_and_sigterm_is_killed() {
    let client = McpClient::stdio(fake_config("stubborn"), options()).unwrap();
    let pid = client.process_id().unwrap();
    let start = Instant::now();
    client.close();
    let took = start.elapsed();
    assert!(took >= Duration::from_secs(4) && took < Duration::from_secs(7), "{took:?}");
    assert!(!alive(pid));
}

#[test]
fn non_json_stdout_is_skipped_and_logged_and_decoy_ids_are_ignored() {
    let notes: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&notes);
    let options = options().on_log(move |log| sink.lock().unwrap().push(log.data.to_string()));
    let client = McpClient::stdio(fake_config("garbage"), options).unwrap();
    assert_eq!(client.list_tools().unwrap().len(), 2);
    let echoed = client.call_tool("echo", json!({"text": "through the noise"}), None).unwrap();
    assert_eq!(text(&echoed), "through the noise");
    let notes = notes.lock().unwrap();
    assert!(notes.iter().any(|n| n.contains("not JSON-RPC") && n.contains("this is not JSON")), "{notes:?}");
}

#[test]
fn fake_server_exit_and_stderr_tail() {
    let client = McpClient::stdio(fake_config("exit-mid-call"), options()).unwrap();
    match client.call_tool("echo", json!({}), None).unwrap_err() {
        McpError::ServerExited { status, stderr_tail } => {
            assert_eq!(status, "exit status: 5");
            assert_eq!(stderr_tail, "fake: exiting mid-call\n");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hung_call_times_out_and_the_server_hears_about_it() {
    // The short bound is the call's own, so a slow interpreter start on a
    // loaded machine cannot time out the handshake instead.
    let client = McpClient::stdio(fake_config("hang"), options()).unwrap();
    let short = CallOptions::new().timeout(Duration::from_millis(300));
    assert!(matches!(client.call_tool_with("echo", json!({}), &short), Err(McpError::Timeout { .. })));
    let token = CancellationToken::new();
    token.cancel();
    assert!(matches!(client.call_tool("echo", json!({}), Some(&token)), Err(McpError::Canceled { .. })));
    let seen: Value = serde_json::from_str(text(&client.call_tool("cancelled", json!({}), None).unwrap())).unwrap();
    assert_eq!(seen, json!([{"requestId": 2, "reason": "timed out after 300ms"}]));
}

#[test]
fn server_requests_mid_call_get_pong_and_method_not_found() {
    let client = McpClient::stdio(fake_config("server-requests"), options()).unwrap();
    let replies: Value = serde_json::from_str(text(&client.call_tool("echo", json!({}), None).unwrap())).unwrap();
    assert_eq!(replies[0], json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}}));
    assert_eq!(replies[1]["id"], 7);
    assert_eq!(replies[1]["error"]["code"], -32601);
}

#[test]
fn protocol_versions_are_negotiated() {
    let legacy = McpClient::stdio(fake_config("version:2024-11-05"), options()).unwrap();
    assert_eq!(legacy.server_info().unwrap().protocol_version, "2024-11-05");
    let error = McpClient::stdio(fake_config("version:1999-01-01"), options()).unwrap_err();
    assert!(matches!(&error, McpError::UnsupportedProtocolVersion { version } if version == "1999-01-01"), "{error:?}");
}

#[test]
fn an_over_long_line_is_a_typed_error() {
    let client = McpClient::stdio(fake_config("long-line"), options()).unwrap();
    assert!(
        matches!(client.call_tool("echo", json!({}), None), Err(McpError::LineTooLong { limit }) if limit == 32 << 20)
    );
}

#[test]
fn working_directory_and_environment() {
    let dir = std::env::temp_dir().canonicalize().unwrap();
    let config = fake_config("plain")
        .dir(&dir)
        .clear_env()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GOLEM_FAKE", "yes");
    let client = McpClient::stdio(config, options()).unwrap();
    let seen: Value = serde_json::from_str(text(&client.call_tool("whereami", json!({}), None).unwrap())).unwrap();
    assert_eq!(seen["cwd"], dir.display().to_string());
    assert_eq!(seen["env"]["GOLEM_FAKE"], "yes");
    assert!(seen["env"].get("HOME").is_none(), "the environment was cleared");

    std::env::var("HOME").expect("HOME is set for this test");
    let inherited = McpClient::stdio(fake_config("plain").env("GOLEM_FAKE", "1"), options()).unwrap();
    let seen: Value = serde_json::from_str(text(&inherited.call_tool("whereami", json!({}), None).unwrap())).unwrap();
    assert!(seen["env"].get("HOME").is_some() && seen["env"]["GOLEM_FAKE"] == "1");
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    let error = McpClient::stdio(StdioConfig::new("/nonexistent/golem-mcp-server"), ClientOptions::new()).unwrap_err();
    assert!(matches!(&error, McpError::Spawn { program, .. } if program == "/nonexistent/golem-mcp-server"), "{error}");
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
fn mcp_05_an_exit_is_seen_at_once_while_a_helper_holds_stdout_and_close_kills_the_helper() {
    let client = McpClient::stdio(fake_config("exit-leaving-helper"), options()).unwrap();
    let start = Instant::now();
    let error = client.call_tool("echo", json!({}), None).unwrap_err();
    let McpError::ServerExited { status, stderr_tail } = &error else { panic!("{error:?}") };
    assert_eq!(status, "exit status: 4");
    assert!(start.elapsed() < Duration::from_secs(3), "seen by the exit watcher, not at the timeout");
    assert!(matches!(client.list_tools(), Err(McpError::ServerExited { .. })), "the session is over");
    let helper: u32 = stderr_tail
        .lines()
        .find_map(|line| line.strip_prefix("fake: helper "))
        .and_then(|pid| pid.trim().parse().ok())
        .unwrap_or_else(|| panic!("{stderr_tail:?}"));
    assert!(alive(helper), "the helper still holds the pipes");
    client.close();
    assert!(eventually(Duration::from_secs(10), || !alive(helper)));
}

#[test]
fn mcp_05_a_server_that_closes_its_stdin_fails_requests_at_once() {
    let client = Arc::new(McpClient::stdio(fake_config("close-stdin"), options()).unwrap());
    let start = Instant::now();
    let callers: Vec<_> = (0..3)
        .map(|_| {
            let client = Arc::clone(&client);
            std::thread::spawn(move || client.list_tools())
        })
        .collect();
    for caller in callers {
        let error = caller.join().unwrap().unwrap_err();
        assert!(matches!(error, McpError::StdinClosed), "{error:?}");
    }
    assert!(matches!(client.call_tool("echo", json!({}), None), Err(McpError::StdinClosed)));
    assert!(start.elapsed() < Duration::from_secs(5), "not at the 60 s timeout: {:?}", start.elapsed());
    let pid = client.process_id().unwrap();
    assert!(alive(pid), "the server itself still runs");
    client.close();
    assert!(!alive(pid));
}

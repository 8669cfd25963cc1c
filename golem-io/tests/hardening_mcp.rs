//! The MCP client against a hostile stdio server (issue 15 items 1 and 5):
//! helpers it leaves behind die with it, a server that stops reading
//! cannot make the client queue without bound, and a huge tool result
//! reaches the model capped.
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_core::testing::ScriptedModel;
use golem_core::Role;
use golem_io::mcp::{
    BridgeOptions, LogMessage, McpBridge, McpClient, McpError, StdioConfig, DEFAULT_MAX_RESULT_BYTES, MAX_QUEUED,
};
use golem_io::Agent;
use mcp_support::{alive, eventually, options, python};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn hostile(mode: &[&str]) -> StdioConfig {
    StdioConfig::new(python()).arg(mcp_support::fixtures().join("hostile.py")).args(mode)
}

/// Kills a stray helper if the test fails before it is gone.
struct Reap(u32);

impl Drop for Reap {
    fn drop(&mut self) {
        if alive(self.0) {
            let _ = std::process::Command::new("kill").arg("-9").arg(self.0.to_string()).status();
        }
    }
}

#[test]
fn a_helper_the_server_leaves_behind_is_gone_after_close() {
    let client = McpClient::stdio(hostile(&["orphan-helper"]), options()).unwrap();
    let result = client.call_tool("helper_pid", json!({}), None).unwrap();
    let pid: u32 = result["content"][0]["text"].as_str().unwrap().parse().unwrap();
    let _reap = Reap(pid);
    assert!(alive(pid), "the helper runs while the server does");
    // The server exits at once on stdin EOF; its helper would live on.
    client.close();
    assert!(eventually(Duration::from_secs(10), || !alive(pid)), "helper {pid} outlived close()");
}

#[test]
fn a_server_that_stops_reading_gets_a_bounded_backlog_and_a_typed_error() {
    let logs: Arc<Mutex<Vec<LogMessage>>> = Arc::default();
    let sink = Arc::clone(&logs);
    let options = options().on_log(move |log| sink.lock().unwrap().push(log.clone()));
    // 60 000 pings with 200-byte ids: ~15 MB of replies nobody reads.
    let client = McpClient::stdio(hostile(&["deaf", "60000"]), options).unwrap();
    let flooded = |logs: &[LogMessage]| logs.iter().any(|l| l.data.as_str() == Some("flooded"));
    assert!(
        eventually(Duration::from_secs(120), || flooded(&logs.lock().unwrap())),
        "the flood ends with a log message"
    );
    let dropped: Vec<String> = logs
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.logger.as_deref() == Some("golem.mcp"))
        .map(|l| l.data.to_string())
        .collect();
    assert_eq!(dropped.len(), 1, "dropped replies are reported once: {dropped:?}");
    assert!(dropped[0].contains("not reading its input"), "{dropped:?}");
    // A request now fails at once with a typed error instead of queueing
    // behind megabytes until its timeout.
    let error = client.call_tool("huge", json!({}), None).unwrap_err();
    assert!(matches!(error, McpError::OutgoingQueueFull { limit } if limit == MAX_QUEUED), "{error:?}");
    client.close();
}

/// The text the model reads from one call of the bridged `huge` tool.
fn huge_call(client: &Arc<McpClient>, options: BridgeOptions, args: serde_json::Value) -> String {
    let bridge = McpBridge::with_options(Arc::clone(client), options).unwrap();
    let model = ScriptedModel::new().tool_call("huge", args.to_string()).text("done");
    // The agent's own cap (CAP-01, 1 MiB by default) is raised so what the
    // model reads is the bridge's cut, which this file tests.
    let agent = Agent::<()>::builder(model).tools(bridge.tools()).max_tool_result_bytes(8u64 << 20).build().unwrap();
    let result = agent.run((), "call it").unwrap();
    result.messages.iter().find(|m| m.role == Role::Tool).unwrap().content.clone()
}

#[test]
fn a_huge_tool_result_reaches_the_model_capped() {
    let client = Arc::new(McpClient::stdio(hostile(&["orphan-helper"]), options()).unwrap());
    // 3 MiB of text against the default 1 MiB cap.
    let text = huge_call(&client, BridgeOptions::new(), json!({"bytes": 3 << 20}));
    assert_eq!(text.len(), DEFAULT_MAX_RESULT_BYTES + "\n\n[mcp: result truncated at 1048576 bytes]".len());
    assert!(text.ends_with("xx\n\n[mcp: result truncated at 1048576 bytes]"));
    // An isError explanation is capped the same way; the cap is an option.
    let capped = BridgeOptions::new().max_result_bytes(1000);
    let text = huge_call(&client, capped.clone(), json!({"bytes": 5000, "error": true}));
    assert!(text.starts_with("tool huge failed: xxx"), "a failed result: {}", &text[..40]);
    assert!(text.len() < 1100 && text.ends_with("x\n\n[mcp: result truncated at 1000 bytes]"), "{text}");
    assert_eq!(huge_call(&client, capped, json!({"bytes": 10})), "xxxxxxxxxx", "under the cap: untouched");
    client.close();
}

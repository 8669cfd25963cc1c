//! MCP client over stdio (EX-07): this binary re-runs itself with `--serve`
//! as a tiny MCP server with one tool; the parent connects to it, bridges
//! its tool into an agent and lets a scripted model call it. Offline.

use golem_io::mcp::{ClientOptions, McpBridge, McpClient, Message, StdioConfig};
use golem_io::testing::TestModel;
use golem_io::Agent;
use golem_io::Role;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some("--serve") {
        return serve();
    }
    let server = StdioConfig::new(std::env::current_exe()?).arg("--serve");
    let client = Arc::new(McpClient::stdio(server, ClientOptions::new())?);
    let info = client.server_info().ok_or("no server info")?;
    println!("connected to {} {} (protocol {})", info.name, info.version, info.protocol_version);

    let bridge = McpBridge::new(Arc::clone(&client))?;
    for tool in bridge.listed() {
        println!("bridged tool: {} — {}", tool.name, tool.server.description);
    }
    let agent = Agent::<()>::builder(TestModel::new()).tools(bridge.tools()).build()?;
    let result = agent.run((), "Reverse something for me.")?;
    for message in result.messages.iter().filter(|m| m.role == Role::Tool) {
        println!("tool {} answered: {}", message.tool_name, message.content);
    }
    println!("output: {}", result.output);
    client.close();
    println!("server closed");
    Ok(())
}

/// The server side: newline-delimited JSON-RPC on stdin/stdout, one tool.
fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let Ok(Message::Request { id, method, params }) = Message::parse(line?.as_bytes()) else { continue };
        let params = params.unwrap_or(Value::Null);
        let result = match method.as_str() {
            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                   "serverInfo": {"name": "reverser", "version": "1.0"}}),
            "tools/list" => json!({"tools": [{"name": "reverse", "description": "Reverse a text.",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "default": "golem"}},
                                "required": ["text"]}}]}),
            "tools/call" => {
                let text = params["arguments"]["text"].as_str().unwrap_or_default();
                json!({"content": [{"type": "text", "text": text.chars().rev().collect::<String>()}]})
            }
            "ping" => json!({}),
            _ => continue,
        };
        let mut out = stdout.lock();
        out.write_all(&Message::Response { id, result }.to_bytes())?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(())
}

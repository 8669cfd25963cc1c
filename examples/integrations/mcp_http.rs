//! MCP client over streamable HTTP (EX-08): this binary serves a tiny MCP
//! server on 127.0.0.1:0 from a thread, then bridges its own tool into an
//! agent and lets a scripted model call it. The call's answer comes as an
//! SSE stream with a log message before the result. Offline.

use golem_io::mcp::{ClientOptions, HttpConfig, McpBridge, McpClient, Message};
use golem_io::testing::TestModel;
use golem_io::Agent;
use golem_io::Role;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream));
        }
    });
    println!("serving MCP on {url}");

    let options = ClientOptions::new()
        .on_log(|log| println!("server log ({}): {}", log.level, log.data.as_str().unwrap_or("(structured)")));
    let client = Arc::new(McpClient::http(HttpConfig::new(&url), options)?);
    let info = client.server_info().ok_or("no server info")?;
    println!("connected to {} (protocol {})", info.name, info.protocol_version);
    let bridge = McpBridge::new(Arc::clone(&client))?;
    for tool in bridge.listed() {
        println!("bridged tool: {} — {}", tool.name, tool.server.description);
    }
    let agent = Agent::<()>::builder(TestModel::new()).tools(bridge.tools()).build()?;
    let result = agent.run((), "Shout something.")?;
    for message in result.messages.iter().filter(|m| m.role == Role::Tool) {
        println!("tool {} answered: {}", message.tool_name, message.content);
    }
    println!("output: {}", result.output);
    client.close();
    println!("session deleted");
    Ok(())
}

/// One connection: HTTP/1.1 requests until the client hangs up.
fn serve(stream: TcpStream) {
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    while let Some((method, body)) = read_request(&mut reader) {
        let response = match method.as_str() {
            "DELETE" => "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_string(),
            // No standalone stream for server messages outside requests;
            // the client takes 405 as "none on offer".
            "GET" => "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n".to_string(),
            _ => answer(&body),
        };
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// The HTTP method and body of the next request.
fn read_request(reader: &mut impl BufRead) -> Option<(String, Vec<u8>)> {
    let mut line = String::new();
    reader.read_line(&mut line).ok().filter(|n| *n > 0)?;
    let method = line.split(' ').next()?.to_string();
    let mut length = 0;
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        match line.trim_end().split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("content-length") => length = value.trim().parse().ok()?,
            Some(_) => {}
            None => break,
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((method, body))
}

/// The HTTP response to one JSON-RPC message.
fn answer(body: &[u8]) -> String {
    let Ok(Message::Request { id, method, params }) = Message::parse(body) else {
        return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_string();
    };
    let params = params.unwrap_or(Value::Null);
    let json_response = |result: Value, extra: &str| {
        let body = String::from_utf8_lossy(&Message::Response { id: id.clone(), result }.to_bytes()).into_owned();
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    match method.as_str() {
        "initialize" => json_response(
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "logging": {}},
                   "serverInfo": {"name": "shouter", "version": "1.0"}}),
            "Mcp-Session-Id: session-1\r\n",
        ),
        "tools/list" => json_response(
            json!({"tools": [{"name": "shout", "description": "Upper-case a text.",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "default": "hello"}}}}]}),
            "",
        ),
        "tools/call" => {
            let text = params["arguments"]["text"].as_str().unwrap_or_default().to_uppercase();
            let log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "shouting"}});
            let result = Message::Response { id, result: json!({"content": [{"type": "text", "text": text}]}) };
            let events = format!(
                "event: message\ndata: {log}\n\nevent: message\ndata: {}\n\n",
                String::from_utf8_lossy(&result.to_bytes())
            );
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\n\r\n{events}",
                events.len()
            )
        }
        _ => json_response(json!({}), ""),
    }
}

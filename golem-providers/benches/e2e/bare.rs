//! The hand-written client golem is measured against: the same transports
//! (so the same sockets, pool and HTTP code), no golem machinery — build
//! the JSON, POST, parse, call the tool, POST again.

use golem_providers::http::{HeaderValue, HttpRequest};
use golem_providers::transport::{AsyncTransport, Transport};
use golem_providers::Secret;
use serde_json::{json, Value};

pub fn tools() -> Value {
    json!([{"type": "function", "function": {
        "name": "lookup",
        "description": "Look a number up.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    }}])
}

/// The tool both clients call.
pub fn lookup(args: &Value) -> String {
    format!("looked up {}", args["n"].as_u64().unwrap_or(0) * 2)
}

fn request(url: &str, messages: &[Value], tools: &Value, stream: bool) -> HttpRequest {
    let mut body = json!({"model": "m", "messages": messages, "tools": tools});
    if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    let body = serde_json::to_vec(&body).expect("JSON");
    let request = HttpRequest::post_json(format!("{url}/chat/completions"), body, stream)
        .with_header("authorization", HeaderValue::Secret(Secret::new("Bearer k")));
    if with_deadline() {
        return request.with_timeout(std::time::Duration::from_secs(300));
    }
    request
}

/// `GOLEM_BENCH_BARE_TIMEOUT=1`: give each request golem's default 300 s
/// deadline. Off by default, as a hand-written loop rarely sets one; on, it
/// isolates what the deadline costs the transport. Read once, so the
/// baseline's requests do not pay for an environment lookup each.
fn with_deadline() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("GOLEM_BENCH_BARE_TIMEOUT").is_ok_and(|v| v == "1"))
}

/// Take the assistant's message: with tool calls, append it and the
/// results and return `None`; else its text.
fn take(messages: &mut Vec<Value>, message: Value) -> Option<String> {
    let Some(calls) = message["tool_calls"].as_array().filter(|c| !c.is_empty()).cloned() else {
        return Some(message["content"].as_str().unwrap_or_default().to_string());
    };
    messages.push(message);
    for call in calls {
        let args: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap_or("{}")).unwrap_or_default();
        messages.push(json!({"role": "tool", "tool_call_id": call["id"], "content": lookup(&args)}));
    }
    None
}

fn message_of(body: &[u8]) -> Value {
    crate::extra_code::walk();
    let mut reply: Value = serde_json::from_slice(body).expect("a JSON reply");
    reply["choices"][0]["message"].take()
}

/// Assembles a streamed answer as its events arrive.
#[derive(Default)]
struct Assembler {
    pending: Vec<u8>,
    content: String,
    calls: Vec<Value>,
}

impl Assembler {
    fn feed(&mut self, chunk: &[u8]) {
        self.pending.extend_from_slice(chunk);
        while let Some(end) = self.pending.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = self.pending.drain(..end + 2).collect();
            let Some(data) = event.strip_prefix(b"data: ") else { continue };
            let data = &data[..data.len() - 2];
            if data == b"[DONE]" {
                continue;
            }
            let Ok(chunk) = serde_json::from_slice::<Value>(data) else { continue };
            let delta = &chunk["choices"][0]["delta"];
            if let Some(text) = delta["content"].as_str() {
                self.content.push_str(text);
            }
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let index = call["index"].as_u64().unwrap_or(0) as usize;
                if self.calls.len() <= index {
                    self.calls.push(json!({"id": call["id"], "type": "function",
                        "function": {"name": call["function"]["name"], "arguments": ""}}));
                }
                let args = call["function"]["arguments"].as_str().unwrap_or_default();
                let so_far = self.calls[index]["function"]["arguments"].as_str().unwrap_or_default().to_string();
                self.calls[index]["function"]["arguments"] = json!(so_far + args);
            }
        }
    }

    fn message(self) -> Value {
        if self.calls.is_empty() {
            json!({"role": "assistant", "content": self.content})
        } else {
            json!({"role": "assistant", "content": null, "tool_calls": self.calls})
        }
    }
}

/// One run on the blocking transport.
pub fn run_blocking(transport: &dyn Transport, url: &str, tools: &Value, prompt: &str, stream: bool) -> String {
    let mut messages = vec![json!({"role": "user", "content": prompt})];
    loop {
        let response = transport.send(&request(url, &messages, tools, stream)).expect("send");
        let message = if stream {
            let mut body = response.body;
            let mut assembler = Assembler::default();
            while let Some(chunk) = body.next_chunk().expect("chunk") {
                assembler.feed(&chunk);
            }
            assembler.message()
        } else {
            message_of(&response.body.read_to_end().expect("body"))
        };
        if let Some(text) = take(&mut messages, message) {
            return text;
        }
    }
}

/// One run on the async transport.
pub async fn run_async(transport: &dyn AsyncTransport, url: &str, tools: &Value, prompt: &str, stream: bool) -> String {
    let mut messages = vec![json!({"role": "user", "content": prompt})];
    loop {
        let response = transport.send(&request(url, &messages, tools, stream)).await.expect("send");
        let message = if stream {
            let mut body = response.body;
            let mut assembler = Assembler::default();
            while let Some(chunk) = body.next_chunk().await.expect("chunk") {
                assembler.feed(&chunk);
            }
            assembler.message()
        } else {
            message_of(&response.body.read_to_end().await.expect("body"))
        };
        if let Some(text) = take(&mut messages, message) {
            return text;
        }
    }
}

//! Anthropic test support: stream events, loopback replies, clients, and
//! golem requests rebuilt from recorded Messages bodies.
#![allow(dead_code)]

use crate::server::{sse_event, Reply};
use crate::support::case_dir;
use golem_core::message::{Message, Part, Role, ThinkingBlock, ToolArgs, ToolCall};
use golem_core::model::{Request, WireToolChoice};
use golem_core::tool::ToolDefinition;
use golem_providers::anthropic::{Codec, Config, ConfigBuilder, Thinking, Tuning};
use golem_providers::transport::TransportConfig;
use golem_providers::Anthropic;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The key the loopback clients use; tests search every output for it.
pub const KEY: &str = "sk-ant-loopback-secret-4242";

/// Prompt caching is off in the shape tests and the recordings (made
/// without it); `cache_prefix.rs` tests it as it is by default, on.
pub fn builder(url: &str) -> ConfigBuilder {
    Config::builder("claude-sonnet-4-5").base_url(url).api_key(KEY).no_cache()
}

/// An Anthropic client on a loopback server with its own transports.
pub fn client(url: &str) -> Anthropic {
    client_with(builder(url))
}

pub fn client_with(builder: ConfigBuilder) -> Anthropic {
    Anthropic::new(builder.build().unwrap())
        .transport_config(TransportConfig::new().read_timeout(Duration::from_secs(10)))
}

pub fn codec() -> Codec {
    Codec::new(Config::builder("claude-sonnet-4-5").api_key(KEY).no_cache().build().unwrap())
}

pub fn codec_with(f: impl FnOnce(ConfigBuilder) -> ConfigBuilder) -> Codec {
    Codec::new(f(Config::builder("claude-sonnet-4-5").api_key(KEY).no_cache()).build().unwrap())
}

pub fn recorded(case: &str, file: &str) -> Vec<u8> {
    let path = case_dir(&format!("anthropic/{case}")).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One SSE event of `data`'s type.
pub fn event(data: &Value) -> Vec<u8> {
    let kind = data["type"].as_str().unwrap_or("message");
    [format!("event: {kind}\n").into_bytes(), sse_event(&data.to_string())].concat()
}

pub fn message_start(input: u64) -> Vec<u8> {
    event(&json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": [], "stop_reason": null,
        "usage": {"input_tokens": input, "output_tokens": 1}}}))
}

pub fn block_start(index: u64, block: Value) -> Vec<u8> {
    event(&json!({"type": "content_block_start", "index": index, "content_block": block}))
}

pub fn block_delta(index: u64, delta: Value) -> Vec<u8> {
    event(&json!({"type": "content_block_delta", "index": index, "delta": delta}))
}

pub fn block_stop(index: u64) -> Vec<u8> {
    event(&json!({"type": "content_block_stop", "index": index}))
}

pub fn message_delta(stop_reason: &str, output: u64) -> Vec<u8> {
    event(&json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": output}}))
}

pub fn message_stop() -> Vec<u8> {
    event(&json!({"type": "message_stop"}))
}

/// A text answer as a whole SSE stream: `first` then `rest`.
pub fn text_stream(first: &str, rest: &str) -> Vec<u8> {
    [
        message_start(5),
        block_start(0, json!({"type": "text", "text": ""})),
        block_delta(0, json!({"type": "text_delta", "text": first})),
        block_delta(0, json!({"type": "text_delta", "text": rest})),
        block_stop(0),
        message_delta("end_turn", 2),
        message_stop(),
    ]
    .concat()
}

/// A Messages body answering `text`.
pub fn text_body(text: &str) -> String {
    message_body(json!([{"type": "text", "text": text}]), "end_turn").to_string()
}

/// A Messages body with `content` blocks.
pub fn message_body(content: Value, stop_reason: &str) -> Value {
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": 2}})
}

/// The streamed form of a whole answer of `content` blocks (each text,
/// thinking and tool input split in two deltas).
pub fn stream_of(content: &Value, stop_reason: &str) -> Vec<u8> {
    let mut out = message_start(5);
    for (i, block) in content.as_array().unwrap().iter().enumerate() {
        let i = i as u64;
        match block["type"].as_str().unwrap() {
            "text" => {
                out.extend(block_start(i, json!({"type": "text", "text": ""})));
                let text = block["text"].as_str().unwrap();
                let mid = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(n, _)| n);
                for piece in [&text[..mid], &text[mid..]] {
                    out.extend(block_delta(i, json!({"type": "text_delta", "text": piece})));
                }
            }
            "thinking" => {
                out.extend(block_start(i, json!({"type": "thinking", "thinking": "", "signature": ""})));
                out.extend(block_delta(i, json!({"type": "thinking_delta", "thinking": block["thinking"]})));
                out.extend(block_delta(i, json!({"type": "signature_delta", "signature": block["signature"]})));
            }
            "tool_use" => {
                out.extend(block_start(
                    i,
                    json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                ));
                let input = block["input"].to_string();
                let mid = input.len() / 2;
                for piece in [&input[..mid], &input[mid..]] {
                    out.extend(block_delta(i, json!({"type": "input_json_delta", "partial_json": piece})));
                }
            }
            "server_tool_use" => {
                out.extend(block_start(
                    i,
                    json!({"type": "server_tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                ));
                let input = block["input"].to_string();
                let mid = input.len() / 2;
                for piece in [&input[..mid], &input[mid..]] {
                    out.extend(block_delta(i, json!({"type": "input_json_delta", "partial_json": piece})));
                }
            }
            kind if kind.ends_with("_tool_result") => out.extend(block_start(i, block.clone())),
            other => panic!("stream_of: {other}"),
        }
        out.extend(block_stop(i));
    }
    out.extend(message_delta(stop_reason, 2));
    out.extend(message_stop());
    out
}

/// A loopback reply streaming `body` in pieces of `size` bytes.
pub fn sse_reply(body: &[u8], size: usize) -> Reply {
    Reply::sse(body.chunks(size).map(<[u8]>::to_vec))
}

/// A config like the one the recording was made with: model, max_tokens,
/// temperature and thinking from the body.
pub fn codec_for_recorded(body: &Value) -> Codec {
    let mut tuning = Tuning::new().max_tokens(body["max_tokens"].as_u64().unwrap() as u32);
    if let Some(t) = body["temperature"].as_f64() {
        tuning = tuning.temperature(t);
    }
    // The server tool versions the recording declares (`type` is the version).
    for tool in body["tools"].as_array().into_iter().flatten() {
        if let (Some(name), Some(version)) = (tool["name"].as_str(), tool["type"].as_str()) {
            let built_in = ["web_search", "web_fetch", "code_execution"].contains(&name);
            if built_in && version.starts_with(&format!("{name}_")) {
                tuning = tuning.server_tool_version(name, version);
            }
        }
    }
    let mut builder = Config::builder(body["model"].as_str().unwrap()).api_key(KEY).tuning(tuning).no_cache();
    match body["thinking"]["type"].as_str() {
        Some("enabled") => {
            let budget = body["thinking"]["budget_tokens"].as_u64().unwrap() as u32;
            builder = builder.thinking(Thinking::Enabled { budget_tokens: budget });
        }
        Some("adaptive") => builder = builder.thinking(Thinking::Adaptive),
        Some("disabled") => builder = builder.thinking(Thinking::Disabled),
        _ => {}
    }
    Codec::new(builder.build().unwrap())
}

fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        Value::Array(items) => items.clone(),
        _ => Vec::new(),
    }
}

fn text_of(content: &Value) -> String {
    blocks(content).iter().filter(|b| b["type"] == "text").map(|b| b["text"].as_str().unwrap().to_string()).collect()
}

/// A golem request equivalent to a recorded Messages body: system,
/// messages (thinking with signatures, tool calls, tool results, images),
/// tools and tool choice. Blocks golem does not model (server tools and
/// their results) are left out; `expected_body` leaves them out too.
pub fn request_from_messages(body: &Value) -> Request {
    let mut messages = Vec::new();
    match &body["system"] {
        Value::Null => {}
        system => messages.push(Message::system(text_of(system))),
    }
    let mut names: Vec<(String, String)> = Vec::new();
    for m in body["messages"].as_array().expect("messages") {
        let content = blocks(&m["content"]);
        match m["role"].as_str().unwrap() {
            "user" => {
                for result in content.iter().filter(|b| b["type"] == "tool_result") {
                    let id = result["tool_use_id"].as_str().unwrap();
                    let name = names.iter().find(|(i, _)| i == id).map(|(_, n)| n.clone()).unwrap_or_default();
                    let mut message = Message::tool_result(id, name, text_of(&result["content"]));
                    message.failed = result["is_error"].as_bool().unwrap_or(false);
                    messages.push(message);
                }
                let text = text_of(&m["content"]);
                let parts: Vec<Part> = content
                    .iter()
                    .filter(|b| b["type"] == "image")
                    .map(|b| Part::image_url(b["source"]["url"].as_str().unwrap()))
                    .collect();
                if !text.is_empty() || !parts.is_empty() {
                    messages.push(Message::user(text).with_parts(parts));
                }
            }
            "assistant" => {
                let mut message = Message::new(Role::Assistant);
                for block in &paragraphs(content) {
                    match block["type"].as_str().unwrap() {
                        "thinking" => message.thinking.push(
                            ThinkingBlock::text(block["thinking"].as_str().unwrap())
                                .with_signature(block["signature"].as_str().unwrap()),
                        ),
                        "redacted_thinking" => {
                            message.thinking.push(ThinkingBlock::redacted(block["data"].as_str().unwrap()))
                        }
                        "text" => message.content.push_str(block["text"].as_str().unwrap()),
                        "tool_use" => {
                            let (id, name) = (block["id"].as_str().unwrap(), block["name"].as_str().unwrap());
                            names.push((id.to_string(), name.to_string()));
                            message.tool_calls.push(ToolCall::new(id, name, ToolArgs::new(block["input"].to_string())));
                        }
                        _ => {}
                    }
                }
                messages.push(message);
            }
            "system" => messages.push(Message::system(text_of(&m["content"]))),
            other => panic!("unexpected role {other}"),
        }
    }
    let tools: Vec<ToolDefinition> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t.get("input_schema").is_some())
        .map(|t| {
            ToolDefinition::new(
                t["name"].as_str().unwrap(),
                t["description"].as_str().unwrap_or_default(),
                t["input_schema"].clone(),
            )
        })
        .collect();
    let mut request = Request::new(messages).with_tools(Arc::new(tools));
    match body["tool_choice"]["type"].as_str() {
        Some("auto") => request.tool_choice = Some(WireToolChoice::Auto),
        Some("tool") => {
            request.tool_choice = Some(WireToolChoice::Tool(body["tool_choice"]["name"].as_str().unwrap().into()))
        }
        _ => {}
    }
    request
}

/// An assistant turn's blocks with golem's paragraph rule applied: a text
/// block after a block of another kind, with text before, starts with
/// `"\n\n"` unless that text ends with whitespace or the block starts
/// with it; text blocks next to each other (citations) are left as they
/// are.
pub fn paragraphs(content: Vec<Value>) -> Vec<Value> {
    let mut ends_in_word = false;
    let mut after_other = false;
    let mut out = Vec::new();
    for mut block in content {
        if block["type"] != "text" {
            after_other = true;
            out.push(block);
            continue;
        }
        let text = block["text"].as_str().unwrap().to_string();
        if let Some(last) = text.chars().next_back() {
            if std::mem::take(&mut after_other) && ends_in_word && !text.starts_with(char::is_whitespace) {
                block["text"] = Value::from(format!("\n\n{text}"));
            }
            ends_in_word = !last.is_whitespace();
        }
        out.push(block);
    }
    out
}

/// The recorded body in golem's spelling: what golem sends differently
/// but to the same effect is normalised — empty tool descriptions and
/// `is_error: false` left out, a tool result's lone text block as a
/// string, a forced or `auto` tool choice left out while thinking (the
/// API refuses forcing then, PROV-ANT-04), the server tools' entries (the
/// blocks they produced stay: golem replays what it decoded), adjacent
/// texts joined (and separated as golem's decoder separates them, see
/// [`paragraphs`]), and a whitespace-only assistant text (a recorder's
/// placeholder).
pub fn expected_body(body: &Value) -> Value {
    let mut body = body.clone();
    let thinking = matches!(body["thinking"]["type"].as_str(), Some("enabled" | "adaptive"));
    let map = body.as_object_mut().unwrap();
    if thinking {
        map.remove("tool_choice");
    }
    if let Some(Value::Array(tools)) = map.get_mut("tools") {
        tools.retain(|t| t.get("input_schema").is_some());
        for tool in tools.iter_mut() {
            let tool = tool.as_object_mut().unwrap();
            tool.remove("defer_loading");
            if tool.get("description").and_then(Value::as_str) == Some("") {
                tool.remove("description");
            }
        }
    }
    for message in map["messages"].as_array_mut().unwrap() {
        let assistant = message["role"] == "assistant";
        let mut content = blocks(&message["content"]);
        if assistant {
            content = paragraphs(content);
        }
        // llm-anthropic's placeholder for an assistant turn without text.
        content.retain(|b| !(assistant && b["type"] == "text" && b["text"].as_str().unwrap().trim().is_empty()));
        content.retain(|b| match b["type"].as_str() {
            Some("text" | "thinking" | "redacted_thinking" | "tool_use" | "tool_result" | "image" | "document") => true,
            // Server tools' blocks are replayed from what golem decoded.
            Some(kind) => assistant && (kind == "server_tool_use" || kind.ends_with("_tool_result")),
            None => false,
        });
        let mut joined: Vec<Value> = Vec::new();
        for mut block in content {
            if block["type"] == "tool_result" {
                let result = block.as_object_mut().unwrap();
                if result.get("is_error") == Some(&Value::Bool(false)) {
                    result.remove("is_error");
                }
                if let Some(Value::Array(inner)) = result.get("content") {
                    if inner.iter().all(|b| b["type"] == "text") {
                        let text = text_of(&Value::Array(inner.clone()));
                        result.insert("content".into(), Value::from(text));
                    }
                }
            }
            match joined.last_mut() {
                Some(last) if last["type"] == "text" && block["type"] == "text" => {
                    let text = format!("{}{}", last["text"].as_str().unwrap(), block["text"].as_str().unwrap());
                    last["text"] = Value::from(text);
                }
                _ => joined.push(block),
            }
        }
        message["content"] = Value::Array(joined);
    }
    body
}

//! Bedrock test support: event-stream frames, loopback replies, clients,
//! and golem requests rebuilt from recorded Converse bodies.
#![allow(dead_code)]

use crate::server::{Framing, Reply};
use crate::support::case_dir;
use golem_core::builtin::{BuiltinTool, ProviderPart, ProviderPartKind, WebSearch};
use golem_core::message::{Message, Role, ThinkingBlock, ToolArgs, ToolCall};
use golem_core::model::Request;
use golem_core::tool::ToolDefinition;
use golem_providers::bedrock::{Codec, Config, ConfigBuilder, Thinking, Tuning};
use golem_providers::eventstream::{encode_frame, Header, HeaderValue};
use golem_providers::sigv4::Credentials;
use golem_providers::transport::TransportConfig;
use golem_providers::Bedrock;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

pub const KEY_ID: &str = "AKIDLOOPBACK4242";
pub const SECRET: &str = "loopback-secret-access-key-4242";
pub const TOKEN: &str = "loopback-session-token-4242";

pub fn credentials() -> Credentials {
    Credentials::new(KEY_ID, SECRET).with_session_token(TOKEN)
}

fn string(name: &str, value: &str) -> Header {
    Header { name: name.into(), value: HeaderValue::String(value.into()) }
}

/// An event frame as Bedrock sends it.
pub fn event(kind: &str, payload: &Value) -> Vec<u8> {
    let headers = vec![
        string(":event-type", kind),
        string(":content-type", "application/json"),
        string(":message-type", "event"),
    ];
    encode_frame(&headers, payload.to_string().as_bytes())
}

/// An exception frame.
pub fn exception(kind: &str, message: &str) -> Vec<u8> {
    let headers = vec![
        string(":exception-type", kind),
        string(":content-type", "application/json"),
        string(":message-type", "exception"),
    ];
    encode_frame(&headers, serde_json::json!({ "message": message }).to_string().as_bytes())
}

pub fn text_delta(index: u64, text: &str) -> Vec<u8> {
    event("contentBlockDelta", &serde_json::json!({"contentBlockIndex": index, "delta": {"text": text}}))
}

pub fn stop(reason: &str) -> Vec<u8> {
    event("messageStop", &serde_json::json!({ "stopReason": reason }))
}

pub fn metadata(input: u64, output: u64) -> Vec<u8> {
    event(
        "metadata",
        &serde_json::json!({"usage": {"inputTokens": input, "outputTokens": output, "totalTokens": input + output}, "metrics": {"latencyMs": 1}}),
    )
}

/// A text answer as a whole stream.
pub fn text_stream(text: &str) -> Vec<u8> {
    [
        event("messageStart", &serde_json::json!({"role": "assistant"})),
        text_delta(0, text),
        event("contentBlockStop", &serde_json::json!({"contentBlockIndex": 0})),
        stop("end_turn"),
        metadata(5, 2),
    ]
    .concat()
}

/// A Converse JSON body answering `text`.
pub fn text_body(text: &str) -> String {
    serde_json::json!({
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7},
        "metrics": {"latencyMs": 1}
    })
    .to_string()
}

/// An event-stream reply, chunked, one chunk per piece.
pub fn stream_reply<I: Into<Vec<u8>>>(pieces: impl IntoIterator<Item = I>) -> Reply {
    let mut reply =
        Reply::new(200).header("content-type", "application/vnd.amazon.eventstream").framing(Framing::Chunked);
    for piece in pieces {
        reply = reply.data(piece);
    }
    reply
}

/// Prompt caching is off in the shape tests and the recordings (made
/// without it); `cache_prefix.rs` tests it as it is by default, on.
pub fn builder(url: &str) -> ConfigBuilder {
    Config::builder("us-east-1", "us.anthropic.claude-sonnet-4-20250514-v1:0")
        .base_url(url)
        .credentials(credentials())
        .no_cache()
}

/// A Bedrock client on a loopback server with its own transports.
pub fn client(url: &str) -> Bedrock {
    client_with(builder(url))
}

pub fn client_with(builder: ConfigBuilder) -> Bedrock {
    Bedrock::new(builder.build().unwrap())
        .transport_config(TransportConfig::new().read_timeout(Duration::from_secs(10)))
}

pub fn codec() -> Codec {
    Codec::new(builder("https://bedrock-runtime.us-east-1.amazonaws.com").build().unwrap())
}

pub fn recorded(case: &str, file: &str) -> Vec<u8> {
    let path = case_dir(&format!("bedrock/{case}")).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The codec config a recorded body implies: its model (from the
/// manifest URI), inference settings and thinking.
pub fn codec_for_recorded(case: &str, body: &Value) -> Codec {
    let manifest: Value = serde_json::from_slice(&recorded(case, "manifest.json")).unwrap();
    let uri = manifest["interactions"][0]["uri"].as_str().unwrap();
    let model = uri.split("/model/").nth(1).unwrap().split('/').next().unwrap().replace("%3A", ":");
    let mut tuning = Tuning::new();
    let inference = &body["inferenceConfig"];
    if let Some(t) = inference["temperature"].as_f64() {
        tuning = tuning.temperature(t);
    }
    if let Some(p) = inference["topP"].as_f64() {
        tuning = tuning.top_p(p);
    }
    if let Some(m) = inference["maxTokens"].as_u64() {
        tuning = tuning.max_tokens(m as u32);
    }
    let mut builder = Config::builder("us-east-1", model).credentials(credentials()).tuning(tuning).no_cache();
    if let Some(budget) = body.pointer("/additionalModelRequestFields/thinking/budget_tokens").and_then(Value::as_u64) {
        builder = builder.thinking(Thinking::Enabled { budget_tokens: budget as u32 });
    }
    Codec::new(builder.build().unwrap())
}

/// A golem request equivalent to a recorded Converse body: system texts,
/// messages (tool results become tool messages named after their call;
/// Nova system tools' blocks provider parts), tools and system tools.
pub fn request_from_converse(body: &Value) -> Request {
    let mut messages: Vec<Message> = Vec::new();
    for system in body["system"].as_array().into_iter().flatten() {
        messages.push(Message::system(system["text"].as_str().unwrap()));
    }
    for turn in body["messages"].as_array().expect("messages") {
        let blocks = turn["content"].as_array().unwrap();
        match turn["role"].as_str().unwrap() {
            "user" => {
                let mut text = String::new();
                for block in blocks {
                    if let Some(result) = block.get("toolResult") {
                        let id = result["toolUseId"].as_str().unwrap();
                        let name = crate::support::tool_name(&messages, id);
                        let content: String =
                            result["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect();
                        let mut message = Message::tool_result(id, name, content);
                        message.failed = result["status"] == "error";
                        messages.push(message);
                    } else if let Some(t) = block["text"].as_str() {
                        text.push_str(t);
                    }
                }
                if !text.is_empty() {
                    messages.push(Message::user(text));
                }
            }
            "assistant" => {
                let mut message = Message::new(Role::Assistant);
                for block in blocks {
                    if let Some(kind) = server_kind(block) {
                        let inner = block.get("toolUse").or(block.get("toolResult")).unwrap();
                        let part = ProviderPart::new("bedrock", kind, block.to_string())
                            .with_id(inner["toolUseId"].as_str().unwrap())
                            .with_name(inner.get("name").or(inner.get("type")).and_then(Value::as_str).unwrap())
                            .with_at(message.content.len());
                        message.provider_parts.push(part);
                    } else if let Some(t) = block["text"].as_str() {
                        message.content.push_str(t);
                    } else if let Some(reasoning) = block.get("reasoningContent") {
                        let thinking = match reasoning["redactedContent"].as_str() {
                            Some(data) => ThinkingBlock::redacted(data),
                            None => {
                                ThinkingBlock::text(reasoning["reasoningText"]["text"].as_str().unwrap_or_default())
                                    .with_signature(
                                        reasoning["reasoningText"]["signature"].as_str().unwrap_or_default(),
                                    )
                            }
                        };
                        message.thinking.push(thinking.with_provider("bedrock"));
                    } else if let Some(call) = block.get("toolUse") {
                        message.tool_calls.push(ToolCall::new(
                            call["toolUseId"].as_str().unwrap(),
                            call["name"].as_str().unwrap(),
                            ToolArgs::from_value(&call["input"]),
                        ));
                    }
                }
                messages.push(message);
            }
            other => panic!("unexpected role {other}"),
        }
    }
    let declared = body.pointer("/toolConfig/tools").and_then(Value::as_array).into_iter().flatten();
    let builtins: Vec<BuiltinTool> = declared
        .clone()
        .filter_map(|t| match t.pointer("/systemTool/name").and_then(Value::as_str) {
            Some("nova_grounding") => Some(BuiltinTool::WebSearch(WebSearch::new())),
            Some("nova_code_interpreter") => Some(BuiltinTool::CodeExecution),
            Some(other) => panic!("unknown system tool {other}"),
            None => None,
        })
        .collect();
    let tools = declared
        .filter(|t| t.get("toolSpec").is_some())
        .map(|t| {
            ToolDefinition::new(
                t["toolSpec"]["name"].as_str().unwrap(),
                t["toolSpec"]["description"].as_str().unwrap_or_default(),
                t["toolSpec"]["inputSchema"]["json"].clone(),
            )
        })
        .collect();
    let mut request = Request::new(messages).with_builtin_tools(builtins);
    request.tools = Arc::new(tools);
    request
}

/// A Nova system tool's call or result block (as the codec tells them
/// apart: a `server_tool_use` toolUse, a typed toolResult).
fn server_kind(block: &Value) -> Option<ProviderPartKind> {
    if block.pointer("/toolUse/type").and_then(Value::as_str) == Some("server_tool_use") {
        return Some(ProviderPartKind::Call);
    }
    block.pointer("/toolResult/type").and_then(Value::as_str).map(|_| ProviderPartKind::Result)
}

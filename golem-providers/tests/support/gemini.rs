//! Gemini test support: response chunks, loopback replies, clients, and
//! golem requests rebuilt from recorded `generateContent` bodies.
#![allow(dead_code)]

use crate::server::{sse_event, Reply};
use crate::support::case_dir;
use golem_core::message::{Message, Role, ThinkingBlock, ToolArgs, ToolCall};
use golem_core::model::{Request, WireToolChoice};
use golem_core::tool::ToolDefinition;
use golem_providers::gemini::{Codec, Config, ConfigBuilder, SafetySetting};
use golem_providers::transport::TransportConfig;
use golem_providers::Gemini;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The key the loopback clients use; tests search every output for it.
pub const KEY: &str = "AIza-loopback-secret-4242";

pub fn builder(url: &str) -> ConfigBuilder {
    Config::builder("gemini-2.5-flash").base_url(url).api_key(KEY)
}

/// A Gemini client on a loopback server with its own transports.
pub fn client(url: &str) -> Gemini {
    client_with(builder(url))
}

pub fn client_with(builder: ConfigBuilder) -> Gemini {
    Gemini::new(builder.build().unwrap()).transport_config(TransportConfig::new().read_timeout(Duration::from_secs(10)))
}

pub fn codec() -> Codec {
    Codec::new(Config::builder("gemini-2.5-flash").api_key(KEY).build().unwrap())
}

pub fn codec_with(f: impl FnOnce(ConfigBuilder) -> ConfigBuilder) -> Codec {
    Codec::new(f(Config::builder("gemini-2.5-flash").api_key(KEY)).build().unwrap())
}

pub fn recorded(case: &str, file: &str) -> Vec<u8> {
    let path = case_dir(&format!("gemini/{case}")).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A response chunk with a first candidate of `parts`, and a finish
/// reason when given.
pub fn chunk(parts: Value, finish: Option<&str>) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(reason) = finish {
        candidate["finishReason"] = Value::from(reason);
    }
    json!({ "candidates": [candidate], "modelVersion": "gemini-2.5-flash" })
}

pub fn with_usage(mut chunk: Value, prompt: u64, candidates: u64) -> Value {
    chunk["usageMetadata"] =
        json!({"promptTokenCount": prompt, "candidatesTokenCount": candidates, "totalTokenCount": prompt + candidates});
    chunk
}

/// One SSE event carrying `chunk`.
pub fn event(chunk: &Value) -> Vec<u8> {
    sse_event(&chunk.to_string())
}

/// A text answer as a whole SSE stream, in two pieces.
pub fn text_stream(first: &str, rest: &str) -> Vec<u8> {
    [
        event(&chunk(json!([{ "text": first }]), None)),
        event(&with_usage(chunk(json!([{ "text": rest }]), Some("STOP")), 5, 2)),
    ]
    .concat()
}

/// A `generateContent` body answering `text`.
pub fn text_body(text: &str) -> String {
    with_usage(chunk(json!([{ "text": text }]), Some("STOP")), 5, 2).to_string()
}

/// A function-call part.
pub fn call_part(name: &str, args: Value) -> Value {
    json!({"functionCall": {"name": name, "args": args}})
}

/// An SSE reply, chunked, one chunk per piece.
pub fn stream_reply<I: Into<Vec<u8>>>(pieces: impl IntoIterator<Item = I>) -> Reply {
    Reply::sse(pieces)
}

/// A `google.rpc.Status` error body.
pub fn status_body(code: u16, status: &str, message: &str, details: Value) -> String {
    json!({"error": {"code": code, "message": message, "status": status, "details": details}}).to_string()
}

pub fn retry_info(delay: &str) -> Value {
    json!([{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}])
}

/// The recorded body with the spellings golem does not use made golem's,
/// and what golem leaves out on purpose left out: snake_case field names
/// (the Python SDK and protobuf JSON accept both), pydantic-ai's default
/// `responseModalities`, empty `generationConfig` and tool descriptions,
/// `systemInstruction.role`, empty text parts before a model turn's
/// calls, and the names of the function-response fields (golem sends
/// `result`, PROV-GEM-03; the recordings used `return_value` and
/// `output`).
pub fn expected_body(recorded: &Value) -> Value {
    let mut body = camel_case(recorded);
    let map = body.as_object_mut().unwrap();
    if let Some(Value::Object(generation)) = map.get_mut("generationConfig") {
        generation.remove("responseModalities");
        if generation.is_empty() {
            map.remove("generationConfig");
        }
    }
    if let Some(Value::Object(system)) = map.get_mut("systemInstruction") {
        system.remove("role");
    }
    for tool in map.get_mut("tools").and_then(Value::as_array_mut).into_iter().flatten() {
        let declarations = tool.get_mut("functionDeclarations").and_then(Value::as_array_mut);
        for declaration in declarations.into_iter().flatten() {
            if declaration["description"] == "" {
                declaration.as_object_mut().unwrap().remove("description");
            }
        }
    }
    for turn in map["contents"].as_array_mut().unwrap() {
        let parts = turn["parts"].as_array_mut().unwrap();
        if parts.len() > 1 {
            parts.retain(|p| p != &json!({"text": ""}));
        }
        for part in parts {
            if let Some(Value::Object(response)) = part.pointer_mut("/functionResponse/response") {
                if let Some(value) = response.remove("return_value").or_else(|| response.remove("output")) {
                    response.insert("result".into(), value);
                }
            }
        }
    }
    body
}

/// snake_case object keys as camelCase, everywhere except inside schemas
/// and arguments (whose keys are the user's).
fn camel_case(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let key = camel(k);
                    let user_data = matches!(key.as_str(), "parametersJsonSchema" | "parameters" | "args" | "response");
                    (key, if user_data { v.clone() } else { camel_case(v) })
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(camel_case).collect()),
        other => other.clone(),
    }
}

fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The codec config a recorded body implies: its model (from the
/// manifest URI), safety settings, and legacy schemas where the
/// declarations use `parameters`.
pub fn codec_for_recorded(case: &str, body: &Value) -> Codec {
    let manifest: Value = serde_json::from_slice(&recorded(case, "manifest.json")).unwrap();
    let uri = manifest["interactions"][0]["uri"].as_str().unwrap();
    let model = uri.split("/models/").nth(1).unwrap().split(':').next().unwrap();
    let mut builder = Config::builder(model).api_key(KEY);
    for setting in body["safetySettings"].as_array().into_iter().flatten() {
        builder = builder.safety_setting(SafetySetting::new(
            setting["category"].as_str().unwrap(),
            setting["threshold"].as_str().unwrap(),
        ));
    }
    let legacy = body.pointer("/tools/0/functionDeclarations/0/parameters").is_some();
    Codec::new(builder.legacy_schemas(legacy).build().unwrap())
}

/// A golem request equivalent to a recorded body: system texts, user
/// text, model turns (thought parts, text, calls with their ids and
/// signatures), function responses as tool messages answering the model
/// turn's calls by position, tools and tool choice.
#[allow(clippy::field_reassign_with_default)]
pub fn request_from_contents(body: &Value) -> Request {
    let body = camel_case(body);
    let mut messages: Vec<Message> = Vec::new();
    for part in body.pointer("/systemInstruction/parts").and_then(Value::as_array).into_iter().flatten() {
        messages.push(Message::system(part["text"].as_str().unwrap()));
    }
    let mut last_calls: Vec<ToolCall> = Vec::new();
    let mut ordinal = 0;
    for turn in body["contents"].as_array().expect("contents") {
        let parts = turn["parts"].as_array().unwrap();
        match turn["role"].as_str().unwrap() {
            "user" => {
                let mut answered = 0;
                let mut text = String::new();
                for part in parts {
                    if let Some(response) = part.get("functionResponse") {
                        let call = &last_calls[answered];
                        answered += 1;
                        let result = &response["response"];
                        let content = ["result", "return_value", "output", "error"]
                            .iter()
                            .find_map(|f| result.get(*f))
                            .map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))
                            .unwrap_or_default();
                        let mut message = Message::tool_result(&call.id, response["name"].as_str().unwrap(), content);
                        message.failed = result.get("error").is_some();
                        messages.push(message);
                    } else if let Some(t) = part["text"].as_str() {
                        text.push_str(t);
                    }
                }
                if !text.is_empty() {
                    messages.push(Message::user(text));
                }
            }
            "model" => {
                ordinal += 1;
                let mut message = Message::new(Role::Assistant);
                for part in parts {
                    let signature = part["thoughtSignature"].as_str().unwrap_or_default();
                    if let Some(call) = part.get("functionCall") {
                        // A call the API gave no id has the one decoding gives it.
                        let id = match call["id"].as_str() {
                            Some(id) => id.to_string(),
                            None => format!("call_{ordinal}_{}", message.tool_calls.len() + 1),
                        };
                        message.tool_calls.push(
                            ToolCall::new(id, call["name"].as_str().unwrap(), ToolArgs::from_value(&call["args"]))
                                .with_signature(signature),
                        );
                    } else if part["thought"] == true {
                        let mut block = ThinkingBlock::default();
                        block.text = part["text"].as_str().unwrap_or_default().into();
                        block.signature = signature.into();
                        block.provider = "gemini".into();
                        message.thinking.push(block);
                    } else if let Some(t) = part["text"].as_str() {
                        message.content.push_str(t);
                    }
                }
                last_calls = message.tool_calls.clone();
                messages.push(message);
            }
            other => panic!("unexpected role {other}"),
        }
    }
    let tools: Vec<ToolDefinition> = body
        .pointer("/tools/0/functionDeclarations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|d| {
            let schema = d.get("parametersJsonSchema").or_else(|| d.get("parameters")).cloned().unwrap_or(json!({}));
            ToolDefinition::new(d["name"].as_str().unwrap(), d["description"].as_str().unwrap_or_default(), schema)
        })
        .collect();
    let mut request = Request::new(messages);
    request.tools = Arc::new(tools);
    request.tool_choice = match body.pointer("/toolConfig/functionCallingConfig/mode").and_then(Value::as_str) {
        Some("AUTO") => Some(WireToolChoice::Auto),
        Some("ANY") => Some(WireToolChoice::Tool(
            body.pointer("/toolConfig/functionCallingConfig/allowedFunctionNames/0")
                .and_then(Value::as_str)
                .unwrap()
                .to_string(),
        )),
        _ => None,
    };
    request
}

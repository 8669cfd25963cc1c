//! What the Responses tests share: clients on loopback servers, the
//! recorded cases, golem requests from recorded bodies, and what a
//! recorded answer must decode to, read straight off its output items.
#![allow(dead_code)]

use crate::support::{case_dir, read};
use golem_core::message::{Message, Role, ThinkingBlock, ToolArgs, ToolCall};
use golem_core::model::{Request, WireToolChoice};
use golem_core::FinishReason;
use golem_providers::responses::{Codec, Config, ConfigBuilder, Tuning};
use golem_providers::transport::TransportConfig;
use golem_providers::OpenAiResponses;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

pub const KEY: &str = "sk-responses-loopback-7171";

/// A client on `url` (a loopback server's) with its own transports.
pub fn client(url: &str) -> OpenAiResponses {
    client_with(builder(url))
}

pub fn builder(url: &str) -> ConfigBuilder {
    Config::builder("gpt-test").base_url(format!("{url}/v1")).api_key(KEY)
}

pub fn client_with(builder: ConfigBuilder) -> OpenAiResponses {
    OpenAiResponses::new(builder.build().unwrap())
        .transport_config(TransportConfig::new().read_timeout(Duration::from_secs(10)))
}

pub fn codec() -> Codec {
    Codec::new(Config::builder("gpt-test").api_key(KEY).build().unwrap())
}

/// A file of recorded case `family/case`.
pub fn recorded(case: &str, file: &str) -> Vec<u8> {
    read(&case_dir(case).join(file))
}

/// A recorded interaction: its number, status and response file.
pub type Interaction = (usize, u16, String);

/// The recorded cases of the Responses API: family/case and its
/// interactions with `/responses`.
pub fn cases() -> Vec<(String, Vec<Interaction>)> {
    let mut out = Vec::new();
    for (family, prefix) in [("openai", "responses_"), ("azure", "azure_responses_"), ("errors", "openai_responses_")] {
        let dir = crate::support::fixtures_dir().join("recorded").join(family);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(prefix) && !n.ends_with(".yaml"))
            .collect();
        names.sort();
        for name in names {
            let case = format!("{family}/{name}");
            let manifest: Value = serde_json::from_slice(&recorded(&case, "manifest.json")).unwrap();
            let interactions = manifest["interactions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| i["uri"].as_str().is_some_and(|u| u.ends_with("/responses")))
                .map(|i| {
                    let n = i["n"].as_u64().unwrap() as usize;
                    (n, i["status"].as_u64().unwrap() as u16, i["response_file"].as_str().unwrap().to_string())
                })
                .collect();
            out.push((case, interactions));
        }
    }
    out
}

/// The text of an input or output message's content: a string, or its
/// text parts joined.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.get("text").or_else(|| p.get("refusal")).and_then(Value::as_str)).collect()
        }
        _ => String::new(),
    }
}

/// The golem history a recorded request body stands for: `instructions`
/// as a leading system message, messages by role, and the runs of
/// reasoning, call and service-tool items between them as assistant turns
/// (reasoning as this family keeps it; service-tool items as histories
/// from before the provider parts kept them, `redacted` blocks, which
/// still replay in place).
pub fn request_from_recorded(body: &Value) -> Request {
    let mut messages: Vec<Message> = Vec::new();
    if let Some(instructions) = body["instructions"].as_str().filter(|i| !i.is_empty()) {
        messages.push(Message::system(instructions));
    }
    let assistant = |messages: &mut Vec<Message>| -> usize {
        if messages.last().is_none_or(|m| m.role != Role::Assistant) {
            messages.push(Message::new(Role::Assistant));
        }
        messages.len() - 1
    };
    for item in body["input"].as_array().unwrap() {
        let kind = item["type"].as_str().unwrap_or("message");
        match (kind, item["role"].as_str()) {
            ("message", Some("user")) => messages.push(Message::user(content_text(&item["content"]))),
            ("message", Some("system" | "developer")) => messages.push(Message::system(content_text(&item["content"]))),
            ("message", Some("assistant")) => {
                let at = assistant(&mut messages);
                messages[at].content.push_str(&content_text(&item["content"]));
            }
            ("function_call", _) => {
                let at = assistant(&mut messages);
                let args = ToolArgs::new(item["arguments"].as_str().unwrap());
                let call = ToolCall::new(item["call_id"].as_str().unwrap(), item["name"].as_str().unwrap(), args);
                messages[at].tool_calls.push(call);
            }
            ("function_call_output", _) => {
                let id = item["call_id"].as_str().unwrap();
                let name = crate::support::tool_name(&messages, id);
                messages.push(Message::tool_result(id, name, content_text(&item["output"])));
            }
            ("reasoning", _) => {
                let at = assistant(&mut messages);
                messages[at].thinking.extend(reasoning_blocks(item));
            }
            (_, _) => {
                let at = assistant(&mut messages);
                let block = ThinkingBlock::redacted(item.to_string()).with_provider(golem_providers::responses::FAMILY);
                messages[at].thinking.push(block);
            }
        }
    }
    let tools = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "function")
        .map(|t| {
            golem_core::tool::ToolDefinition::new(
                t["name"].as_str().unwrap().to_string(),
                t["description"].as_str().unwrap_or_default().to_string(),
                t["parameters"].clone(),
            )
        })
        .collect::<Vec<_>>();
    let mut request = Request::new(messages);
    request.tool_choice = match &body["tool_choice"] {
        Value::String(s) if s == "auto" && !tools.is_empty() => Some(WireToolChoice::Auto),
        Value::Object(o) => Some(WireToolChoice::Tool(o["name"].as_str().unwrap().to_string())),
        _ => None,
    };
    request.tools = Arc::new(tools);
    if let Some(format) = body.pointer("/text/format").filter(|f| f["type"] == "json_schema") {
        request.output_schema = Some(Arc::new(golem_core::model::OutputSchema::new(
            format["name"].as_str().unwrap(),
            format["schema"].clone(),
        )));
    }
    request
}

/// A reasoning item as thinking blocks, the way this family keeps it.
pub fn reasoning_blocks(item: &Value) -> Vec<ThinkingBlock> {
    let token = golem_providers::responses::reasoning_token(item);
    let texts: Vec<&str> = item["summary"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !t.is_empty())
        .collect();
    let family = golem_providers::responses::FAMILY;
    match (texts.split_first(), token) {
        (Some((first, rest)), token) => {
            let mut blocks = vec![ThinkingBlock::text(*first).with_signature(token.unwrap_or_default())];
            blocks.extend(rest.iter().map(|t| ThinkingBlock::text(*t)));
            blocks.into_iter().map(|b| b.with_provider(family)).collect()
        }
        (None, Some(token)) => vec![ThinkingBlock::redacted(token).with_provider(family)],
        (None, None) => Vec::new(),
    }
}

/// A codec configured as the recorder's client was: the model, the
/// reasoning settings, the output limit, the web search's context size,
/// store and include.
pub fn codec_for_recorded(body: &Value) -> Codec {
    let mut tuning = Tuning::new();
    if let Some(effort) = body.pointer("/reasoning/effort").and_then(Value::as_str) {
        tuning = tuning.reasoning_effort(effort);
    }
    if let Some(summary) = body.pointer("/reasoning/summary").and_then(Value::as_str) {
        tuning = tuning.reasoning_summary(summary);
    }
    if let Some(max) = body["max_output_tokens"].as_u64() {
        tuning = tuning.max_output_tokens(max as u32);
    }
    if let Some(parallel) = body["parallel_tool_calls"].as_bool() {
        tuning = tuning.parallel_tool_calls(parallel);
    }
    let search = body["tools"].as_array().into_iter().flatten().find(|t| t["type"] == "web_search");
    if let Some(size) = search.and_then(|t| t["search_context_size"].as_str()) {
        tuning = tuning.search_context_size(size);
    }
    let include = body["include"].as_array().is_some_and(|i| i.iter().any(|v| v == "reasoning.encrypted_content"));
    let config = Config::builder(body["model"].as_str().unwrap())
        .api_key(KEY)
        .tuning(tuning)
        .store(body["store"].as_bool().unwrap_or(false))
        .encrypted_reasoning(include)
        .build()
        .unwrap();
    Codec::new(config)
}

/// What a request's input items must agree on with the recording: roles
/// and texts, calls by `call_id` with their arguments (as JSON), outputs,
/// reasoning by its encrypted content and summary texts, service-tool
/// items by type and id.
pub fn essential_input(body: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(instructions) = body["instructions"].as_str().filter(|i| !i.is_empty()) {
        out.push(json!({"role": "system", "text": instructions}));
    }
    for item in body["input"].as_array().unwrap() {
        let kind = item["type"].as_str().unwrap_or("message");
        // An assistant message without text says nothing (pydantic-ai
        // sends one before its calls).
        if kind == "message" && item["role"] == "assistant" && content_text(&item["content"]).is_empty() {
            continue;
        }
        let entry = match kind {
            "message" => {
                let role = if item["role"] == "developer" { "system" } else { item["role"].as_str().unwrap() };
                let text = content_text(&item["content"]);
                // Consecutive assistant texts are one golem message.
                if let Some(last) = out.last_mut().filter(|l| role == "assistant" && l["role"] == "assistant") {
                    last["text"] = format!("{}{text}", last["text"].as_str().unwrap()).into();
                    continue;
                }
                json!({"role": role, "text": text})
            }
            "function_call" => json!({
                "type": kind,
                "call_id": item["call_id"],
                "name": item["name"],
                "arguments": serde_json::from_str::<Value>(item["arguments"].as_str().unwrap()).unwrap(),
            }),
            "function_call_output" => {
                json!({"type": kind, "call_id": item["call_id"], "output": content_text(&item["output"])})
            }
            "reasoning" => json!({
                "type": kind,
                "encrypted_content": item["encrypted_content"],
                "summary": item["summary"].as_array().unwrap().iter().map(|p| p["text"].clone()).collect::<Vec<_>>(),
            }),
            _ => json!({"type": kind, "id": item["id"]}),
        };
        out.push(entry);
    }
    out
}

/// What a recorded response's output items say the message is, read
/// straight off them: the text, the calls, one thinking block per summary
/// text (the item's encrypted content on the first, or alone), one
/// provider part per service-tool or message item (its name, id, how
/// many thinking blocks came before it and the length of the text before
/// it — a message's own included); and the finish reason from the
/// status.
pub struct Expected {
    pub content: String,
    pub calls: Vec<(String, String, String)>,
    pub thinking: Vec<(String, Option<String>)>,
    pub parts: Vec<(String, String, usize, usize)>,
    pub finish_reason: FinishReason,
    pub usage: (u64, u64, u64, u64),
}

pub fn expected(response: &Value) -> Expected {
    let mut content = String::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    let mut parts = Vec::new();
    let mut refused = false;
    for item in response["output"].as_array().unwrap() {
        let id = item["id"].as_str().unwrap_or_default().to_string();
        match item["type"].as_str().unwrap() {
            "message" => {
                for part in item["content"].as_array().unwrap() {
                    refused |= part["type"] == "refusal";
                    content.push_str(part["text"].as_str().or(part["refusal"].as_str()).unwrap_or_default());
                }
                parts.push(("message".to_string(), id, thinking.len(), content.len()));
            }
            "function_call" => calls.push((
                item["call_id"].as_str().unwrap().to_string(),
                item["name"].as_str().unwrap().to_string(),
                item["arguments"].as_str().unwrap().to_string(),
            )),
            "reasoning" => {
                // A stream's `output_item.done` and its final response may
                // carry differently encrypted copies: the id names the item.
                let opaque = item["id"].as_str().or(item["encrypted_content"].as_str()).map(str::to_string);
                let texts: Vec<&str> = item["summary"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p["text"].as_str().unwrap())
                    .filter(|t| !t.is_empty())
                    .collect();
                if texts.is_empty() {
                    if opaque.is_some() {
                        thinking.push((String::new(), opaque));
                    }
                } else {
                    for (n, text) in texts.iter().enumerate() {
                        thinking.push((text.to_string(), if n == 0 { opaque.clone() } else { None }));
                    }
                }
            }
            other => parts.push((other.to_string(), id, thinking.len(), content.len())),
        }
    }
    let finish_reason = match (response["status"].as_str(), response.pointer("/incomplete_details/reason")) {
        (Some("incomplete"), Some(reason)) if reason == "max_output_tokens" => FinishReason::Length,
        _ if refused => FinishReason::ContentFilter,
        _ if !calls.is_empty() => FinishReason::ToolCall,
        _ => FinishReason::Stop,
    };
    let count = |p: &str| response["usage"].pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let usage = (
        count("/input_tokens"),
        count("/output_tokens"),
        count("/input_tokens_details/cached_tokens"),
        count("/output_tokens_details/reasoning_tokens"),
    );
    Expected { content, calls, thinking, parts, finish_reason, usage }
}

/// The whole response a recorded stream ends with (`response.completed`
/// or `response.incomplete`).
pub fn final_response(sse: &[u8]) -> Value {
    let text = String::from_utf8_lossy(sse);
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .filter(|e| e["type"] == "response.completed" || e["type"] == "response.incomplete")
        .map(|e| e["response"].clone())
        .next_back()
        .expect("a terminal event")
}

/// A stream of the whole response `body`, as the service would send it:
/// created, each item added and done, then completed.
pub fn stream_of(body: &Value) -> Vec<u8> {
    let mut events = vec![json!({"type": "response.created", "response": {"id": body["id"], "status": "in_progress"}})];
    for (at, item) in body["output"].as_array().unwrap().iter().enumerate() {
        events.push(json!({"type": "response.output_item.added", "output_index": at, "item": item}));
        events.push(json!({"type": "response.output_item.done", "output_index": at, "item": item}));
    }
    events.push(json!({"type": "response.completed", "response": body}));
    let mut out = Vec::new();
    for event in events {
        out.extend_from_slice(format!("event: {}\ndata: {event}\n\n", event["type"].as_str().unwrap()).as_bytes());
    }
    out
}

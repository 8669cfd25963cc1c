//! Request bodies (SPEC PROV-BR-03/04, THINK-03/04, MM-02..04, HIST-06).
//!
//! Converse takes `messages` of `user` and `assistant` turns whose
//! `content` is a list of blocks, the system texts apart (a system
//! message in the middle of the conversation joins them, in history order:
//! Converse has no system turns, SPEC MSG-08), tools under
//! `toolConfig`, sampling under `inferenceConfig` and model-specific
//! fields (thinking) under `additionalModelRequestFields`. Tool results
//! are `toolResult` blocks of a user turn, so a run of tool messages and
//! the user message after it merge into one turn, as consecutive turns of
//! one role must.

use super::config::Config;
use super::media;
use super::FAMILY;
use crate::blocks::{call_input, names_its_call, no_parts, provider_json, text_then_parts, TurnBlocks};
use crate::classify::encode_error;
use golem_core::builtin::{interleave, Piece};
use golem_core::message::{Message, ThinkingBlock};
use golem_core::model::{ModelError, Request, WireToolChoice};
use serde_json::{json, Map, Value};

/// Who takes media where, for the refusal of parts elsewhere.
const WHO: &str = "Bedrock accepts";

/// The JSON body of a Converse or ConverseStream call for `request`
/// (both take the same body; the URL tells them apart).
///
/// ```
/// use golem_providers::bedrock::{encode_body, Config};
/// use golem_providers::sigv4::Credentials;
/// use golem_core::model::Request;
/// use golem_core::Message;
///
/// let config = Config::builder("us-east-1", "amazon.nova-micro-v1:0")
///     .credentials(Credentials::new("AKID", "secret"))
///     .no_cache() // prompt caching off, for the plain shape (see `cache.rs`)
///     .build()
///     .unwrap();
/// let request = Request::new(vec![Message::system("Be brief."), Message::user("hi")]);
/// let body: serde_json::Value = serde_json::from_slice(&encode_body(&request, &config).unwrap()).unwrap();
/// assert_eq!(body, serde_json::json!({
///     "messages": [{"role": "user", "content": [{"text": "hi"}]}],
///     "system": [{"text": "Be brief."}],
/// }));
/// ```
pub fn encode_body(request: &Request, config: &Config) -> Result<Vec<u8>, ModelError> {
    serde_json::to_vec(&Value::Object(body(request, config)?)).map_err(|e| encode_error(&e.to_string()))
}

/// The body of a `count-tokens` call (SPEC PROV-BR-06): the conversation,
/// system texts and tools of `request` under `input.converse`.
pub fn encode_count_tokens_body(request: &Request, config: &Config) -> Result<Vec<u8>, ModelError> {
    let mut full = body(request, config)?;
    let mut converse = Map::new();
    for field in ["messages", "system", "toolConfig"] {
        if let Some(value) = full.remove(field) {
            converse.insert(field.to_string(), value);
        }
    }
    let body = json!({"input": {"converse": converse}});
    serde_json::to_vec(&body).map_err(|e| encode_error(&e.to_string()))
}

fn body(request: &Request, config: &Config) -> Result<Map<String, Value>, ModelError> {
    let blocks =
        // Converse has no system turns: every system text joins `system`,
        // one mid-conversation too, in history order (SPEC MSG-08).
        TurnBlocks {
            who: WHO,
            user: user_blocks,
            assistant: assistant_blocks,
            tool_result,
            results_first: None,
            mid_system: None,
        };
    let (system, turns) = blocks.encode(&request.messages)?;
    let system: Vec<Value> = system.into_iter().map(text).collect();
    let mut body = Map::new();
    let messages = turns.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect();
    body.insert("messages".into(), Value::Array(messages));
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    if let Some(tools) = tool_config(request, config)? {
        body.insert("toolConfig".into(), tools);
    }
    let mut inference = Map::new();
    config.tuning().write(&mut inference);
    if !inference.is_empty() {
        body.insert("inferenceConfig".into(), Value::Object(inference));
    }
    if let Some(thinking) = config.thinking() {
        body.insert("additionalModelRequestFields".into(), json!({"thinking": thinking.wire()}));
    }
    let extras = &config.tuning().extras;
    if let Some(guardrail) = &extras.guardrail {
        body.insert("guardrailConfig".into(), guardrail.wire());
    }
    if let Some(latency) = &extras.latency {
        body.insert("performanceConfig".into(), json!({ "latency": latency }));
    }
    let mut output = Map::new();
    if let Some(schema) = request.output_schema.as_deref() {
        // The schema travels as a string under the fixed name `output`
        // (SPEC PROV-BR-03): the golem-side name (often a Rust type path)
        // means nothing to the model and need not fit the API's naming.
        let text = serde_json::to_string(&schema.schema).map_err(|e| encode_error(&e.to_string()))?;
        output.insert(
            "textFormat".into(),
            json!({"type": "json_schema", "structure": {"jsonSchema": {"schema": text, "name": "output"}}}),
        );
    }
    if let Some(effort) = config.effort() {
        output.insert("effort".into(), effort.into());
    }
    if !output.is_empty() {
        body.insert("outputConfig".into(), Value::Object(output));
    }
    if let Some(cache) = config.cache() {
        super::cache::place(&mut body, config.model(), &cache.wire());
    }
    Ok(body)
}

/// `toolConfig` when the request has tools; the forced choice only when
/// the config sends one (SPEC PROV-BR-03, TOOL-11).
fn tool_config(request: &Request, config: &Config) -> Result<Option<Value>, ModelError> {
    if request.tools.is_empty() && request.builtin_tools.is_empty() {
        return Ok(None);
    }
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| {
            let mut spec = json!({"name": tool.name, "inputSchema": {"json": tool.parameters}});
            if !tool.description.is_empty() {
                spec["description"] = Value::from(tool.description.as_str());
            }
            json!({ "toolSpec": spec })
        })
        .collect();
    for builtin in request.builtin_tools.iter() {
        tools.push(super::builtin::tool_entry(builtin, config.model())?);
    }
    let mut tool_config = json!({ "tools": tools });
    let choice = match &request.tool_choice {
        Some(_) if !config.sends_tool_choice() => None,
        Some(WireToolChoice::Tool(name)) => Some(json!({"tool": {"name": name}})),
        Some(WireToolChoice::Auto) => Some(json!({"auto": {}})),
        None => None,
    };
    if let Some(choice) = choice {
        tool_config["toolChoice"] = choice;
    }
    Ok(Some(tool_config))
}

/// Text first (omitted when empty and there are parts), then the parts.
fn user_blocks(message: &Message, index: usize) -> Result<Vec<Value>, ModelError> {
    text_then_parts(message, index, true, text, media::block)
}

fn text(text: &str) -> Value {
    json!({ "text": text })
}

/// Reasoning first, then text and system-tool blocks, then tool calls
/// (SPEC THINK-03).
fn assistant_blocks(message: &Message, index: usize, ordinal: usize) -> Result<Vec<Value>, ModelError> {
    no_parts(message, index, WHO)?;
    let mut blocks: Vec<Value> = message.thinking.iter().filter_map(reasoning_block).collect();
    // System tools' blocks where they stood; another family's stay out.
    for piece in interleave(&message.content, &message.provider_parts, FAMILY) {
        match piece {
            Piece::Text(segment) => blocks.push(text(segment)),
            Piece::Part(part) => blocks.push(provider_json(part, index)?),
        }
    }
    for (n, call) in message.tool_calls.iter().enumerate() {
        let input = call_input(call, index, n)?;
        // A stored call without an id gets the id decoding would have given.
        let id = if call.id.is_empty() { super::call_id(ordinal, n + 1) } else { call.id.clone() };
        blocks.push(json!({"toolUse": {"toolUseId": id, "name": call.name, "input": input}}));
    }
    if blocks.is_empty() {
        // Bedrock refuses a turn without content; an empty assistant turn
        // in a history is one that said nothing.
        blocks.push(json!({"text": ""}));
    }
    Ok(blocks)
}

/// A thinking block as `reasoningContent`, or nothing when it cannot be
/// replayed here (SPEC THINK-04): blocks of another provider family are
/// dropped, as their signatures mean nothing to Bedrock; any other block
/// is replayed only when signed (or redacted). Unsigned reasoning is what
/// models without signatures (DeepSeek R1) answer with, and they refuse it
/// back ("User messages cannot contain reasoning content"): it stays in
/// the history and off the wire, as the recorded follow-up shows (issue
/// 32).
fn reasoning_block(block: &ThinkingBlock) -> Option<Value> {
    if !block.provider.is_empty() && block.provider != FAMILY {
        return None;
    }
    if !block.is_valid() {
        return None;
    }
    if !block.redacted.is_empty() {
        return Some(json!({"reasoningContent": {"redactedContent": block.redacted}}));
    }
    if block.signature.is_empty() {
        return None;
    }
    Some(json!({"reasoningContent": {"reasoningText": {"text": block.text, "signature": block.signature}}}))
}

/// A `toolResult` block: the text, then any media, and `status` error for
/// a failed result (SPEC MM-04); a video after it.
fn tool_result(message: &Message, index: usize) -> Result<Vec<Value>, ModelError> {
    names_its_call(message, index)?;
    let (videos, content): (Vec<Value>, Vec<Value>) =
        text_then_parts(message, index, true, text, media::block)?.into_iter().partition(media::is_video);
    let status = if message.failed { "error" } else { "success" };
    let mut blocks =
        vec![json!({"toolResult": {"toolUseId": message.tool_call_id, "content": content, "status": status}})];
    // Converse refuses video inside a result: it follows it in the turn.
    blocks.extend(videos);
    Ok(blocks)
}

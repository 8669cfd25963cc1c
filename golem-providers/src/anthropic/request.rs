//! Request bodies (SPEC PROV-ANT-02/03/04/07, THINK-03/04, MM-02..04,
//! HIST-06).
//!
//! The Messages API takes `user` and `assistant` turns whose `content` is
//! a list of typed blocks, the system texts apart in `system`. Tool
//! results are `tool_result` blocks of a user turn, so a run of tool
//! messages and the user message after it merge into one turn, as
//! consecutive turns of one role must.

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
const WHO: &str = "Anthropic accepts";

/// The JSON body of a Messages call for `request`, streamed or not.
///
/// ```
/// use golem_providers::anthropic::{encode_body, Config};
/// use golem_core::model::Request;
/// use golem_core::Message;
///
/// // Prompt caching off, for the plain shape (see `cache.rs` for the marks).
/// let config = Config::builder("claude-haiku-4-5").api_key("k").no_cache().build().unwrap();
/// let request = Request::new(vec![Message::system("Be brief."), Message::user("hi")]);
/// let body: serde_json::Value = serde_json::from_slice(&encode_body(&request, &config, true).unwrap()).unwrap();
/// assert_eq!(body, serde_json::json!({
///     "model": "claude-haiku-4-5",
///     "max_tokens": 1024,
///     "system": "Be brief.",
///     "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
///     "stream": true,
/// }));
/// ```
pub fn encode_body(request: &Request, config: &Config, stream: bool) -> Result<Vec<u8>, ModelError> {
    let mut body = body(request, config)?;
    body.insert("stream".into(), stream.into());
    serde_json::to_vec(&Value::Object(body)).map_err(|e| encode_error(&e.to_string()))
}

/// The body of a `count_tokens` call (SPEC PROV-ANT-07): what `request`
/// would send that counts — model, system, messages, tools, tool choice,
/// thinking — without the generation settings the endpoint refuses.
pub fn encode_count_tokens_body(request: &Request, config: &Config) -> Result<Vec<u8>, ModelError> {
    let mut body = body(request, config)?;
    body.retain(|field, _| {
        ["model", "system", "messages", "tools", "tool_choice", "thinking"].contains(&field.as_str())
    });
    serde_json::to_vec(&Value::Object(body)).map_err(|e| encode_error(&e.to_string()))
}

fn body(request: &Request, config: &Config) -> Result<Map<String, Value>, ModelError> {
    let (system, turns) = TurnBlocks {
        who: WHO,
        user: user_blocks,
        assistant: assistant_blocks,
        tool_result,
        // Tool results lead their user turn (SPEC PROV-ANT-03): the API
        // wants them before any text.
        results_first: Some(is_tool_result),
        // System messages after the conversation began stay where they
        // stood, as `system` turns (what the recorded exchanges send).
        mid_system: Some(text),
    }
    .encode(&request.messages)?;
    let mut body = Map::new();
    body.insert("model".into(), config.model().into());
    if !system.is_empty() {
        body.insert("system".into(), system.join("\n\n").into());
    }
    let messages = turns.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect();
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() || !request.builtin_tools.is_empty() {
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                let mut spec = json!({"name": tool.name, "input_schema": tool.parameters});
                if !tool.description.is_empty() {
                    spec["description"] = Value::from(tool.description.as_str());
                }
                spec
            })
            .collect();
        for builtin in request.builtin_tools.iter() {
            tools.push(super::builtin::tool_entry(builtin, &config.tuning().extras.server_tool_versions)?);
        }
        body.insert("tools".into(), Value::Array(tools));
        // Forcing only, and never while thinking: the API refuses it then
        // and the restriction of the tool list alone applies (PROV-ANT-04).
        let choice = match &request.tool_choice {
            _ if config.thinks() => None,
            Some(WireToolChoice::Tool(name)) => Some(json!({"type": "tool", "name": name})),
            Some(WireToolChoice::Auto) => Some(json!({"type": "auto"})),
            None => None,
        };
        if let Some(choice) = choice {
            body.insert("tool_choice".into(), choice);
        }
    }
    // The shared sampling fields; `max_tokens` as the request carries it.
    config.tuning().write(&mut body);
    body.insert("max_tokens".into(), config.tuning().effective_max_tokens().into());
    if let Some(thinking) = config.thinking() {
        body.insert("thinking".into(), thinking.wire());
    }
    let mut output = Map::new();
    if let Some(schema) = request.output_schema.as_deref() {
        if !schema.schema.is_object() {
            return Err(encode_error("the output schema is not a JSON object"));
        }
        output.insert("format".into(), json!({"type": "json_schema", "schema": schema.schema}));
    }
    if let Some(effort) = config.effort() {
        output.insert("effort".into(), effort.into());
    }
    if !output.is_empty() {
        body.insert("output_config".into(), Value::Object(output));
    }
    // Code execution continues in the container the history last used.
    if let Some(id) = super::builtin::latest_container(&request.messages) {
        body.insert("container".into(), id.into());
    }
    if let Some(cache) = config.cache() {
        super::cache::place(&mut body, &cache.wire());
    }
    Ok(body)
}

fn is_tool_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
}

/// Text first (omitted when empty, SPEC PROV-ANT-03), then the parts.
fn user_blocks(message: &Message, index: usize) -> Result<Vec<Value>, ModelError> {
    text_then_parts(message, index, false, text, media::block)
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// Thinking first, then text with the server tools' blocks where they
/// stood, then tool calls (SPEC THINK-03). Blocks another family's
/// built-ins left are not Anthropic's to replay and stay out.
fn assistant_blocks(message: &Message, index: usize, ordinal: usize) -> Result<Vec<Value>, ModelError> {
    no_parts(message, index, WHO)?;
    let mut blocks: Vec<Value> = message.thinking.iter().filter_map(thinking_block).collect();
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
        blocks.push(json!({"type": "tool_use", "id": id, "name": call.name, "input": input}));
    }
    Ok(blocks)
}

/// A thinking block as the API wants it back, byte for byte, or nothing
/// when it cannot be replayed here (SPEC THINK-04): blocks of another
/// provider family are dropped, as their signatures mean nothing to
/// Anthropic; a block of no known family is replayed only when signed or
/// redacted, the forms the API accepts.
fn thinking_block(block: &ThinkingBlock) -> Option<Value> {
    if !block.provider.is_empty() && block.provider != FAMILY {
        return None;
    }
    if !block.redacted.is_empty() {
        return block.text.is_empty().then(|| json!({"type": "redacted_thinking", "data": block.redacted}));
    }
    if block.signature.is_empty() {
        return None;
    }
    Some(json!({"type": "thinking", "thinking": block.text, "signature": block.signature}))
}

/// A `tool_result` block: the text, then any media, and `is_error` for a
/// failed result (SPEC MM-04).
fn tool_result(message: &Message, index: usize) -> Result<Vec<Value>, ModelError> {
    names_its_call(message, index)?;
    let mut result = json!({"type": "tool_result", "tool_use_id": message.tool_call_id});
    if message.parts.is_empty() {
        result["content"] = Value::from(message.content.as_str());
    } else {
        result["content"] = Value::Array(text_then_parts(message, index, false, text, media::block)?);
    }
    if message.failed {
        result["is_error"] = Value::Bool(true);
    }
    Ok(vec![result])
}

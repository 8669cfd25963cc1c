//! Request bodies: golem's history as input items, its tools, its output
//! schema, and the settings (SPEC PROV-RESP-01/02, MM-02..04, THINK-03/04,
//! HIST-06).
//!
//! System, user and assistant texts are input messages in their place (a
//! system message mid-conversation stays where it is); an assistant turn
//! is its carried items, its text and its `function_call`s (`replay.rs`);
//! a tool result is a `function_call_output` naming its call by
//! `call_id`. Function tools and the output schema are `strict` exactly
//! when the schema qualifies for strict mode: the API's default for tools
//! is strict, which a schema outside the subset fails (SPEC OUT-08).
//! Declared built-ins follow the function tools (`builtin.rs`).

use super::config::Config;
use super::media;
use super::replay::{assistant_items, WHO};
use crate::blocks::{names_its_call, no_parts, text_then_parts};
use crate::chat_completions::schema::{is_strict_compatible, wire_name};
use crate::classify::encode_error;
use crate::framing::failed_result;
use golem_core::message::{Message, Role};
use golem_core::model::{ModelError, Request, WireToolChoice};
use serde_json::{json, Map, Value};

/// Where a request continues a response the service kept: its id, and
/// the first message after that response's answer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Continuing<'a> {
    pub(crate) response_id: &'a str,
    pub(crate) from: usize,
}

/// The JSON body of a Responses call for `request`, streamed or not.
///
/// ```
/// use golem_providers::responses::{encode_body, Config};
/// use golem_core::model::Request;
/// use golem_core::Message;
///
/// let config = Config::builder("gpt-5-mini").api_key("k").build().unwrap();
/// let request = Request::new(vec![Message::system("Be brief."), Message::user("hi")]);
/// let body: serde_json::Value = serde_json::from_slice(&encode_body(&request, &config, true).unwrap()).unwrap();
/// assert_eq!(body, serde_json::json!({
///     "model": "gpt-5-mini",
///     "input": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
///     "include": ["reasoning.encrypted_content"],
///     "store": false,
///     "stream": true,
/// }));
/// ```
pub fn encode_body(request: &Request, config: &Config, stream: bool) -> Result<Vec<u8>, ModelError> {
    encode(request, config, stream, None)
}

/// [`encode_body`], continuing a kept response when `continuing` says so.
pub(crate) fn encode(
    request: &Request,
    config: &Config,
    stream: bool,
    continuing: Option<Continuing<'_>>,
) -> Result<Vec<u8>, ModelError> {
    let mut body = Map::new();
    body.insert("model".into(), config.model().into());
    let from = continuing.map_or(0, |c| c.from);
    body.insert("input".into(), Value::Array(input(&request.messages, from)?));
    if let Some(continuing) = continuing {
        body.insert("previous_response_id".into(), continuing.response_id.into());
    }
    let tuning = config.tuning();
    let extras = &tuning.extras;
    let mut builtins = request
        .builtin_tools
        .iter()
        .map(|tool| super::builtin::tool_entry(tool, tuning))
        .collect::<Result<Vec<_>, _>>()?;
    if !request.tools.is_empty() {
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                let mut spec = json!({
                    "type": "function",
                    "name": tool.name,
                    "parameters": tool.parameters,
                    "strict": is_strict_compatible(&tool.parameters),
                });
                if !tool.description.is_empty() {
                    spec["description"] = tool.description.as_str().into();
                }
                spec
            })
            .collect();
        tools.append(&mut builtins);
        body.insert("tools".into(), Value::Array(tools));
        let choice = match &request.tool_choice {
            Some(WireToolChoice::Tool(name)) => Some(json!({"type": "function", "name": name})),
            Some(WireToolChoice::Auto) => Some(json!("auto")),
            None => None,
        };
        if let Some(choice) = choice {
            body.insert("tool_choice".into(), choice);
        }
        if let Some(parallel) = extras.parallel_tool_calls {
            body.insert("parallel_tool_calls".into(), parallel.into());
        }
    } else if !builtins.is_empty() {
        body.insert("tools".into(), Value::Array(builtins));
    }
    if let Some(output) = request.output_schema.as_deref() {
        if !output.schema.is_object() {
            return Err(encode_error("the output schema is not a JSON object"));
        }
        let format = json!({
            "type": "json_schema",
            "name": wire_name(&output.name),
            "schema": output.schema,
            "strict": is_strict_compatible(&output.schema),
        });
        body.insert("text".into(), json!({ "format": format }));
    }
    let mut reasoning = Map::new();
    if let Some(effort) = &extras.reasoning_effort {
        reasoning.insert("effort".into(), effort.as_str().into());
    }
    if let Some(summary) = &extras.reasoning_summary {
        reasoning.insert("summary".into(), summary.as_str().into());
    }
    if !reasoning.is_empty() {
        body.insert("reasoning".into(), Value::Object(reasoning));
    }
    tuning.write(&mut body);
    for (field, value) in [
        ("truncation", &extras.truncation),
        ("service_tier", &extras.service_tier),
        ("safety_identifier", &extras.safety_identifier),
    ] {
        if let Some(value) = value {
            body.insert(field.into(), value.as_str().into());
        }
    }
    let mut include = Vec::new();
    if config.encrypted_reasoning() {
        include.push("reasoning.encrypted_content");
    }
    if super::builtin::executes_code(&request.builtin_tools) {
        include.push(super::builtin::CODE_OUTPUTS);
    }
    if !include.is_empty() {
        body.insert("include".into(), json!(include));
    }
    body.insert("store".into(), config.store().into());
    body.insert("stream".into(), stream.into());
    serde_json::to_vec(&Value::Object(body)).map_err(|e| encode_error(&e.to_string()))
}

/// The input items of `messages` from index `from` on.
fn input(messages: &[Message], from: usize) -> Result<Vec<Value>, ModelError> {
    let mut items = Vec::with_capacity(messages.len().saturating_sub(from));
    let mut ordinal = messages[..from.min(messages.len())].iter().filter(|m| m.role == Role::Assistant).count();
    for (index, message) in messages.iter().enumerate().skip(from) {
        match message.role {
            Role::System => {
                no_parts(message, index, WHO)?;
                if !message.content.is_empty() {
                    items.push(json!({"role": "system", "content": message.content}));
                }
            }
            Role::User if message.parts.is_empty() => {
                items.push(json!({"role": "user", "content": message.content}));
            }
            Role::User => {
                let content = text_then_parts(message, index, false, input_text, media::part)?;
                items.push(json!({"role": "user", "content": content}));
            }
            Role::Assistant => {
                ordinal += 1;
                assistant_items(message, index, ordinal, &mut items)?;
            }
            Role::Tool => items.push(tool_output(message, index)?),
        }
    }
    Ok(items)
}

fn input_text(text: &str) -> Value {
    json!({"type": "input_text", "text": text})
}

/// A `function_call_output`: the text (as `{"error": …}` for a failed
/// result, SPEC MM-04), or the text and the media as input content.
fn tool_output(message: &Message, index: usize) -> Result<Value, ModelError> {
    names_its_call(message, index)?;
    let text = if message.failed { failed_result(&message.content) } else { message.content.clone() };
    let output = if message.parts.is_empty() {
        Value::String(text)
    } else {
        let mut content = Vec::with_capacity(message.parts.len() + 1);
        if !text.is_empty() {
            content.push(input_text(&text));
        }
        for (n, part) in message.parts.iter().enumerate() {
            content.push(media::part(part, index, n)?);
        }
        Value::Array(content)
    };
    Ok(json!({"type": "function_call_output", "call_id": message.tool_call_id, "output": output}))
}

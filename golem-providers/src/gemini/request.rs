//! Request bodies (SPEC PROV-GEM-02..05, THINK-03/04, MM-02..04, HIST-06).
//!
//! `contents` is a list of `user` and `model` turns made of parts; system
//! texts go apart in `systemInstruction` — a system message in the middle
//! of the conversation too, as one more part of it in history order, since
//! `contents` has no system role (SPEC MSG-08) — tools under `tools`,
//! settings under `generationConfig`. Consecutive turns of one role merge, so a run
//! of tool results (function responses, a user turn) and the user message
//! after it become one turn.
//!
//! Function calls carry no ids on Gemini's side unless the API gave them
//! one, so results are correlated by position: the function responses
//! answering a model turn go in the order of its calls, whatever order
//! the tool messages are in — two calls to one tool pair correctly
//! (PROV-GEM-04). Ids the codec synthesized (`call_<t>_<n>`,
//! PROV-COMMON-06) stay in golem's history and never go on the wire.

use super::config::Config;
use super::schema::legacy_schema;
use super::{call_id, media, FAMILY};
use crate::blocks::{names_its_call, no_parts, provider_json, text_then_parts};
use crate::classify::encode_error;
use crate::framing::{tool_result_open, TOOL_RESULT_CLOSE};
use golem_core::builtin::{interleave, Piece, ProviderPartKind};
use golem_core::message::{Message, Role, ThinkingBlock};
use golem_core::model::{ModelError, Request, WireToolChoice};
use serde_json::{json, Map, Value};

/// Who takes media where, for the refusal of parts elsewhere.
const WHO: &str = "Gemini through golem takes";

/// The JSON body of a `generateContent` or `streamGenerateContent` call
/// for `request` (both take the same body; the URL tells them apart).
///
/// ```
/// use golem_providers::gemini::{encode_body, Config};
/// use golem_core::model::Request;
/// use golem_core::Message;
///
/// let config = Config::builder("gemini-2.5-flash").api_key("AIza-test").build().unwrap();
/// let request = Request::new(vec![Message::system("Be brief."), Message::user("hi")]);
/// let body: serde_json::Value = serde_json::from_slice(&encode_body(&request, &config).unwrap()).unwrap();
/// assert_eq!(body, serde_json::json!({
///     "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
///     "systemInstruction": {"parts": [{"text": "Be brief."}]},
/// }));
/// ```
pub fn encode_body(request: &Request, config: &Config) -> Result<Vec<u8>, ModelError> {
    serde_json::to_vec(&Value::Object(body(request, config)?)).map_err(|e| encode_error(&e.to_string()))
}

/// The body of a `countTokens` call (SPEC PROV-GEM-08): the whole request
/// — contents, system instruction, tools — as a `generateContentRequest`,
/// so everything the model would read is counted.
pub fn encode_count_tokens_body(request: &Request, config: &Config) -> Result<Vec<u8>, ModelError> {
    let mut inner = Map::new();
    inner.insert("model".into(), config.model_path().into());
    inner.extend(body(request, config)?);
    serde_json::to_vec(&json!({ "generateContentRequest": inner })).map_err(|e| encode_error(&e.to_string()))
}

fn body(request: &Request, config: &Config) -> Result<Map<String, Value>, ModelError> {
    let mut system = Vec::new();
    let mut contents = Contents::default();
    let mut calls: Vec<SentCall> = Vec::new();
    let mut results: Vec<(usize, &Message)> = Vec::new();
    let mut ordinal = 0;
    for (index, message) in request.messages.iter().enumerate() {
        if message.role != Role::Tool && !results.is_empty() {
            contents.push("user", function_responses(&results, &calls)?);
            results.clear();
        }
        match message.role {
            Role::System => {
                no_parts(message, index, WHO)?;
                if !message.content.is_empty() {
                    system.push(json!({"text": message.content}));
                }
            }
            Role::User => contents.push("user", user_parts(message, index)?),
            Role::Assistant => {
                ordinal += 1;
                let (parts, sent) = model_parts(message, index, ordinal)?;
                calls = sent;
                contents.push("model", parts);
            }
            Role::Tool => {
                names_its_call(message, index)?;
                results.push((index, message));
            }
        }
    }
    if !results.is_empty() {
        contents.push("user", function_responses(&results, &calls)?);
    }

    let mut body = Map::new();
    let turns = contents.0.into_iter().map(|(role, parts)| json!({"role": role, "parts": parts})).collect();
    body.insert("contents".into(), Value::Array(turns));
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({ "parts": system }));
    }
    if let Some(tools) = tools(request, config)? {
        body.insert("tools".into(), tools);
        if let Some(choice) = &request.tool_choice {
            body.insert("toolConfig".into(), tool_config(choice));
        }
    }
    if !config.safety_settings().is_empty() {
        let settings = config.safety_settings().iter().map(|s| s.wire()).collect();
        body.insert("safetySettings".into(), Value::Array(settings));
    }
    let generation = generation_config(request, config)?;
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Ok(body)
}

/// Turns in order, consecutive parts of one role merged into one turn.
#[derive(Default)]
struct Contents(Vec<(&'static str, Vec<Value>)>);

impl Contents {
    fn push(&mut self, role: &'static str, parts: Vec<Value>) {
        match self.0.last_mut() {
            Some((last, content)) if *last == role => content.extend(parts),
            _ => self.0.push((role, parts)),
        }
    }
}

/// A call of the latest model turn, as its results must answer it.
struct SentCall {
    /// The id golem stores (the synthesized one for a call stored without).
    stored_id: String,
    /// The id the API gave, echoed back; none for synthesized ids.
    wire_id: Option<String>,
    name: String,
}

/// Text first (omitted when empty and there are parts), then the parts.
fn user_parts(message: &Message, index: usize) -> Result<Vec<Value>, ModelError> {
    text_then_parts(message, index, true, |text| json!({ "text": text }), media::part)
}

/// Thought parts first, then the text, then the function calls, each with
/// the signature it came with (SPEC THINK-03).
fn model_parts(message: &Message, index: usize, ordinal: usize) -> Result<(Vec<Value>, Vec<SentCall>), ModelError> {
    no_parts(message, index, WHO)?;
    let mut parts = Vec::new();
    let mut text_signatures = Vec::new();
    for block in &message.thinking {
        match replay(block) {
            Replay::Thought(part) => parts.push(part),
            Replay::TextSignature(signature) => text_signatures.push(signature),
            Replay::Skip => {}
        }
    }
    let mut text_signatures = text_signatures.into_iter();
    // Text with the built-ins' parts where they stood (metadata is the
    // caller's, never sent); the first text part takes a text signature.
    for piece in interleave(&message.content, &message.provider_parts, FAMILY) {
        match piece {
            Piece::Text(segment) => {
                let mut text = json!({ "text": segment });
                if let Some(signature) = text_signatures.next() {
                    text["thoughtSignature"] = Value::from(signature);
                }
                parts.push(text);
            }
            Piece::Part(part) if part.kind == ProviderPartKind::Metadata => {}
            Piece::Part(part) => parts.push(provider_json(part, index)?),
        }
    }
    parts.extend(text_signatures.map(|signature| json!({"text": "", "thoughtSignature": signature})));
    let mut sent = Vec::with_capacity(message.tool_calls.len());
    for (n, call) in message.tool_calls.iter().enumerate() {
        let args: Value = serde_json::from_str(&call.args.normalized_for_wire())
            .map_err(|e| encode_error(&format!("message {index} tool call {n}: {e}")))?;
        let synthesized = call_id(ordinal, n + 1);
        let wire_id = (!call.id.is_empty() && call.id != synthesized).then(|| call.id.clone());
        let mut function_call = json!({"name": call.name, "args": args});
        if let Some(id) = &wire_id {
            function_call["id"] = Value::from(id.as_str());
        }
        let mut part = json!({ "functionCall": function_call });
        if !call.signature.is_empty() {
            part["thoughtSignature"] = Value::from(call.signature.as_str());
        }
        parts.push(part);
        let stored_id = if call.id.is_empty() { synthesized } else { call.id.clone() };
        sent.push(SentCall { stored_id, wire_id, name: call.name.clone() });
    }
    if parts.is_empty() {
        // Gemini refuses a turn without parts; an empty assistant turn in a
        // history is one that said nothing.
        parts.push(json!({"text": ""}));
    }
    Ok((parts, sent))
}

/// How a thinking block goes back to Gemini.
enum Replay {
    /// A thought part (with its signature, if any).
    Thought(Value),
    /// A signature that rode on a text part.
    TextSignature(String),
    Skip,
}

/// SPEC THINK-03/04: blocks of another provider family are dropped, their
/// signatures meaning nothing here; an unstamped text block goes back as
/// a thought part; a redacted block is Gemini's only when stamped so — it
/// holds a signature that came on a text part (see the stream decoder)
/// and rides on the turn's text part again. Any other redacted block is
/// skipped: Gemini has no redacted thinking.
fn replay(block: &ThinkingBlock) -> Replay {
    if !block.provider.is_empty() && block.provider != FAMILY {
        return Replay::Skip;
    }
    if !block.is_valid() {
        return Replay::Skip;
    }
    if !block.redacted.is_empty() {
        return if block.provider == FAMILY { Replay::TextSignature(block.redacted.clone()) } else { Replay::Skip };
    }
    let mut part = json!({"text": block.text, "thought": true});
    if !block.signature.is_empty() {
        part["thoughtSignature"] = Value::from(block.signature.as_str());
    }
    Replay::Thought(part)
}

/// One user turn answering the latest model turn: a function response per
/// result, in the order of the calls they answer (results answering no
/// call of that turn last, in their own order), then the media of the
/// results framed as text (SPEC MM-04).
fn function_responses(results: &[(usize, &Message)], calls: &[SentCall]) -> Result<Vec<Value>, ModelError> {
    let mut taken = vec![false; calls.len()];
    let mut ordered: Vec<(usize, usize, Option<&SentCall>)> = Vec::with_capacity(results.len());
    for (order, (_, message)) in results.iter().enumerate() {
        let position = (0..calls.len()).find(|&i| !taken[i] && calls[i].stored_id == message.tool_call_id);
        if let Some(i) = position {
            taken[i] = true;
        }
        ordered.push((position.unwrap_or(usize::MAX), order, position.map(|i| &calls[i])));
    }
    ordered.sort_by_key(|(position, order, _)| (*position, *order));

    let mut parts = Vec::with_capacity(results.len());
    let mut frames = Vec::new();
    for (_, order, call) in ordered {
        let (index, message) = results[order];
        let name = call.map(|c| c.name.as_str()).filter(|n| !n.is_empty()).unwrap_or(&message.tool_name);
        if name.is_empty() {
            return Err(encode_error(&format!(
                "message {index} is a tool result that names no tool and answers no call of the turn before it"
            )));
        }
        let field = if message.failed { "error" } else { "result" };
        let mut response = json!({"name": name, "response": { field: message.content }});
        if let Some(id) = call.and_then(|c| c.wire_id.as_deref()) {
            response["id"] = Value::from(id);
        }
        parts.push(json!({ "functionResponse": response }));
        if !message.parts.is_empty() {
            frames.push(json!({"text": tool_result_open(name, &message.tool_call_id)}));
            for (n, part) in message.parts.iter().enumerate() {
                frames.push(media::part(part, index, n)?);
            }
            frames.push(json!({ "text": TOOL_RESULT_CLOSE }));
        }
    }
    parts.extend(frames);
    Ok(parts)
}

/// `tools` when the request has some: one entry of function declarations,
/// schemas in `parametersJsonSchema` (or the legacy `parameters`).
fn tools(request: &Request, config: &Config) -> Result<Option<Value>, ModelError> {
    let builtins = request.builtin_tools.iter().map(super::builtin::tool_entry).collect::<Result<Vec<_>, _>>()?;
    if request.tools.is_empty() {
        return Ok((!builtins.is_empty()).then_some(Value::Array(builtins)));
    }
    let mut declarations = Vec::with_capacity(request.tools.len());
    for tool in request.tools.iter() {
        let mut declaration = json!({ "name": tool.name });
        if !tool.description.is_empty() {
            declaration["description"] = Value::from(tool.description.as_str());
        }
        if config.legacy_schemas() {
            let schema = legacy_schema(&tool.parameters)
                .map_err(|reason| encode_error(&format!("the parameters of tool {}: {reason}", tool.name)))?;
            declaration["parameters"] = schema;
        } else {
            declaration["parametersJsonSchema"] = tool.parameters.clone();
        }
        declarations.push(declaration);
    }
    let mut tools = vec![json!({ "functionDeclarations": declarations })];
    tools.extend(builtins);
    Ok(Some(Value::Array(tools)))
}

/// SPEC PROV-GEM-04: a forced tool as mode `ANY` limited to it, `AUTO`
/// after.
fn tool_config(choice: &WireToolChoice) -> Value {
    let calling = match choice {
        WireToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        WireToolChoice::Auto => json!({"mode": "AUTO"}),
    };
    json!({ "functionCallingConfig": calling })
}

/// The set sampling fields, the output schema and the thinking settings.
fn generation_config(request: &Request, config: &Config) -> Result<Map<String, Value>, ModelError> {
    let mut generation = Map::new();
    config.tuning().write(&mut generation);
    if let Some(output) = request.output_schema.as_deref() {
        if !request.tools.is_empty() && !super::schema_with_tools(config.model()) {
            return Err(encode_error(
                "this Gemini model takes no response schema together with function tools (Gemini 3 does); \
                 use tool output mode (an output tool; `.output::<T>()` picks it when the agent has tools)",
            ));
        }
        generation.insert("responseMimeType".into(), "application/json".into());
        if config.legacy_schemas() {
            let schema = legacy_schema(&output.schema)
                .map_err(|reason| encode_error(&format!("the output schema {}: {reason}", output.name)))?;
            generation.insert("responseSchema".into(), schema);
        } else {
            generation.insert("responseJsonSchema".into(), output.schema.clone());
        }
    }
    if let Some(thinking) = config.thinking().map(|t| t.wire()).filter(|w| w.as_object().is_some_and(|o| !o.is_empty()))
    {
        generation.insert("thinkingConfig".into(), thinking);
    }
    Ok(generation)
}

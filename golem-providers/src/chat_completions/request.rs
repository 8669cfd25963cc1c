//! Request bodies (SPEC PROV-OAI-02/03/04, MM-02..04, THINK-03, HIST-06).

use super::ids::{synthesized, wire_id};
use super::media::{self, Location};
use super::schema::{is_strict_compatible, wire_name};
use super::wire::{
    Body, Content, JsonSchema, ResponseFormat, StreamOptions, WireCall, WireCallFunction, WireFunction, WireMessage,
    WirePart, WireTool,
};
use super::{Dialect, MaxTokensField, Tuning};
use crate::classify::{encode_error, unsupported};
use crate::framing::{failed_result, tool_result_open, TOOL_RESULT_CLOSE};
use golem_core::message::{Message, Role};
use golem_core::model::{ModelError, Request, WireToolChoice};
use std::borrow::Cow;

/// The JSON body for `request`.
///
/// `model` is `None` where the URL names the model (Azure deployments).
/// Errors are `Encode` (malformed input, e.g. an invalid part or a tool
/// result without a call id) or `Unsupported` (content the dialect cannot
/// carry), never retryable.
///
/// ```
/// use golem_providers::chat_completions::{encode_body, Dialect, Tuning};
/// use golem_core::model::Request;
/// use golem_core::Message;
///
/// let request = Request::new(vec![Message::system("Be brief."), Message::user("hi")]);
/// let body = encode_body(&request, Some("gpt-4o-mini"), &Tuning::new(), &Dialect::FULL, false).unwrap();
/// let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
/// assert_eq!(json, serde_json::json!({
///     "model": "gpt-4o-mini",
///     "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
///     "stream": false,
/// }));
/// ```
pub fn encode_body(
    request: &Request,
    model: Option<&str>,
    tuning: &Tuning,
    dialect: &Dialect,
    stream: bool,
) -> Result<Vec<u8>, ModelError> {
    let has_tools = !request.tools.is_empty();
    if has_tools && !dialect.tools {
        return Err(unsupported(
            "function tools",
            "this service is configured without tool support; remove the tools or pick a preset that has them",
        ));
    }
    let tools = request
        .tools
        .iter()
        .map(|t| WireTool {
            kind: "function",
            function: WireFunction { name: &t.name, description: &t.description, parameters: &t.parameters },
        })
        .collect();
    let tool_choice = match &request.tool_choice {
        Some(_) if !(has_tools && dialect.tool_choice) => None,
        Some(WireToolChoice::Tool(name)) => Some(serde_json::json!({"type": "function", "function": {"name": name}})),
        Some(WireToolChoice::Auto) => Some(serde_json::json!("auto")),
        None => None,
    };
    let response_format = match request.output_schema.as_deref() {
        Some(_) if !dialect.json_schema => {
            return Err(unsupported(
                "a native output schema",
                "this service is configured without json_schema response formats; use tool output mode",
            ))
        }
        Some(output) => Some(ResponseFormat {
            kind: "json_schema",
            json_schema: JsonSchema {
                name: wire_name(&output.name),
                strict: is_strict_compatible(&output.schema),
                schema: &output.schema,
            },
        }),
        None => None,
    };
    let (max_tokens, max_completion_tokens) = match dialect.max_tokens_field {
        MaxTokensField::MaxTokens => (tuning.max_tokens, None),
        MaxTokensField::MaxCompletionTokens => (None, tuning.max_tokens),
    };
    let body = Body {
        model,
        messages: messages(&request.messages, dialect)?,
        tools,
        tool_choice,
        // OpenAI rejects parallel_tool_calls on a request without tools.
        parallel_tool_calls: tuning.parallel_tool_calls.filter(|_| has_tools),
        response_format,
        temperature: tuning.temperature,
        top_p: tuning.top_p,
        max_tokens,
        max_completion_tokens,
        reasoning_effort: tuning.reasoning_effort.as_deref(),
        stop: (!tuning.stop.is_empty()).then_some(tuning.stop.as_slice()),
        seed: tuning.seed,
        presence_penalty: tuning.presence_penalty,
        frequency_penalty: tuning.frequency_penalty,
        user: tuning.user.as_deref(),
        service_tier: tuning.service_tier.as_deref(),
        stream,
        stream_options: (stream && dialect.stream_usage).then_some(StreamOptions { include_usage: true }),
    };
    serde_json::to_vec(&body).map_err(|e| encode_error(&e.to_string()))
}

/// The wire messages, in order, with tool-result media moved onto one user
/// message after each run of tool messages (SPEC MM-04).
fn messages<'a>(messages: &'a [Message], dialect: &Dialect) -> Result<Vec<WireMessage<'a>>, ModelError> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    let mut assistant_ordinal = 0;
    let mut frames: Vec<WirePart<'a>> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if message.role != Role::Tool && !frames.is_empty() {
            out.push(WireMessage::new("user", Some(Content::Parts(std::mem::take(&mut frames)))));
        }
        match message.role {
            Role::System => {
                no_parts(message, index)?;
                out.push(WireMessage::new("system", Some(Content::Text(Cow::Borrowed(&message.content)))));
            }
            Role::User => out.push(WireMessage::new("user", Some(user_content(message, index, dialect)?))),
            Role::Assistant => {
                assistant_ordinal += 1;
                out.push(assistant(message, index, assistant_ordinal, dialect)?);
            }
            Role::Tool => {
                out.push(tool(message, index, dialect)?);
                if !message.parts.is_empty() {
                    let id = wire_id(&message.tool_call_id, dialect.id_rule);
                    frames.push(WirePart::Text { text: Cow::Owned(tool_result_open(&message.tool_name, &id)) });
                    for (part, p) in message.parts.iter().enumerate() {
                        frames.push(media::part(p, dialect, Location { message: index, part })?);
                    }
                    frames.push(WirePart::Text { text: Cow::Borrowed(TOOL_RESULT_CLOSE) });
                }
            }
        }
    }
    if !frames.is_empty() {
        out.push(WireMessage::new("user", Some(Content::Parts(frames))));
    }
    Ok(out)
}

/// A string, or a part array with the text first when there are parts
/// (SPEC PROV-OAI-03).
fn user_content<'a>(message: &'a Message, index: usize, dialect: &Dialect) -> Result<Content<'a>, ModelError> {
    if message.parts.is_empty() {
        return Ok(Content::Text(Cow::Borrowed(&message.content)));
    }
    let mut parts = Vec::with_capacity(message.parts.len() + 1);
    if !message.content.is_empty() {
        parts.push(WirePart::Text { text: Cow::Borrowed(&message.content) });
    }
    for (part, p) in message.parts.iter().enumerate() {
        parts.push(media::part(p, dialect, Location { message: index, part })?);
    }
    Ok(Content::Parts(parts))
}

/// Text and tool calls; thinking is never sent back (SPEC THINK-03), and
/// there is no content field when a turn with calls had no text.
fn assistant<'a>(
    message: &'a Message,
    index: usize,
    ordinal: usize,
    dialect: &Dialect,
) -> Result<WireMessage<'a>, ModelError> {
    no_parts(message, index)?;
    let content = if message.content.is_empty() && !message.tool_calls.is_empty() {
        None
    } else {
        Some(Content::Text(Cow::Borrowed(&message.content)))
    };
    let mut wire = WireMessage::new("assistant", content);
    wire.tool_calls = message
        .tool_calls
        .iter()
        .enumerate()
        .map(|(n, call)| {
            // A stored call without an id (a hand-built or foreign history)
            // gets the id decoding would have given it (SPEC PROV-COMMON-06).
            let id = if call.id.is_empty() {
                Cow::Owned(wire_id(&synthesized(ordinal, n + 1), dialect.id_rule).into_owned())
            } else {
                wire_id(&call.id, dialect.id_rule)
            };
            WireCall {
                id,
                kind: "function",
                function: WireCallFunction { name: &call.name, arguments: call.args.normalized_for_wire() },
            }
        })
        .collect();
    Ok(wire)
}

fn tool<'a>(message: &'a Message, index: usize, dialect: &Dialect) -> Result<WireMessage<'a>, ModelError> {
    if message.tool_call_id.is_empty() {
        return Err(encode_error(&format!(
            "message {index} is a tool result without a tool_call_id; repair the history (golem_core::history) first"
        )));
    }
    let content =
        if message.failed { Cow::Owned(failed_result(&message.content)) } else { Cow::Borrowed(&*message.content) };
    let mut wire = WireMessage::new("tool", Some(Content::Text(content)));
    wire.tool_call_id = Some(wire_id(&message.tool_call_id, dialect.id_rule));
    Ok(wire)
}

/// System and assistant messages carry text only on this API.
fn no_parts(message: &Message, index: usize) -> Result<(), ModelError> {
    match message.parts.first() {
        None => Ok(()),
        Some(_) => Err(unsupported(
            &format!("message {index}: parts on a {} message", message.role),
            "Chat Completions accepts media on user messages and tool results only; move the parts to a user message",
        )),
    }
}

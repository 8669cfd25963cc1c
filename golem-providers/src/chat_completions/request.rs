//! Request bodies (SPEC PROV-OAI-02/03/04, MM-02..04, THINK-03, HIST-06).

use super::ids::{synthesized, wire_id};
use super::media::{self, Location};
use super::schema::{is_strict_compatible, wire_name};
use super::tools_cache::{encode_tools, ToolsCache};
use super::wire::{
    BodyRest, Content, JsonSchema, ResponseFormat, StreamOptions, WireCall, WireCallFunction, WireMessage, WirePart,
};
use super::{Dialect, MaxTokensField, Tuning};
use crate::blocks::{names_its_call, no_parts};
use crate::classify::{encode_error, unsupported};
use crate::encoded_prefix::{Prefix, PrefixCache};
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
    let tools = encode_tools(&request.tools)?;
    encode(request, model, tuning, dialect, stream, &tools, &mut Prefix::scratch(encoded_size_hint(&request.messages)))
}

/// What a codec keeps between requests to encode the next one faster
/// (issue 20): the bytes of recent histories' beginnings and of the last
/// tool set. Shared by the codec's clones; not part of its value.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct EncodeCache {
    prefixes: PrefixCache<Ordinal>,
    tools: ToolsCache,
}

/// [`encode_body`] reusing the bytes `cache` holds for the unchanged
/// beginning of the history and for the same tool set (issue 20); the bytes
/// are the same.
pub(crate) fn encode_body_reusing(
    request: &Request,
    model: Option<&str>,
    tuning: &Tuning,
    dialect: &Dialect,
    stream: bool,
    cache: &EncodeCache,
) -> Result<Vec<u8>, ModelError> {
    let tools = cache.tools.encoded(&request.tools)?;
    if request.messages.len() < REUSE_FROM {
        let mut scratch = Prefix::scratch(encoded_size_hint(&request.messages));
        return encode(request, model, tuning, dialect, stream, &tools, &mut scratch);
    }
    let mut prefix = cache.prefixes.checkout(&request.messages);
    let body = encode(request, model, tuning, dialect, stream, &tools, &mut prefix)?;
    cache.prefixes.checkin(prefix);
    Ok(body)
}

/// The shortest history worth the cache. Below it the cache's own work (a
/// lookup, copying the messages in for the next turn, evicting old
/// entries) costs more than encoding the few messages again: the two
/// requests of a one-tool-turn run took 2.3 µs through the cache and 1.0 µs
/// without, thousands of runs sharing one codec; from about a dozen
/// messages on, reuse wins (a 20-turn run: 94 µs against 154).
const REUSE_FROM: usize = 10;

/// How many assistant messages a prefix holds: the state the message
/// encoder carries over a cut, for synthesized call ids.
pub(crate) type Ordinal = usize;

/// The body: `model`, `messages` (the bytes in `prefix`, extended by the
/// messages not yet in it), `tools` (the encoded array, empty without tools)
/// and the [`BodyRest`] fields, byte for byte what serde writes for one
/// struct holding them all in that order.
fn encode(
    request: &Request,
    model: Option<&str>,
    tuning: &Tuning,
    dialect: &Dialect,
    stream: bool,
    tools: &[u8],
    prefix: &mut Prefix<Ordinal>,
) -> Result<Vec<u8>, ModelError> {
    let has_tools = !request.tools.is_empty();
    if has_tools && !dialect.tools {
        return Err(unsupported(
            "function tools",
            "this service is configured without tool support; remove the tools or pick a preset that has them",
        ));
    }
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
            json_schema: Some(JsonSchema {
                name: wire_name(&output.name),
                strict: is_strict_compatible(&output.schema),
                schema: &output.schema,
            }),
        }),
        None if tuning.extras.json_object => Some(ResponseFormat { kind: "json_object", json_schema: None }),
        None => None,
    };
    let web_search_options = super::builtin::web_search_options(&request.builtin_tools, tuning)?;
    let (max_tokens, max_completion_tokens) = match dialect.max_tokens_field {
        MaxTokensField::MaxTokens => (tuning.max_tokens, None),
        MaxTokensField::MaxCompletionTokens => (None, tuning.max_tokens),
    };
    let last = messages(&request.messages, dialect, prefix)?;
    let rest = BodyRest {
        tool_choice,
        // OpenAI rejects parallel_tool_calls on a request without tools.
        parallel_tool_calls: tuning.extras.parallel_tool_calls.filter(|_| has_tools),
        response_format,
        temperature: tuning.temperature,
        top_p: tuning.top_p,
        max_tokens,
        max_completion_tokens,
        reasoning_effort: tuning.extras.reasoning_effort.as_deref(),
        stop: (!tuning.stop.is_empty()).then_some(tuning.stop.as_slice()),
        seed: tuning.seed,
        presence_penalty: tuning.extras.presence_penalty,
        frequency_penalty: tuning.extras.frequency_penalty,
        user: tuning.extras.user.as_deref(),
        service_tier: tuning.extras.service_tier.as_deref(),
        web_search_options,
        stream,
        stream_options: (stream && dialect.stream_usage).then_some(StreamOptions { include_usage: true }),
    };
    let model_len = model.map_or(0, str::len);
    let mut body = Vec::with_capacity(prefix.bytes().len() + last.len() + tools.len() + model_len + REST_HINT);
    body.push(b'{');
    if let Some(model) = model {
        body.extend_from_slice(b"\"model\":");
        serde_json::to_writer(&mut body, model).map_err(|e| encode_error(&e.to_string()))?;
        body.push(b',');
    }
    body.extend_from_slice(b"\"messages\":[");
    body.extend_from_slice(prefix.bytes());
    if !last.is_empty() {
        if !prefix.bytes().is_empty() {
            body.push(b',');
        }
        body.extend_from_slice(&last);
    }
    body.extend_from_slice(b"],");
    if has_tools {
        body.extend_from_slice(b"\"tools\":");
        body.extend_from_slice(tools);
        body.push(b',');
    }
    // `rest` is an object with at least `stream`: `{"…":…}`; its fields
    // continue the body after the messages, written in place.
    let at = body.len();
    serde_json::to_writer(&mut body, &rest).map_err(|e| encode_error(&e.to_string()))?;
    if body.get(at) != Some(&b'{') {
        return Err(encode_error("the body's fields did not serialize as an object"));
    }
    body.remove(at);
    Ok(body)
}

/// Room for the body's last fields (`stream` and whatever tuning is set)
/// and the keys around the arrays.
const REST_HINT: usize = 160;

/// About how many bytes `messages` encode to, so a one-off encode grows
/// its buffer once or not at all rather than doubling from empty (issue 37:
/// five reallocations per request were a tenth of a run's allocations).
fn encoded_size_hint(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| {
            let calls: usize =
                m.tool_calls.iter().map(|c| c.id.len() + c.name.len() + c.args.as_str().len() + 64).sum();
            m.content.len() + m.tool_call_id.len() + calls + 48
        })
        .sum()
}

/// The wire messages, in order, with tool-result media moved onto one user
/// message after each run of tool messages (SPEC MM-04).
///
/// Messages already in `prefix` are skipped; the others are written to it,
/// with a mark after each one that leaves no media waiting. Media still
/// waiting after the last message belong to no prefix (a later tool result
/// would join them): their user message is returned instead, empty when
/// there is none.
fn messages(messages: &[Message], dialect: &Dialect, prefix: &mut Prefix<Ordinal>) -> Result<Vec<u8>, ModelError> {
    let (start, mut assistant_ordinal) = prefix.resume();
    let mut frames: Vec<WirePart<'_>> = Vec::new();
    for (index, message) in messages.iter().enumerate().skip(start) {
        if message.role != Role::Tool && !frames.is_empty() {
            prefix.write(&WireMessage::new("user", Some(Content::Parts(std::mem::take(&mut frames)))))?;
        }
        match message.role {
            Role::System => {
                no_parts(message, index, "Chat Completions accepts")?;
                prefix.write(&WireMessage::new("system", Some(Content::Text(Cow::Borrowed(&message.content)))))?;
            }
            Role::User => prefix.write(&WireMessage::new("user", Some(user_content(message, index, dialect)?)))?,
            Role::Assistant => {
                assistant_ordinal += 1;
                prefix.write(&assistant(message, index, assistant_ordinal, dialect)?)?;
            }
            Role::Tool => {
                prefix.write(&tool(message, index, dialect)?)?;
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
        prefix.encoded(message, frames.is_empty().then_some(assistant_ordinal));
    }
    if frames.is_empty() {
        return Ok(Vec::new());
    }
    serde_json::to_vec(&WireMessage::new("user", Some(Content::Parts(frames))))
        .map_err(|e| encode_error(&e.to_string()))
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
    no_parts(message, index, "Chat Completions accepts")?;
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
    names_its_call(message, index)?;
    let content =
        if message.failed { Cow::Owned(failed_result(&message.content)) } else { Cow::Borrowed(&*message.content) };
    let mut wire = WireMessage::new("tool", Some(Content::Text(content)));
    wire.tool_call_id = Some(wire_id(&message.tool_call_id, dialect.id_rule));
    Ok(wire)
}

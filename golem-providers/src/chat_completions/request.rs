//! Request bodies (SPEC PROV-OAI-02/03/04, MM-02..04, THINK-03, HIST-06).

use super::body_writer::{self as write, key, string};
use super::ids::{synthesized, wire_id};
use super::media::{self, Location};
use super::schema::{is_strict_compatible, wire_name};
use super::tools_cache::{encode_tools, ToolsCache};
use super::wire::{WireMessage, WirePart};
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
    if request.output_schema.is_some() && !dialect.json_schema {
        return Err(unsupported(
            "a native output schema",
            "this service is configured without json_schema response formats; use tool output mode",
        ));
    }
    let web_search_options = super::builtin::web_search_options(&request.builtin_tools, tuning)?;
    let (max_tokens, max_completion_tokens) = match dialect.max_tokens_field {
        MaxTokensField::MaxTokens => (tuning.max_tokens, None),
        MaxTokensField::MaxCompletionTokens => (None, tuning.max_tokens),
    };
    let last = messages(&request.messages, dialect, prefix)?;
    let model_len = model.map_or(0, str::len);
    let mut body = Vec::with_capacity(prefix.bytes().len() + last.len() + tools.len() + model_len + REST_HINT);
    if let Some(model) = model {
        body.extend_from_slice(b"{\"model\":");
        string(&mut body, model);
        body.extend_from_slice(b",\"messages\":[");
    } else {
        body.extend_from_slice(b"{\"messages\":[");
    }
    body.extend_from_slice(prefix.bytes());
    if !last.is_empty() {
        if !prefix.bytes().is_empty() {
            body.push(b',');
        }
        body.extend_from_slice(&last);
    }
    body.push(b']');
    if has_tools {
        key(&mut body, "tools");
        body.extend_from_slice(tools);
    }
    // The fields after the arrays, in the order the wire struct that
    // wrote them had (the golden bodies pin it).
    if let Some(choice) = &tool_choice {
        key(&mut body, "tool_choice");
        write::value(&mut body, choice)?;
    }
    // OpenAI rejects parallel_tool_calls on a request without tools.
    if let Some(parallel) = tuning.extras.parallel_tool_calls.filter(|_| has_tools) {
        key(&mut body, "parallel_tool_calls");
        write::value(&mut body, &parallel)?;
    }
    if let Some(output) = request.output_schema.as_deref() {
        key(&mut body, "response_format");
        body.extend_from_slice(b"{\"type\":\"json_schema\",\"json_schema\":{\"name\":");
        string(&mut body, &wire_name(&output.name));
        body.extend_from_slice(if is_strict_compatible(&output.schema) {
            b",\"strict\":true"
        } else {
            b",\"strict\":false"
        });
        key(&mut body, "schema");
        write::value(&mut body, &output.schema)?;
        body.extend_from_slice(b"}}");
    } else if tuning.extras.json_object {
        key(&mut body, "response_format");
        body.extend_from_slice(b"{\"type\":\"json_object\"}");
    }
    optional(&mut body, "temperature", tuning.temperature.as_ref())?;
    optional(&mut body, "top_p", tuning.top_p.as_ref())?;
    optional(&mut body, "max_tokens", max_tokens.as_ref())?;
    optional(&mut body, "max_completion_tokens", max_completion_tokens.as_ref())?;
    optional(&mut body, "reasoning_effort", tuning.extras.reasoning_effort.as_deref())?;
    optional(&mut body, "stop", (!tuning.stop.is_empty()).then_some(tuning.stop.as_slice()))?;
    optional(&mut body, "seed", tuning.seed.as_ref())?;
    optional(&mut body, "presence_penalty", tuning.extras.presence_penalty.as_ref())?;
    optional(&mut body, "frequency_penalty", tuning.extras.frequency_penalty.as_ref())?;
    optional(&mut body, "user", tuning.extras.user.as_deref())?;
    optional(&mut body, "service_tier", tuning.extras.service_tier.as_deref())?;
    optional(&mut body, "web_search_options", web_search_options.as_ref())?;
    body.extend_from_slice(if stream { b",\"stream\":true" } else { b",\"stream\":false" });
    if stream && dialect.stream_usage {
        body.extend_from_slice(b",\"stream_options\":{\"include_usage\":true}");
    }
    body.push(b'}');
    Ok(body)
}

/// `"name":value` after the body's fields so far, when there is a value.
fn optional<T: serde::Serialize + ?Sized>(body: &mut Vec<u8>, name: &str, value: Option<&T>) -> Result<(), ModelError> {
    match value {
        Some(value) => {
            key(body, name);
            write::value(body, value)
        }
        None => Ok(()),
    }
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
            prefix.write(&WireMessage { role: "user", content: std::mem::take(&mut frames) })?;
        }
        match message.role {
            Role::System => {
                no_parts(message, index, "Chat Completions accepts")?;
                write::text_message(prefix.next(), "system", &message.content);
            }
            Role::User if message.parts.is_empty() => write::text_message(prefix.next(), "user", &message.content),
            Role::User => prefix.write(&WireMessage { role: "user", content: user_parts(message, index, dialect)? })?,
            Role::Assistant => {
                assistant_ordinal += 1;
                assistant(prefix.next(), message, index, assistant_ordinal, dialect)?;
            }
            Role::Tool => {
                tool(prefix.next(), message, index, dialect)?;
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
    serde_json::to_vec(&WireMessage { role: "user", content: frames }).map_err(|e| encode_error(&e.to_string()))
}

/// A part array with the text first (SPEC PROV-OAI-03); a user message
/// without parts is a plain string, written by hand.
fn user_parts<'a>(message: &'a Message, index: usize, dialect: &Dialect) -> Result<Vec<WirePart<'a>>, ModelError> {
    let mut parts = Vec::with_capacity(message.parts.len() + 1);
    if !message.content.is_empty() {
        parts.push(WirePart::Text { text: Cow::Borrowed(&message.content) });
    }
    for (part, p) in message.parts.iter().enumerate() {
        parts.push(media::part(p, dialect, Location { message: index, part })?);
    }
    Ok(parts)
}

/// Text and tool calls; thinking is never sent back (SPEC THINK-03), and
/// there is no content field when a turn with calls had no text.
fn assistant(
    out: &mut Vec<u8>,
    message: &Message,
    index: usize,
    ordinal: usize,
    dialect: &Dialect,
) -> Result<(), ModelError> {
    no_parts(message, index, "Chat Completions accepts")?;
    let silent = message.content.is_empty() && !message.tool_calls.is_empty();
    write::open_assistant(out, (!silent).then_some(message.content.as_str()));
    for (n, call) in message.tool_calls.iter().enumerate() {
        // A stored call without an id (a hand-built or foreign history)
        // gets the id decoding would have given it (SPEC PROV-COMMON-06).
        let synthesized_id;
        let id = if call.id.is_empty() {
            synthesized_id = synthesized(ordinal, n + 1);
            wire_id(&synthesized_id, dialect.id_rule)
        } else {
            wire_id(&call.id, dialect.id_rule)
        };
        write::call(out, n, &id, &call.name, &call.args.normalized_for_wire());
    }
    write::close_assistant(out, message.tool_calls.len());
    Ok(())
}

fn tool(out: &mut Vec<u8>, message: &Message, index: usize, dialect: &Dialect) -> Result<(), ModelError> {
    names_its_call(message, index)?;
    let content =
        if message.failed { Cow::Owned(failed_result(&message.content)) } else { Cow::Borrowed(&*message.content) };
    write::tool_message(out, &content, &wire_id(&message.tool_call_id, dialect.id_rule));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use golem_core::builtin::{BuiltinTool, WebSearch};
    use golem_core::message::ToolCall;
    use golem_core::model::OutputSchema;
    use golem_core::tool::ToolDefinition;
    use serde::Serialize;
    use serde_json::value::RawValue;
    use serde_json::{json, Value};
    use std::sync::Arc;

    /// The body's last fields as the derived struct that wrote them before
    /// they were written by hand: the oracle for their order and format.
    #[derive(Serialize)]
    struct Rest<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_choice: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        parallel_tool_calls: Option<bool>,
        #[serde(skip_serializing_if = "Option::is_none")]
        response_format: Option<Box<RawValue>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        temperature: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        top_p: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_tokens: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_completion_tokens: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning_effort: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stop: Option<&'a [String]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        seed: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        presence_penalty: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        frequency_penalty: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        user: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        service_tier: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        web_search_options: Option<Value>,
        stream: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        stream_options: Option<Value>,
    }

    /// A message as the derived struct that wrote it before.
    #[derive(Serialize)]
    struct OldMessage<'a> {
        role: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<Box<RawValue>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<&'a str>,
    }

    fn old_call(id: &str, name: &str, arguments: &str) -> Box<RawValue> {
        // A `Value` sorts keys, and "function" < "id" < "type" is not the
        // derive's order, so the call is spelled out as raw JSON.
        let text = format!(
            r#"{{"id":{},"type":"function","function":{{"name":{},"arguments":{}}}}}"#,
            serde_json::to_string(id).unwrap(),
            serde_json::to_string(name).unwrap(),
            serde_json::to_string(arguments).unwrap()
        );
        RawValue::from_string(text).unwrap()
    }

    /// Every field set, odd numbers and text included, byte for byte.
    #[test]
    fn the_hand_written_body_is_what_the_derived_structs_wrote() {
        let tuning = Tuning::new()
            .temperature(0.1)
            .top_p(1e-7)
            .max_tokens(4096)
            .reasoning_effort("hi\"gh")
            .parallel_tool_calls(true)
            .stop("END")
            .stop("\n\n")
            .seed(-3)
            .presence_penalty(-2.0)
            .frequency_penalty(1.25)
            .user("\u{fc}")
            .service_tier("flex")
            .search_context_size("low");
        let mut turn = Message::assistant("");
        turn.tool_calls.push(ToolCall::new("", "t", "[1]"));
        turn.tool_calls.push(ToolCall::new("c2", "t", r#"{"a":"\"b\""}"#));
        let mut request = Request::new(vec![
            Message::system("be \"brief\"\n"),
            Message::user("q \u{1f600}"),
            turn,
            Message::tool_result("c2", "t", "done\t"),
            Message::assistant("fine"),
        ]);
        request.tools = Arc::new(vec![ToolDefinition::new("t", "d", json!({"type": "object"}))]);
        request.builtin_tools = Arc::new(vec![BuiltinTool::WebSearch(WebSearch::new())]);
        request.tool_choice = Some(WireToolChoice::Tool("t".into()));
        request.output_schema = Some(Arc::new(OutputSchema::new("Out put", json!({"type": "object", "x": [1.5]}))));

        let mistral = Dialect {
            stream_usage: false,
            max_tokens_field: MaxTokensField::MaxTokens,
            id_rule: crate::chat_completions::IdRule::Alphanumeric9,
            ..Dialect::FULL
        };
        for (stream, dialect) in [(true, Dialect::FULL), (false, Dialect::FULL), (true, mistral)] {
            let ours = encode_body(&request, Some("m\"1"), &tuning, &dialect, stream).unwrap();

            let synthesized = wire_id(&synthesized(1, 1), dialect.id_rule).into_owned();
            let messages = [
                OldMessage { role: "system", content: Some("be \"brief\"\n"), tool_calls: vec![], tool_call_id: None },
                OldMessage { role: "user", content: Some("q \u{1f600}"), tool_calls: vec![], tool_call_id: None },
                OldMessage {
                    role: "assistant",
                    content: None,
                    tool_calls: vec![
                        old_call(&synthesized, "t", r#"{"truncated_args":"[1]"}"#),
                        old_call(&wire_id("c2", dialect.id_rule), "t", r#"{"a":"\"b\""}"#),
                    ],
                    tool_call_id: None,
                },
                OldMessage {
                    role: "tool",
                    content: Some("done\t"),
                    tool_calls: vec![],
                    tool_call_id: Some(&wire_id("c2", dialect.id_rule)),
                },
                OldMessage { role: "assistant", content: Some("fine"), tool_calls: vec![], tool_call_id: None },
            ];
            let (max_tokens, max_completion_tokens) = match dialect.max_tokens_field {
                MaxTokensField::MaxTokens => (Some(4096), None),
                MaxTokensField::MaxCompletionTokens => (None, Some(4096)),
            };
            let rest = Rest {
                tool_choice: Some(json!({"type": "function", "function": {"name": "t"}})),
                parallel_tool_calls: Some(true),
                response_format: Some(
                    serde_json::from_str(&format!(
                        r#"{{"type":"json_schema","json_schema":{{"name":{},"strict":{},"schema":{}}}}}"#,
                        serde_json::to_string(&wire_name("Out put")).unwrap(),
                        is_strict_compatible(&request.output_schema.as_ref().unwrap().schema),
                        serde_json::to_string(&request.output_schema.as_ref().unwrap().schema).unwrap()
                    ))
                    .unwrap(),
                ),
                temperature: Some(0.1),
                top_p: Some(1e-7),
                max_tokens,
                max_completion_tokens,
                reasoning_effort: Some("hi\"gh"),
                stop: Some(&tuning.stop),
                seed: Some(-3),
                presence_penalty: Some(-2.0),
                frequency_penalty: Some(1.25),
                user: Some("\u{fc}"),
                service_tier: Some("flex"),
                web_search_options: Some(json!({"search_context_size": "low"})),
                stream,
                stream_options: (stream && dialect.stream_usage).then(|| json!({"include_usage": true})),
            };
            let rest = serde_json::to_string(&rest).unwrap();
            let expected = format!(
                r#"{{"model":{},"messages":{},"tools":{}{}"#,
                serde_json::to_string("m\"1").unwrap(),
                serde_json::to_string(&messages).unwrap(),
                String::from_utf8(encode_tools(&request.tools).unwrap()).unwrap(),
                rest.replacen('{', ",", 1)
            );
            assert_eq!(String::from_utf8(ours).unwrap(), expected, "stream {stream}");
        }
    }
}

//! A typed view of a whole Chat Completions response: the fast path of
//! [`decode_body`](super::decode_body) (issue 20), and the shapes the
//! stream's chunk view shares with it.
//!
//! Reading straight into these structs skips building a
//! `serde_json::Value` tree of the whole body, which was the largest single
//! cost of a plain turn. The view is *strict*: a field of an unexpected type,
//! a duplicated field or an empty `choices` fails it, and the caller then
//! decodes through the `Value` path. That path's leniency (a wrong-typed field
//! reads as absent) stays the one definition of what a body means, so the
//! view only has to agree with it on the bodies it accepts — which
//! `fuzzing::chat_response` checks on every input. The fields are read by
//! [`strict_reader`](super::strict_reader), not by serde derives (issue 37:
//! see there why).
//!
//! One difference is deliberate: fields golem never reads are skipped
//! without being parsed, so a number beyond `f64`'s range in, say, a
//! vendor's extra field no longer turns a usable answer into a retried
//! decode error.

use super::meaning::{annotations_part, call_args, call_id, finish_reason_of, usage_of};
use super::strict_reader::{once, Read, Reader, Refused};
use super::FAMILY;
use golem_core::message::{FinishReason, Message, Role, ThinkingBlock, ToolCall, Usage};
use golem_core::stream::{AssembleError, MAX_TOOL_CALLS};

/// What a body that fits the view decodes to.
pub(crate) struct Decoded {
    /// The assistant message, or why it cannot be one (more calls than a
    /// turn may hold).
    pub message: Result<Message, AssembleError>,
    /// The call's token counts.
    pub usage: Usage,
    /// Why generation stopped.
    pub finish: FinishReason,
}

/// The decoded body, or `None` when it does not fit the view (including
/// every body that is not valid JSON or has no choices).
pub(crate) fn decode(body: &[u8], turn: usize) -> Option<Decoded> {
    let mut reader = Reader::new(body);
    let (choice, usage) = read_body(&mut reader).ok()?;
    reader.end().ok()?;
    let message = choice.message.unwrap_or_default();
    let refused = message.refusal.as_deref().is_some_and(|r| !r.is_empty());
    let finish = if refused { FinishReason::ContentFilter } else { finish_reason_of(choice.finish_reason.as_deref()) };
    Some(Decoded { message: message.into_message(turn), usage: usage.unwrap_or_default().counts(), finish })
}

/// The first choice of a response.
struct Choice {
    message: Option<MessageWire>,
    finish_reason: Option<String>,
}

/// The body's first choice (it must have one) and its usage.
fn read_body(reader: &mut Reader<'_>) -> Read<(Choice, Option<UsageWire>)> {
    let mut members = reader.object()?;
    let (mut seen, mut choice, mut usage) = (0, None, None);
    while let Some(key) = reader.key(&mut members)? {
        match key {
            b"choices" => {
                once(&mut seen, 0)?;
                // Only the first choice is read, as the `Value` path reads it.
                let mut items = reader.array()?;
                while reader.item(&mut items)? {
                    match choice {
                        None => choice = Some(read_choice(reader)?),
                        Some(_) => reader.skip()?,
                    }
                }
            }
            b"usage" => {
                once(&mut seen, 1)?;
                usage = read_usage(reader)?;
            }
            _ => reader.skip()?,
        }
    }
    Ok((choice.ok_or(Refused)?, usage))
}

fn read_choice(reader: &mut Reader<'_>) -> Read<Choice> {
    let mut members = reader.object()?;
    let mut seen = 0;
    let mut choice = Choice { message: None, finish_reason: None };
    while let Some(key) = reader.key(&mut members)? {
        match key {
            b"message" => {
                once(&mut seen, 0)?;
                choice.message = read_message(reader)?;
            }
            b"finish_reason" => {
                once(&mut seen, 1)?;
                choice.finish_reason = reader.opt_string()?;
            }
            _ => reader.skip()?,
        }
    }
    Ok(choice)
}

/// A response's message, or a stream chunk's delta: the same fields.
#[derive(Default)]
pub(super) struct MessageWire {
    pub(super) reasoning_content: Option<String>,
    pub(super) reasoning: Option<String>,
    pub(super) content: Option<Content>,
    pub(super) refusal: Option<String>,
    /// Rare (search models only), so kept as a `Value`: the one shape the
    /// `Value` path reads, with no second definition to agree with.
    pub(super) annotations: Option<serde_json::Value>,
    pub(super) tool_calls: Option<Vec<CallWire>>,
    pub(super) function_call: Option<FunctionWire>,
}

/// A message or delta object, or `None` for `null`.
pub(super) fn read_message(reader: &mut Reader<'_>) -> Read<Option<MessageWire>> {
    if reader.null()? {
        return Ok(None);
    }
    let mut members = reader.object()?;
    let mut seen = 0;
    let mut message = MessageWire::default();
    while let Some(key) = reader.key(&mut members)? {
        match key {
            b"reasoning_content" => {
                once(&mut seen, 0)?;
                message.reasoning_content = reader.opt_string()?;
            }
            b"reasoning" => {
                once(&mut seen, 1)?;
                message.reasoning = reader.opt_string()?;
            }
            b"content" => {
                once(&mut seen, 2)?;
                message.content = Content::read(reader)?;
            }
            b"refusal" => {
                once(&mut seen, 3)?;
                message.refusal = reader.opt_string()?;
            }
            b"annotations" => {
                once(&mut seen, 4)?;
                if !reader.null()? {
                    let raw = reader.raw()?;
                    message.annotations = Some(serde_json::from_str(raw).map_err(|_| Refused)?);
                }
            }
            b"tool_calls" => {
                once(&mut seen, 5)?;
                if !reader.null()? {
                    let mut calls = Vec::new();
                    let mut items = reader.array()?;
                    while reader.item(&mut items)? {
                        calls.push(CallWire::read(reader)?);
                    }
                    message.tool_calls = Some(calls);
                }
            }
            b"function_call" => {
                once(&mut seen, 6)?;
                message.function_call = FunctionWire::read(reader)?;
            }
            _ => reader.skip()?,
        }
    }
    Ok(Some(message))
}

impl MessageWire {
    /// The message the core stream assembler makes of the deltas
    /// `message_deltas` reads from the message's `Value`, built without them
    /// (issue 37: a plain answer paid for a delta list and an assembler
    /// whose work, one delta per entry, is only concatenation). The rules
    /// are `meaning`'s, shared with the deltas; `fuzzing::chat_response`
    /// checks the two agree on every body the view accepts.
    fn into_message(self, turn: usize) -> Result<Message, AssembleError> {
        let mut message = Message::new(Role::Assistant);
        if let Some(text) = reasoning(self.reasoning_content, self.reasoning) {
            message.thinking.push(ThinkingBlock::text(text).with_provider(FAMILY));
        }
        Content::texts(self.content, |text| append(&mut message.content, text));
        if let Some(refusal) = self.refusal {
            append(&mut message.content, refusal);
        }
        if let Some(mut part) = annotations_part(self.annotations.as_ref()) {
            part.at = message.content.len();
            message.provider_parts.push(part);
        }
        // Function calls in order, then the legacy `function_call`. A plain
        // loop rather than an adapter chain: the same calls in less code
        // for every answer to walk (issue 37).
        for call in self.tool_calls.into_iter().flatten() {
            if call.kind.as_deref().is_some_and(|t| t != "function") {
                continue;
            }
            if let Some(function) = call.function {
                push_call(&mut message, call.id, function, turn)?;
            }
        }
        if let Some(function) = self.function_call {
            push_call(&mut message, None, function, turn)?;
        }
        Ok(message)
    }
}

/// Add the turn's next call, within the assembler's bound on one turn's
/// calls (with its error).
fn push_call(
    message: &mut Message,
    id: Option<String>,
    function: FunctionWire,
    turn: usize,
) -> Result<(), AssembleError> {
    let n = message.tool_calls.len();
    if n == MAX_TOOL_CALLS {
        return Err(AssembleError::TooManyToolCalls { limit: MAX_TOOL_CALLS });
    }
    let (name, args) = (function.name.unwrap_or_default(), function.arguments.unwrap_or_default());
    message.tool_calls.push(ToolCall::new(call_id(id, turn, n), name, call_args(args)));
    Ok(())
}

/// `text` after what `to` holds: moved when `to` is empty, copied otherwise
/// (as the assembler appends).
fn append(to: &mut String, text: String) {
    if to.is_empty() {
        *to = text;
    } else {
        to.push_str(&text);
    }
}

/// `content`: a string, or an array of parts. Anything else fails the view.
pub(super) enum Content {
    Text(String),
    Parts(Vec<PartWire>),
}

impl Content {
    /// Each non-empty text, as `content_texts` finds them in a `Value`.
    pub(super) fn texts(content: Option<Content>, mut each: impl FnMut(String)) {
        match content {
            Some(Content::Text(text)) if !text.is_empty() => each(text),
            Some(Content::Parts(parts)) => {
                for part in parts {
                    let is_text = part.kind.as_deref().is_none_or(|t| t == "text");
                    if let Some(text) = part.text.filter(|t| is_text && !t.is_empty()) {
                        each(text);
                    }
                }
            }
            _ => {}
        }
    }

    /// A `content` value, or `None` for `null`.
    fn read(reader: &mut Reader<'_>) -> Read<Option<Content>> {
        if reader.null()? {
            return Ok(None);
        }
        if !reader.at_array() {
            return reader.string().map(|text| Some(Content::Text(text)));
        }
        let mut parts = Vec::new();
        let mut items = reader.array()?;
        while reader.item(&mut items)? {
            let mut members = reader.object()?;
            let (mut seen, mut part) = (0, PartWire { kind: None, text: None });
            while let Some(key) = reader.key(&mut members)? {
                match key {
                    b"type" => {
                        once(&mut seen, 0)?;
                        part.kind = reader.opt_string()?;
                    }
                    b"text" => {
                        once(&mut seen, 1)?;
                        part.text = reader.opt_string()?;
                    }
                    _ => reader.skip()?,
                }
            }
            parts.push(part);
        }
        Ok(Some(Content::Parts(parts)))
    }
}

/// `reasoning_content` (DeepSeek, vLLM) or else `reasoning` (OpenRouter,
/// Ollama), the first that is non-empty.
pub(super) fn reasoning(content: Option<String>, reasoning: Option<String>) -> Option<String> {
    [content, reasoning].into_iter().flatten().find(|t| !t.is_empty())
}

/// One part of an array `content`.
pub(super) struct PartWire {
    kind: Option<String>,
    text: Option<String>,
}

/// One entry of `tool_calls`, whole or a stream's fragment.
pub(super) struct CallWire {
    /// A stream fragment's position; a whole response has none (one given
    /// there must still be a number, or the body takes the `Value` path).
    pub(super) index: Option<u64>,
    pub(super) id: Option<String>,
    /// `type`.
    pub(super) kind: Option<String>,
    pub(super) function: Option<FunctionWire>,
}

impl CallWire {
    fn read(reader: &mut Reader<'_>) -> Read<CallWire> {
        let mut members = reader.object()?;
        let mut seen = 0;
        let mut call = CallWire { index: None, id: None, kind: None, function: None };
        while let Some(key) = reader.key(&mut members)? {
            match key {
                b"index" => {
                    once(&mut seen, 0)?;
                    call.index = reader.opt_u64()?;
                }
                b"id" => {
                    once(&mut seen, 1)?;
                    call.id = reader.opt_string()?;
                }
                b"type" => {
                    once(&mut seen, 2)?;
                    call.kind = reader.opt_string()?;
                }
                b"function" => {
                    once(&mut seen, 3)?;
                    call.function = FunctionWire::read(reader)?;
                }
                _ => reader.skip()?,
            }
        }
        Ok(call)
    }
}

/// A call's function: its name and arguments.
pub(super) struct FunctionWire {
    pub(super) name: Option<String>,
    /// Only the string form; an object here fails the view, and the `Value`
    /// path turns it into JSON text.
    pub(super) arguments: Option<String>,
}

impl FunctionWire {
    /// A function object, or `None` for `null`.
    fn read(reader: &mut Reader<'_>) -> Read<Option<FunctionWire>> {
        if reader.null()? {
            return Ok(None);
        }
        let mut members = reader.object()?;
        let mut seen = 0;
        let mut function = FunctionWire { name: None, arguments: None };
        while let Some(key) = reader.key(&mut members)? {
            match key {
                b"name" => {
                    once(&mut seen, 0)?;
                    function.name = reader.opt_string()?;
                }
                b"arguments" => {
                    once(&mut seen, 1)?;
                    function.arguments = reader.opt_string()?;
                }
                _ => reader.skip()?,
            }
        }
        Ok(Some(function))
    }
}

/// The counts of a `usage` object.
#[derive(Default)]
pub(super) struct UsageWire {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    /// `prompt_tokens_details.cached_tokens`: `Some(None)` when present as
    /// null, `None` when absent (or the details are).
    cached_tokens: Option<Option<u64>>,
    prompt_cache_hit_tokens: Option<u64>,
    /// `completion_tokens_details.reasoning_tokens`.
    reasoning_tokens: Option<u64>,
}

/// A `usage` object, or `None` for `null`.
pub(super) fn read_usage(reader: &mut Reader<'_>) -> Read<Option<UsageWire>> {
    if reader.null()? {
        return Ok(None);
    }
    let mut members = reader.object()?;
    let mut seen = 0;
    let mut usage = UsageWire::default();
    while let Some(key) = reader.key(&mut members)? {
        match key {
            b"prompt_tokens" => {
                once(&mut seen, 0)?;
                usage.prompt_tokens = reader.opt_u64()?;
            }
            b"completion_tokens" => {
                once(&mut seen, 1)?;
                usage.completion_tokens = reader.opt_u64()?;
            }
            b"prompt_tokens_details" => {
                once(&mut seen, 2)?;
                usage.cached_tokens = details(reader, b"cached_tokens")?.flatten();
            }
            b"prompt_cache_hit_tokens" => {
                once(&mut seen, 3)?;
                usage.prompt_cache_hit_tokens = reader.opt_u64()?;
            }
            b"completion_tokens_details" => {
                once(&mut seen, 4)?;
                usage.reasoning_tokens = details(reader, b"reasoning_tokens")?.flatten().flatten();
            }
            _ => reader.skip()?,
        }
    }
    Ok(Some(usage))
}

/// A details object's one count `field`: `None` for a null object,
/// `Some(None)` when the field is absent, `Some(Some(None))` when it is
/// null.
fn details(reader: &mut Reader<'_>, field: &[u8]) -> Read<Option<Option<Option<u64>>>> {
    if reader.null()? {
        return Ok(None);
    }
    let mut members = reader.object()?;
    let mut count = None;
    while let Some(key) = reader.key(&mut members)? {
        if key != field {
            reader.skip()?;
        } else if count.is_some() {
            return Err(Refused);
        } else {
            count = Some(reader.opt_u64()?);
        }
    }
    Ok(Some(count))
}

impl UsageWire {
    /// The counts, with the `Value` path's rules.
    pub(super) fn counts(self) -> Usage {
        // A present `cached_tokens` wins even when null, as a JSON pointer
        // finds it in the `Value` path; only an absent one defers to
        // DeepSeek's field.
        let cached = match self.cached_tokens {
            Some(present) => present,
            None => self.prompt_cache_hit_tokens,
        };
        usage_of(self.prompt_tokens, self.completion_tokens, cached, self.reasoning_tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::decode;
    use golem_core::message::FinishReason;

    #[test]
    fn reads_the_fields_and_skips_the_rest() {
        let body = br#"{"id":"x","system_fingerprint":"fp","choices":[{"index":0,"logprobs":null,
            "message":{"role":"assistant","content":"Hi","annotations":[{"a":[1,{"b":null}]}]},
            "finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#;
        let decoded = decode(body, 1).expect("fits the view");
        let message = decoded.message.expect("a message");
        assert_eq!(message.content, "Hi");
        assert_eq!(message.provider_parts.len(), 1, "the annotations, kept");
        assert_eq!(decoded.finish, FinishReason::Stop);
        assert_eq!((decoded.usage.input_tokens, decoded.usage.output_tokens), (3, 1));
    }

    #[test]
    fn mistyped_or_positional_fields_do_not_fit() {
        for body in [
            &br#"{"choices":[{"message":["x"]}]}"#[..],
            br#"[[{"message":{"content":"x"}}]]"#,
            br#"{"choices":[{"message":{"content":7}}]}"#,
            br#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"t","arguments":{"a":1}}}]}}]}"#,
            br#"{"choices":[{"message":{"content":"a","content":"b"}}]}"#,
            br#"{"choices":[],"error":{"message":"no"}}"#,
            br#"{"choices":[{"message":{}}],"usage":{"prompt_tokens":1.5}}"#,
            br#"not json"#,
        ] {
            assert!(decode(body, 1).is_none(), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_null_cached_count_wins_over_deepseeks_field() {
        let body = br#"{"choices":[{"message":{}}],"usage":{"prompt_tokens_details":{"cached_tokens":null},
            "prompt_cache_hit_tokens":9}}"#;
        assert_eq!(decode(body, 1).map(|d| d.usage.cache_read_tokens), Some(0));
        let body = br#"{"choices":[{"message":{}}],"usage":{"prompt_tokens_details":{},"prompt_cache_hit_tokens":9}}"#;
        assert_eq!(decode(body, 1).map(|d| d.usage.cache_read_tokens), Some(9));
    }

    #[test]
    fn an_unread_field_out_of_range_does_not_fail_the_answer() {
        let body = br#"{"choices":[{"message":{"content":"ok"}}],"vendor_score":1e400}"#;
        assert!(serde_json::from_slice::<serde_json::Value>(body).is_err());
        assert_eq!(decode(body, 1).and_then(|d| d.message.ok()).map(|m| m.content), Some("ok".to_string()));
    }

    /// The message the view builds is the one the assembler makes of the
    /// `Value` path's deltas, up to the assembler's bound on a turn's calls
    /// and past it (the same decode error).
    #[test]
    fn calls_up_to_the_bound_and_past_it_agree_with_the_value_path() {
        use crate::chat_completions::response::{decode_typed, decode_value, DecodeContext};
        use crate::http::HttpResponseHead;
        use golem_core::stream::MAX_TOOL_CALLS;
        let head = HttpResponseHead::new(200, vec![]);
        let ctx = DecodeContext { turn: 3, key: None };
        for count in [1, MAX_TOOL_CALLS, MAX_TOOL_CALLS + 1] {
            let calls: Vec<String> = (0..count)
                .map(|n| match n % 3 {
                    0 => format!(r#"{{"type":"function","function":{{"name":"t{n}","arguments":"{{}}"}}}}"#),
                    1 => format!(r#"{{"id":"c{n}","function":{{"name":"t{n}","arguments":"  "}}}}"#),
                    _ => format!(r#"{{"id":"","type":"function","function":{{"name":"t{n}"}}}}"#),
                })
                .collect();
            let body = format!(
                r#"{{"choices":[{{"message":{{"reasoning_content":"why","content":[{{"type":"text","text":"a"}},{{"text":"b"}}],"refusal":"","annotations":[{{"type":"url_citation"}}],"tool_calls":[{}]}},"finish_reason":"tool_calls"}}]}}"#,
                calls.join(",")
            );
            let typed = decode_typed(&head, body.as_bytes(), &ctx).expect("fits the view");
            let lenient = decode_value(&head, body.as_bytes(), &ctx);
            assert_eq!(format!("{typed:?}"), format!("{lenient:?}"), "{count} calls");
            match typed {
                Ok(response) => {
                    let message = response.message;
                    assert_eq!(message.tool_calls.len(), count);
                    assert_eq!(message.tool_calls[0].id, "call_3_1");
                    assert_eq!(message.content, "ab");
                    assert_eq!(message.thinking[0].provider, crate::chat_completions::FAMILY);
                    assert_eq!(message.provider_parts[0].at, 2);
                }
                Err(error) => assert!(count > MAX_TOOL_CALLS, "{error}"),
            }
        }
    }
}

//! What every family's request encoder checks and builds the same way
//! (SPEC MM-02..04, HIST-06): media only where the API takes it, tool
//! results that name their call, a message's text followed by its parts,
//! stored tool arguments as JSON.

// Each family uses its part of these; with families compiled out
// (`--no-default-features --features …`), parts go unused.
#![cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini", feature = "bedrock")),
    allow(dead_code)
)]

use crate::classify::{encode_error, unsupported};
use golem_core::message::{Message, Part, PartKind, Role, ToolCall};
use golem_core::model::ModelError;
use serde_json::Value;

/// System and assistant messages carry no media on these APIs: a part
/// there is refused, naming `who` takes it (`Anthropic accepts`, …).
pub(crate) fn no_parts(message: &Message, index: usize, who: &str) -> Result<(), ModelError> {
    match message.parts.first() {
        None => Ok(()),
        Some(_) => Err(unsupported(
            &format!("message {index}: parts on a {} message", message.role),
            &format!("{who} media on user messages and tool results only; move the parts to a user message"),
        )),
    }
}

/// How errors name a part: `message 2 part 0 (image)`.
pub(crate) fn part_label(message: usize, index: usize, kind: PartKind) -> String {
    let kind = match kind {
        PartKind::Image => "image",
        PartKind::Document => "document",
        PartKind::Audio => "audio",
        PartKind::Video => "video",
    };
    format!("message {message} part {index} ({kind})")
}

/// A media type without its parameters, in lowercase: `Image/PNG; q=1`
/// is `image/png`.
pub(crate) fn essence(media_type: &str) -> String {
    media_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// A tool result must name the call it answers.
pub(crate) fn names_its_call(message: &Message, index: usize) -> Result<(), ModelError> {
    if message.tool_call_id.is_empty() {
        return Err(encode_error(&format!(
            "message {index} is a tool result without a tool_call_id; repair the history (golem_core::history) first"
        )));
    }
    Ok(())
}

/// The message's text as `text` makes it — left out when empty, unless
/// `always_text` and there are no parts — then each part as `part` makes
/// it from (part, message index, part index).
pub(crate) fn text_then_parts(
    message: &Message,
    index: usize,
    always_text: bool,
    text: impl Fn(&str) -> Value,
    part: impl Fn(&Part, usize, usize) -> Result<Value, ModelError>,
) -> Result<Vec<Value>, ModelError> {
    let mut out = Vec::with_capacity(message.parts.len() + 1);
    if !message.content.is_empty() || (always_text && message.parts.is_empty()) {
        out.push(text(&message.content));
    }
    for (n, item) in message.parts.iter().enumerate() {
        out.push(part(item, index, n)?);
    }
    Ok(out)
}

/// The `n`-th call's arguments (0-based) of message `index` as JSON, as
/// the wire takes them (normalized; `{}` for none).
pub(crate) fn call_input(call: &ToolCall, index: usize, n: usize) -> Result<Value, ModelError> {
    serde_json::from_str(&call.args.normalized_for_wire())
        .map_err(|e| encode_error(&format!("message {index} tool call {n}: {e}")))
}

/// The turns of a request to an API of `user` and `assistant` turns of
/// content blocks (Anthropic, Bedrock): each kind of message as the
/// family writes it, consecutive turns of one role merged (a run of tool
/// results and the user message after it are one user turn).
pub(crate) struct TurnBlocks {
    /// Who takes media where, for the refusal of parts on system texts.
    pub(crate) who: &'static str,
    /// A user message's blocks.
    pub(crate) user: fn(&Message, usize) -> Result<Vec<Value>, ModelError>,
    /// An assistant message's blocks, given its ordinal among them.
    pub(crate) assistant: fn(&Message, usize, usize) -> Result<Vec<Value>, ModelError>,
    /// A tool result's blocks: the result, and what must follow it in the
    /// same turn rather than sit inside it (Bedrock's video).
    pub(crate) tool_result: fn(&Message, usize) -> Result<Vec<Value>, ModelError>,
    /// Where tool results must lead their user turn: how to tell one.
    pub(crate) results_first: Option<fn(&Value) -> bool>,
    /// Where the API takes `system` turns among the others (Anthropic): a
    /// system text's block. A system message after the conversation began
    /// is then a turn of its own where it stood (SPEC MSG-08); without it,
    /// every system text joins the system instructions.
    pub(crate) mid_system: Option<fn(&str) -> Value>,
}

/// Turns of (role, blocks).
pub(crate) type Turns = Vec<(&'static str, Vec<Value>)>;

impl TurnBlocks {
    /// The system texts apart, and the turns. A message with no blocks
    /// (an empty one) is left out: the APIs refuse empty turns, and
    /// leaving it out changes nothing.
    pub(crate) fn encode<'m>(&self, messages: &'m [Message]) -> Result<(Vec<&'m str>, Turns), ModelError> {
        let mut system = Vec::new();
        let mut turns: Turns = Vec::new();
        let mut assistant_ordinal = 0;
        for (index, message) in messages.iter().enumerate() {
            let (role, blocks) = match message.role {
                Role::System => {
                    no_parts(message, index, self.who)?;
                    match self.mid_system {
                        Some(block) if !turns.is_empty() && !message.content.is_empty() => {
                            // Never merged: each system message is its own turn.
                            turns.push(("system", vec![block(&message.content)]));
                        }
                        _ if !message.content.is_empty() => system.push(message.content.as_str()),
                        _ => {}
                    }
                    continue;
                }
                Role::User => ("user", (self.user)(message, index)?),
                Role::Assistant => {
                    assistant_ordinal += 1;
                    ("assistant", (self.assistant)(message, index, assistant_ordinal)?)
                }
                Role::Tool => ("user", (self.tool_result)(message, index)?),
            };
            if blocks.is_empty() {
                continue;
            }
            match (turns.last_mut(), self.results_first) {
                (Some((last, content)), Some(is_result)) if *last == role && role == "user" => {
                    let (results, rest): (Vec<Value>, Vec<Value>) = blocks.into_iter().partition(is_result);
                    let at = content.iter().position(|b| !is_result(b)).unwrap_or(content.len());
                    content.splice(at..at, results);
                    content.extend(rest);
                }
                (Some((last, content)), _) if *last == role && role != "system" => content.extend(blocks),
                _ => turns.push((role, blocks)),
            }
        }
        Ok((system, turns))
    }
}

/// A built-in tool `family` cannot run (or an option of it it cannot
/// express), refused before anything is sent.
pub(crate) fn unsupported_builtin(tool: &golem_core::builtin::BuiltinTool, family: &str, why: &str) -> ModelError {
    unsupported(
        &format!("built-in tool {:?} on {family}", tool.name()),
        &format!("{why}; remove it from the agent or use a provider that runs it"),
    )
}

/// A stored provider part as the JSON value to send back: its raw text,
/// which the decoder wrote, parsed again (a hand-edited history that
/// broke it is an encode error, not a panic).
pub(crate) fn provider_json(part: &golem_core::builtin::ProviderPart, index: usize) -> Result<Value, ModelError> {
    part.raw
        .parse()
        .map_err(|e| encode_error(&format!("message {index}: a stored {} block is not JSON: {e}", part.provider)))
}

/// The fields of an approximate user location that are set, by their
/// wire names (the same in every family that takes one).
pub(crate) fn location_fields(location: &golem_core::builtin::UserLocation) -> serde_json::Map<String, Value> {
    let fields = [
        ("city", &location.city),
        ("region", &location.region),
        ("country", &location.country),
        ("timezone", &location.timezone),
    ];
    fields.into_iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| (k.to_string(), Value::from(v.as_str()))).collect()
}

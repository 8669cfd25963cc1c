//! A typed view of one streamed `chat.completion.chunk`: the fast path of
//! [`ChatStream`](super::ChatStream) (issue 20).
//!
//! Like the whole-response view in `envelope`, it is strict: a chunk with
//! an `error` member, a field of an unexpected type, a duplicated field or a
//! tool-call index beyond `u32` does not fit, and the stream decodes that
//! chunk through its `Value` path, which defines the meaning.
//! `fuzzing::chat_stream` checks that both ways give the same outcome. As
//! there, fields golem never reads are skipped unparsed.

use super::envelope::{present, reasoning, Content, FunctionWire, MessageWire, Obj, UsageWire};
use golem_core::message::Usage;
use serde::de::IgnoredAny;
use serde::Deserialize;

/// What a chunk that fits the view says, in the order the stream applies it.
pub(super) struct Chunk {
    /// The chunk's usage object, when it has one.
    pub usage: Option<Usage>,
    /// The first choice (index 0, or no index), when there is one.
    pub choice: Option<Choice>,
}

/// The first choice of a chunk.
pub(super) struct Choice {
    /// The choice's delta; `None` when absent or null.
    pub delta: Option<ChunkDelta>,
    /// A non-null finish reason.
    pub finish_reason: Option<String>,
}

/// One choice delta.
pub(super) struct ChunkDelta {
    /// Non-empty reasoning text.
    pub reasoning: Option<String>,
    /// The content, if any.
    pub content: Option<Content>,
    /// The refusal text, if any.
    pub refusal: Option<String>,
    /// `annotations`, as sent.
    pub annotations: Option<serde_json::Value>,
    /// `tool_calls`, when it is present as an array.
    pub tool_calls: Option<Vec<CallDelta>>,
    /// The legacy `function_call` object.
    pub function_call: Option<FunctionWire>,
}

/// One tool-call fragment.
pub(super) struct CallDelta {
    /// The wire index; checked to fit a `u32`.
    pub index: Option<u32>,
    /// The call id, if given.
    pub id: Option<String>,
    /// The call type, if given.
    pub kind: Option<String>,
    /// The function part of the fragment.
    pub function: Option<FunctionWire>,
}

/// The chunk in `data`, or `None` when it does not fit the view.
pub(super) fn parse(data: &str) -> Option<Chunk> {
    let Obj(wire) = serde_json::from_str::<Obj<ChunkWire>>(data).ok()?;
    if wire.error.is_some() {
        return None;
    }
    let choice = wire
        .choices
        .unwrap_or_default()
        .into_iter()
        .map(|Obj(choice)| choice)
        .find(|choice| choice.index.is_none_or(|i| i == 0));
    let choice = match choice {
        Some(choice) => Some(Choice {
            delta: match choice.delta {
                Some(Obj(delta)) => Some(view(delta)?),
                None => None,
            },
            finish_reason: choice.finish_reason,
        }),
        None => None,
    };
    Some(Chunk { usage: wire.usage.map(|Obj(usage)| usage.counts()), choice })
}

#[derive(Deserialize)]
struct ChunkWire {
    /// Present at all (even null): the chunk is an error, which the `Value`
    /// path classifies.
    #[serde(default, deserialize_with = "present")]
    error: Option<IgnoredAny>,
    #[serde(default)]
    usage: Option<Obj<UsageWire>>,
    #[serde(default)]
    choices: Option<Vec<Obj<ChoiceWire>>>,
}

#[derive(Deserialize)]
struct ChoiceWire {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    delta: Option<Obj<MessageWire>>,
    #[serde(default)]
    finish_reason: Option<String>,
}

/// The delta, or `None` when a call index does not fit a `u32` (the
/// `Value` path reports that as a decode error).
fn view(delta: MessageWire) -> Option<ChunkDelta> {
    let tool_calls = match delta.tool_calls {
        Some(calls) => Some(
            calls
                .into_iter()
                .map(|Obj(call)| {
                    let index = call.index.map(u32::try_from).transpose().ok()?;
                    Some(CallDelta { index, id: call.id, kind: call.kind, function: call.function.map(|Obj(f)| f) })
                })
                .collect::<Option<Vec<_>>>()?,
        ),
        None => None,
    };
    Some(ChunkDelta {
        reasoning: reasoning(delta.reasoning_content, delta.reasoning),
        content: delta.content,
        refusal: delta.refusal,
        annotations: delta.annotations,
        tool_calls,
        function_call: delta.function_call.map(|Obj(f)| f),
    })
}

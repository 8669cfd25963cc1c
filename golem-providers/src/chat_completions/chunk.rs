//! A typed view of one streamed `chat.completion.chunk`: the fast path of
//! [`ChatStream`](super::ChatStream) (issue 20).
//!
//! Like the whole-response view in `envelope`, it is strict: a chunk with
//! an `error` member, a field of an unexpected type, a duplicated field or a
//! tool-call index beyond `u32` does not fit, and the stream decodes that
//! chunk through its `Value` path, which defines the meaning.
//! `fuzzing::chat_stream` checks that both ways give the same outcome. As
//! there, fields golem never reads are skipped unparsed.

use super::envelope::{read_message, read_usage, reasoning, Content, FunctionWire, MessageWire, UsageWire};
use super::strict_reader::{once, Read, Reader, Refused};
use golem_core::message::Usage;

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
    let mut reader = Reader::new(data.as_bytes());
    let chunk = read_chunk(&mut reader).ok()?;
    reader.end().ok()?;
    Some(chunk)
}

fn read_chunk(reader: &mut Reader<'_>) -> Read<Chunk> {
    let mut members = reader.object()?;
    let (mut seen, mut usage, mut first) = (0, None, None);
    while let Some(key) = reader.key(&mut members)? {
        match key {
            // Present at all (even null): the chunk is an error, which the
            // `Value` path classifies.
            b"error" => return Err(Refused),
            b"usage" => {
                once(&mut seen, 0)?;
                usage = read_usage(reader)?;
            }
            b"choices" => {
                once(&mut seen, 1)?;
                if reader.null()? {
                    continue;
                }
                // Every choice is read (each must fit); the first of index 0
                // (or none) is the one the stream follows.
                let mut items = reader.array()?;
                while reader.item(&mut items)? {
                    let choice = read_choice(reader)?;
                    if first.is_none() && choice.index.is_none_or(|i| i == 0) {
                        first = Some(choice);
                    }
                }
            }
            _ => reader.skip()?,
        }
    }
    let choice = match first {
        Some(choice) => Some(Choice {
            delta: match choice.delta {
                Some(delta) => Some(view(delta).ok_or(Refused)?),
                None => None,
            },
            finish_reason: choice.finish_reason,
        }),
        None => None,
    };
    Ok(Chunk { usage: usage.map(UsageWire::counts), choice })
}

/// One entry of a chunk's `choices`.
struct ChoiceWire {
    index: Option<u64>,
    delta: Option<MessageWire>,
    finish_reason: Option<String>,
}

fn read_choice(reader: &mut Reader<'_>) -> Read<ChoiceWire> {
    let mut members = reader.object()?;
    let mut seen = 0;
    let mut choice = ChoiceWire { index: None, delta: None, finish_reason: None };
    while let Some(key) = reader.key(&mut members)? {
        match key {
            b"index" => {
                once(&mut seen, 0)?;
                choice.index = reader.opt_u64()?;
            }
            b"delta" => {
                once(&mut seen, 1)?;
                choice.delta = read_message(reader)?;
            }
            b"finish_reason" => {
                once(&mut seen, 2)?;
                choice.finish_reason = reader.opt_string()?;
            }
            _ => reader.skip()?,
        }
    }
    Ok(choice)
}

/// The delta, or `None` when a call index does not fit a `u32` (the
/// `Value` path reports that as a decode error).
fn view(delta: MessageWire) -> Option<ChunkDelta> {
    let tool_calls = match delta.tool_calls {
        Some(calls) => Some(
            calls
                .into_iter()
                .map(|call| {
                    let index = call.index.map(u32::try_from).transpose().ok()?;
                    Some(CallDelta { index, id: call.id, kind: call.kind, function: call.function })
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
        function_call: delta.function_call,
    })
}

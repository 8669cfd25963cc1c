//! One streaming semantics for every model (SPEC STREAM-04, STREAM-05,
//! STREAM-08, MODEL-04): [`response_deltas`] turns a finished response into
//! the deltas a stream would have yielded, and [`StreamAssembler`] turns
//! deltas back into the assistant message.
//!
//! The fakes use both halves today; the assembler is written for providers
//! too (bounded, index-keyed, never panicking on wire input), which is why it
//! does not assume the deltas came from [`response_deltas`].

use crate::builtin::ProviderPart;
use crate::message::{Message, Role, ThinkingBlock, ToolArgs, ToolCall};
use crate::model::{Delta, DeltaSink, ModelError, Response};

/// The most tool calls one turn may assemble (SPEC STREAM-08).
pub const MAX_TOOL_CALLS: usize = 128;

/// The most thinking blocks one turn may assemble; the same bound as tool
/// calls, so a hostile stream cannot grow the block table without limit.
pub const MAX_THINKING_BLOCKS: usize = 128;

/// The most built-in tool blocks (calls, results, grounding) one turn may
/// assemble: the same kind of bound as tool calls.
pub const MAX_PROVIDER_PARTS: usize = 256;

/// The largest tool-call or thinking-block index accepted (SPEC STREAM-08).
pub const MAX_INDEX: u32 = 1023;

/// Why a delta could not be assembled. The delta is dropped and the
/// assembler keeps what it had, so the caller may still take a snapshot as
/// partial evidence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssembleError {
    /// A tool-call delta's index is beyond [`MAX_INDEX`].
    #[error("tool call index {index} exceeds the maximum of {max}")]
    ToolCallIndex {
        /// The index received.
        index: u32,
        /// The largest index accepted.
        max: u32,
    },
    /// A delta would open more than [`MAX_TOOL_CALLS`] tool calls.
    #[error("more than {limit} tool calls in one turn")]
    TooManyToolCalls {
        /// The number of calls accepted.
        limit: usize,
    },
    /// A thinking delta's index is beyond [`MAX_INDEX`].
    #[error("thinking block index {index} exceeds the maximum of {max}")]
    ThinkingIndex {
        /// The index received.
        index: u32,
        /// The largest index accepted.
        max: u32,
    },
    /// A delta would open more than [`MAX_THINKING_BLOCKS`] thinking blocks.
    #[error("more than {limit} thinking blocks in one turn")]
    TooManyThinkingBlocks {
        /// The number of blocks accepted.
        limit: usize,
    },
    /// More than [`MAX_PROVIDER_PARTS`] built-in tool blocks in one turn.
    #[error("more than {limit} built-in tool blocks in one turn")]
    TooManyProviderParts {
        /// The number of blocks accepted.
        limit: usize,
    },
}

/// A tool call under assembly; arguments grow fragment by fragment.
#[derive(Clone, Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    args: String,
    signature: String,
}

/// Builds an assistant message from streamed [`Delta`]s (SPEC STREAM-05).
///
/// Text deltas are concatenated into the content. Thinking and tool-call
/// deltas are keyed by their index — the first delta for an index opens the
/// entry — and come out in index order, whatever order they arrived in and
/// whether or not the indices are contiguous. A tool call takes its id and
/// name from the first fragment that carries them (later repeats are
/// ignored, as some providers resend them) and concatenates its argument
/// fragments; signatures arrive whole, so a later one replaces an earlier one.
///
/// ```
/// use golem_core::model::Delta;
/// use golem_core::testing::StreamAssembler;
///
/// let mut asm = StreamAssembler::new();
/// asm.push(&Delta::text("Hel")).unwrap();
/// asm.push(&Delta::text("lo")).unwrap();
/// assert_eq!(asm.finish().content, "Hello");
/// ```
#[derive(Clone, Debug, Default)]
pub struct StreamAssembler {
    content: String,
    thinking: Slots<ThinkingBlock>,
    calls: Slots<PartialCall>,
    provider_parts: Vec<ProviderPart>,
    /// Borrowed when a codec names its family by a constant.
    provider: std::borrow::Cow<'static, str>,
}

impl StreamAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        StreamAssembler::default()
    }

    /// Builder-style: stamp `provider` on every assembled thinking block, so
    /// a codec can mark the blocks its family signed (SPEC THINK-04).
    pub fn with_provider(mut self, provider: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        self.provider = provider.into();
        self
    }

    /// Take one delta. On error nothing changes.
    pub fn push(&mut self, delta: &Delta) -> Result<(), AssembleError> {
        match delta {
            Delta::Text { text } => self.content.push_str(text),
            Delta::Thinking { index, text, signature, redacted } => {
                let block = self.thinking_slot(*index)?;
                block.text.push_str(text);
                block.redacted.push_str(redacted);
                if !signature.is_empty() {
                    block.signature.clone_from(signature);
                }
            }
            Delta::ToolCall { index, id, name, args, signature } => {
                let call = self.call_slot(*index)?;
                if call.id.is_empty() {
                    call.id.clone_from(id);
                }
                if call.name.is_empty() {
                    call.name.clone_from(name);
                }
                call.args.push_str(args);
                if !signature.is_empty() {
                    call.signature.clone_from(signature);
                }
            }
            Delta::Provider { part } => self.provider_part(part.clone())?,
        }
        Ok(())
    }

    /// [`push`](StreamAssembler::push) a delta the caller no longer needs:
    /// its text moves into an entry that has none yet instead of being
    /// copied, which is what a whole response's deltas (one per entry) want.
    pub fn push_owned(&mut self, delta: Delta) -> Result<(), AssembleError> {
        match delta {
            Delta::Text { text } => append(&mut self.content, text),
            Delta::Thinking { index, text, signature, redacted } => {
                let block = self.thinking_slot(index)?;
                append(&mut block.text, text);
                append(&mut block.redacted, redacted);
                if !signature.is_empty() {
                    block.signature = signature;
                }
            }
            Delta::ToolCall { index, id, name, args, signature } => {
                let call = self.call_slot(index)?;
                if call.id.is_empty() {
                    call.id = id;
                }
                if call.name.is_empty() {
                    call.name = name;
                }
                append(&mut call.args, args);
                if !signature.is_empty() {
                    call.signature = signature;
                }
            }
            Delta::Provider { part } => self.provider_part(part)?,
        }
        Ok(())
    }

    fn provider_part(&mut self, mut part: ProviderPart) -> Result<(), AssembleError> {
        if self.provider_parts.len() >= MAX_PROVIDER_PARTS {
            return Err(AssembleError::TooManyProviderParts { limit: MAX_PROVIDER_PARTS });
        }
        part.at = self.content.len();
        self.provider_parts.push(part);
        Ok(())
    }

    fn thinking_slot(&mut self, index: u32) -> Result<&mut ThinkingBlock, AssembleError> {
        slot(&mut self.thinking, index, MAX_THINKING_BLOCKS).map_err(|e| match e {
            SlotError::Index => AssembleError::ThinkingIndex { index, max: MAX_INDEX },
            SlotError::Full => AssembleError::TooManyThinkingBlocks { limit: MAX_THINKING_BLOCKS },
        })
    }

    fn call_slot(&mut self, index: u32) -> Result<&mut PartialCall, AssembleError> {
        slot(&mut self.calls, index, MAX_TOOL_CALLS).map_err(|e| match e {
            SlotError::Index => AssembleError::ToolCallIndex { index, max: MAX_INDEX },
            SlotError::Full => AssembleError::TooManyToolCalls { limit: MAX_TOOL_CALLS },
        })
    }

    /// The message assembled so far, leaving the assembler usable — for
    /// partial evidence when a stream fails midway.
    pub fn snapshot(&self) -> Message {
        self.clone().finish()
    }

    /// The assembled assistant message.
    pub fn finish(self) -> Message {
        let provider = self.provider;
        let thinking = self
            .thinking
            .into_values()
            .map(|mut block| {
                if block.provider.is_empty() {
                    block.provider = provider.to_string();
                }
                block
            })
            .collect();
        let tool_calls = self
            .calls
            .into_values()
            .map(|c| ToolCall { id: c.id, name: c.name, args: ToolArgs::new(c.args), signature: c.signature })
            .collect();
        Message {
            content: self.content,
            thinking,
            tool_calls,
            provider_parts: self.provider_parts,
            ..Message::new(Role::Assistant)
        }
    }
}

enum SlotError {
    Index,
    Full,
}

/// `text` after what `to` holds: moved when `to` is empty, copied otherwise.
fn append(to: &mut String, text: String) {
    if to.is_empty() {
        *to = text;
    } else {
        to.push_str(&text);
    }
}

/// Entries keyed by a delta's index, in index order: a vector rather than a
/// `BTreeMap`, since a turn has a handful of entries (at most the bounds
/// above) that nearly always arrive in order, and a map's first node alone
/// is over a kilobyte per assembled response (issue 37).
#[derive(Clone, Debug)]
struct Slots<T>(Vec<(u32, T)>);

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots(Vec::new())
    }
}

impl<T> Slots<T> {
    /// The values in index order.
    fn into_values(self) -> impl Iterator<Item = T> {
        self.0.into_iter().map(|(_, value)| value)
    }
}

/// The entry for `index`, opened on first use within the bounds.
fn slot<T: Default>(slots: &mut Slots<T>, index: u32, limit: usize) -> Result<&mut T, SlotError> {
    if index > MAX_INDEX {
        return Err(SlotError::Index);
    }
    let entries = &mut slots.0;
    // Deltas continue the last entry or open the next one: no search.
    let at = match entries.last() {
        Some(&(last, _)) if last == index => entries.len() - 1,
        Some(&(last, _)) if last > index => match entries.binary_search_by_key(&index, |(key, _)| *key) {
            Ok(found) => found,
            Err(at) => open(entries, at, index, limit)?,
        },
        _ => open(entries, entries.len(), index, limit)?,
    };
    Ok(&mut entries[at].1)
}

/// Open `index`'s entry at position `at`, within `limit` entries.
fn open<T: Default>(entries: &mut Vec<(u32, T)>, at: usize, index: u32, limit: usize) -> Result<usize, SlotError> {
    if entries.len() >= limit {
        return Err(SlotError::Full);
    }
    entries.insert(at, (index, T::default()));
    Ok(at)
}

/// Assemble a whole delta sequence (see [`StreamAssembler`]).
pub fn assemble(deltas: &[Delta]) -> Result<Message, AssembleError> {
    let mut asm = StreamAssembler::new();
    for delta in deltas {
        asm.push(delta)?;
    }
    Ok(asm.finish())
}

/// The deltas a stream of `response` yields (SPEC TEST-02, STREAM-04), in
/// the order providers send them: thinking, text, tool calls.
///
/// - one [`Delta::Thinking`] with each block's text (even when empty, so the
///   block exists after assembly), then one with its signature if it has one;
///   a redacted block is one delta carrying its data;
/// - the content in pieces of `chunk` characters (0: one piece), split on
///   character boundaries, with each provider part whole where it stood;
/// - per tool call, a first delta with id, name and signature, then its
///   arguments in pieces of `chunk` characters.
///
/// For a message of content, thinking and tool calls,
/// `assemble(&response_deltas(r, n)) == Ok(r.message)` (SPEC MODEL-04) as long
/// as the bounds of [`StreamAssembler`] hold.
pub fn response_deltas(response: &Response, chunk: usize) -> Vec<Delta> {
    let message = &response.message;
    let mut out = Vec::new();
    for (i, block) in message.thinking.iter().enumerate() {
        let index = index_u32(i);
        if !block.redacted.is_empty() {
            out.push(Delta::Thinking {
                index,
                text: String::new(),
                signature: String::new(),
                redacted: block.redacted.clone(),
            });
            continue;
        }
        out.push(Delta::Thinking {
            index,
            text: block.text.clone(),
            signature: String::new(),
            redacted: String::new(),
        });
        if !block.signature.is_empty() {
            out.push(Delta::Thinking {
                index,
                text: String::new(),
                signature: block.signature.clone(),
                redacted: String::new(),
            });
        }
    }
    let mut from = 0;
    for part in &message.provider_parts {
        let at = boundary_at_or_before(&message.content, part.at.max(from));
        out.extend(pieces(&message.content[from..at], chunk).map(Delta::text));
        out.push(Delta::Provider { part: part.clone() });
        from = at;
    }
    out.extend(pieces(&message.content[from..], chunk).map(Delta::text));
    for (i, call) in message.tool_calls.iter().enumerate() {
        let index = index_u32(i);
        out.push(Delta::ToolCall {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
            args: String::new(),
            signature: call.signature.clone(),
        });
        out.extend(pieces(call.args.as_str(), chunk).map(|args| Delta::ToolCall {
            index,
            id: String::new(),
            name: String::new(),
            args: args.to_string(),
            signature: String::new(),
        }));
    }
    out
}

/// Deliver `response` to `sink` as [`response_deltas`] and return it — the
/// streaming half of every fake. A sink error stops delivery and becomes a
/// [`ModelErrorKind::SinkAborted`](crate::model::ModelErrorKind::SinkAborted) error carrying it as its source
/// (SPEC STREAM-02).
pub fn stream_response(response: Response, chunk: usize, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
    for delta in response_deltas(&response, chunk) {
        sink.delta(delta).map_err(ModelError::sink_aborted)?;
    }
    Ok(response)
}

/// `at` clamped into `text` and moved back onto a character boundary.
fn boundary_at_or_before(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Positions beyond `u32` cannot occur in practice; saturating keeps the
/// conversion total, and the assembler rejects such indices anyway.
fn index_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// `text` in pieces of `chunk` characters; nothing for empty text, and the
/// whole text for `chunk == 0`.
fn pieces(text: &str, chunk: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = if chunk == 0 { rest.len() } else { rest.char_indices().nth(chunk).map_or(rest.len(), |(at, _)| at) };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

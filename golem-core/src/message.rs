//! The message model and its durable JSON form (SPEC MSG).
//!
//! Messages are the conversation evidence every run returns. Their JSON is
//! additive-only forever and field-compatible with Go golem, so a history
//! written by either implementation loads in the other: camelCase names,
//! empty fields omitted (except `role`), unknown fields ignored.

use crate::id::Id;
pub use crate::tool_args::ToolArgs;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The person or program driving the conversation.
    User,
    /// The model.
    Assistant,
    /// A tool result answering one of the assistant's tool calls.
    Tool,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        })
    }
}

/// One message of a conversation.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Text content.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content: String,
    /// Non-text parts (images, documents, …) following the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    /// Tool calls requested by an assistant message, in emission order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// On a tool message: the provider id of the call it answers.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_call_id: String,
    /// On a tool message: the name of the tool that produced it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// On a tool message: the result is a definitive failure shown to the model.
    #[serde(default, skip_serializing_if = "is_false")]
    pub failed: bool,
    /// Thinking blocks of an assistant message, replayed to their provider.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thinking: Vec<ThinkingBlock>,
    /// Blocks a provider's built-in tools left (their calls, results,
    /// grounding), replayed byte for byte to the family that produced them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provider_parts: Vec<crate::builtin::ProviderPart>,
    /// The run that added this message, when known. Shared: a run stamps
    /// its id on every message it adds, so each holds a reference rather
    /// than a copy.
    #[serde(default, skip_serializing_if = "Id::is_empty")]
    pub run_id: Id,
    /// The conversation this message belongs to, when known (shared like
    /// `run_id`).
    #[serde(default, skip_serializing_if = "Id::is_empty")]
    pub conversation_id: Id,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `a == b` without calling `memcmp` for empty text. Most of a message's
/// text fields are empty, and an empty `String` points nowhere: glibc's
/// vectorised `memcmp` still issues a masked load from that address, which
/// costs some CPUs a microcode assist of hundreds of cycles — comparing a
/// history (what codecs do to reuse its encoded prefix) took as long as
/// encoding it.
fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

/// Field by field, as a derive would; the destructuring makes a new field a
/// compile error here until it is compared.
impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        let Message {
            role,
            content,
            parts,
            tool_calls,
            tool_call_id,
            tool_name,
            failed,
            thinking,
            provider_parts,
            run_id,
            conversation_id,
        } = self;
        *role == other.role
            && *failed == other.failed
            && same_text(content, &other.content)
            && same_text(tool_call_id, &other.tool_call_id)
            && same_text(tool_name, &other.tool_name)
            && same_text(run_id, &other.run_id)
            && same_text(conversation_id, &other.conversation_id)
            && *tool_calls == other.tool_calls
            && *parts == other.parts
            && *thinking == other.thinking
            && *provider_parts == other.provider_parts
    }
}

impl Message {
    /// An empty message with the given role.
    pub fn new(role: Role) -> Self {
        Message {
            role,
            content: String::new(),
            parts: Vec::new(),
            tool_calls: Vec::new(),
            tool_call_id: String::new(),
            tool_name: String::new(),
            failed: false,
            thinking: Vec::new(),
            provider_parts: Vec::new(),
            run_id: Id::default(),
            conversation_id: Id::default(),
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message { content: content.into(), ..Message::new(Role::System) }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message { content: content.into(), ..Message::new(Role::User) }
    }

    /// An assistant message with text content.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { content: content.into(), ..Message::new(Role::Assistant) }
    }

    /// An assistant message requesting tool calls.
    pub fn assistant_calls(calls: Vec<ToolCall>) -> Self {
        Message { tool_calls: calls, ..Message::new(Role::Assistant) }
    }

    /// A tool result answering the call `call_id` of tool `tool_name`.
    pub fn tool_result(call_id: impl Into<String>, tool_name: impl Into<String>, content: impl Into<String>) -> Self {
        Message {
            content: content.into(),
            tool_call_id: call_id.into(),
            tool_name: tool_name.into(),
            ..Message::new(Role::Tool)
        }
    }

    /// Builder-style: attach parts.
    pub fn with_parts(mut self, parts: Vec<Part>) -> Self {
        self.parts = parts;
        self
    }

    /// Builder-style: attach the blocks of a provider's built-in tools.
    pub fn with_provider_parts(mut self, parts: Vec<crate::builtin::ProviderPart>) -> Self {
        self.provider_parts = parts;
        self
    }

    /// Builder-style: attach thinking blocks.
    pub fn with_thinking(mut self, thinking: Vec<ThinkingBlock>) -> Self {
        self.thinking = thinking;
        self
    }
}

/// One tool call requested by the model.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolCall {
    /// The provider's id for the call (payload, not a machine correlation key).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// The tool the model asked for.
    pub name: String,
    /// Raw JSON arguments, byte-exact.
    #[serde(default, skip_serializing_if = "ToolArgs::is_empty_text")]
    pub args: ToolArgs,
    /// An opaque provider token (e.g. a Gemini thought signature).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
}

/// Field by field without `memcmp` on empty text, as `Message` compares.
impl PartialEq for ToolCall {
    fn eq(&self, other: &Self) -> bool {
        let ToolCall { id, name, args, signature } = self;
        same_text(id, &other.id)
            && same_text(name, &other.name)
            && same_text(args.as_str(), other.args.as_str())
            && same_text(signature, &other.signature)
    }
}

impl ToolCall {
    /// A call with the given provider id, tool name and raw arguments.
    pub fn new(id: impl Into<String>, name: impl Into<String>, args: impl Into<ToolArgs>) -> Self {
        ToolCall { id: id.into(), name: name.into(), args: args.into(), signature: String::new() }
    }

    /// Builder-style: attach an opaque provider signature.
    pub fn with_signature(mut self, signature: impl Into<String>) -> Self {
        self.signature = signature.into();
        self
    }
}

/// What a [`Part`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartKind {
    /// An image.
    Image,
    /// A document such as a PDF.
    Document,
    /// Audio.
    Audio,
    /// Video.
    Video,
}

/// A non-text part of a message: referenced by URL or carried inline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Part {
    /// What the part holds.
    pub kind: PartKind,
    /// Where the provider can fetch it (exclusive with `data`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// Inline bytes, shared not copied; standard base64 in JSON.
    #[serde(default, skip_serializing_if = "Bytes::is_empty", with = "base64_bytes")]
    pub data: Bytes,
    /// The IANA media type, required with `data`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub media_type: String,
}

/// Why a [`Part`] is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PartError {
    /// Neither a URL nor inline data.
    #[error("{0:?} part has neither a url nor data")]
    Empty(PartKind),
    /// Both a URL and inline data.
    #[error("{0:?} part has both a url and data")]
    Both(PartKind),
    /// Inline data without a media type.
    #[error("{0:?} part has inline data without a media type")]
    MissingMediaType(PartKind),
}

impl Part {
    /// A part of `kind` the provider fetches from `url`.
    pub fn from_url(kind: PartKind, url: impl Into<String>) -> Self {
        Part { kind, url: url.into(), data: Bytes::new(), media_type: String::new() }
    }

    /// A part of `kind` carried inline: `data` with its media type.
    pub fn from_data(kind: PartKind, media_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Part { kind, url: String::new(), data: data.into(), media_type: media_type.into() }
    }

    /// An image the provider fetches from `url`.
    pub fn image_url(url: impl Into<String>) -> Self {
        Part::from_url(PartKind::Image, url)
    }

    /// Inline image bytes with their media type (e.g. `image/png`).
    pub fn image_data(media_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Part::from_data(PartKind::Image, media_type, data)
    }

    /// Check the part is well formed (SPEC MSG-03).
    pub fn validate(&self) -> Result<(), PartError> {
        match (self.url.is_empty(), self.data.is_empty()) {
            (true, true) => Err(PartError::Empty(self.kind)),
            (false, false) => Err(PartError::Both(self.kind)),
            (true, false) if self.media_type.is_empty() => Err(PartError::MissingMediaType(self.kind)),
            _ => Ok(()),
        }
    }
}

mod base64_bytes {
    use base64::Engine as _;
    use bytes::Bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &Bytes, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map(Bytes::from)
            .map_err(serde::de::Error::custom)
    }
}

/// A thinking block carried on an assistant message (SPEC MSG-04).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThinkingBlock {
    /// Visible reasoning text (exclusive with `redacted`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The provider's signature over the text, replayed verbatim.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// Opaque redacted reasoning data (exclusive with `text`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub redacted: String,
    /// The codec family that produced the block; empty when unknown.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub provider: String,
}

impl ThinkingBlock {
    /// A block of visible reasoning text.
    pub fn text(text: impl Into<String>) -> Self {
        ThinkingBlock { text: text.into(), ..ThinkingBlock::default() }
    }

    /// A block of opaque redacted reasoning data.
    pub fn redacted(data: impl Into<String>) -> Self {
        ThinkingBlock { redacted: data.into(), ..ThinkingBlock::default() }
    }

    /// Builder-style: the provider's signature over the text.
    pub fn with_signature(mut self, signature: impl Into<String>) -> Self {
        self.signature = signature.into();
        self
    }

    /// Builder-style: the codec family that produced the block.
    pub fn with_provider(mut self, provider: impl Into<String>) -> Self {
        self.provider = provider.into();
        self
    }

    /// Check the block is well formed: exactly one of text/redacted, and no
    /// signature on redacted data.
    pub fn is_valid(&self) -> bool {
        match (self.text.is_empty(), self.redacted.is_empty()) {
            (false, true) => true,
            (true, false) => self.signature.is_empty(),
            _ => false,
        }
    }
}

/// Token consumption reported by a provider (SPEC MSG-06, USAGE-02).
///
/// `input_tokens` includes cached tokens and `output_tokens` includes
/// reasoning tokens; the detail fields sit inside those totals.
///
/// Like every public struct that may gain fields, `Usage` is
/// `#[non_exhaustive]`: build it with [`Usage::new`] and the `with_*`
/// setters, or start from `Usage::default()` and assign its public fields.
///
/// ```
/// use golem_core::Usage;
///
/// let usage = Usage::new(1200, 300).with_cache_read_tokens(1000);
/// let mut parsed = Usage::default();
/// parsed.input_tokens = 1200;
/// parsed.output_tokens = 300;
/// parsed.cache_read_tokens = 1000;
/// assert_eq!(parsed, usage);
/// ```
///
/// A struct literal does not compile outside golem-core, so adding a field
/// is no breaking change:
///
/// ```compile_fail
/// let usage = golem_core::Usage {
///     input_tokens: 1,
///     output_tokens: 2,
///     cache_read_tokens: 0,
///     cache_write_tokens: 0,
///     reasoning_tokens: 0,
/// };
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Completion tokens, reasoning included.
    pub output_tokens: u64,
    /// Of the input, tokens read from a prompt cache.
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Of the input, tokens written to a prompt cache.
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Of the output, reasoning tokens.
    #[serde(skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Usage with just input and output counts.
    pub const fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Usage { input_tokens, output_tokens, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }
    }

    /// Builder-style: of the input, tokens read from a prompt cache.
    pub const fn with_cache_read_tokens(mut self, tokens: u64) -> Self {
        self.cache_read_tokens = tokens;
        self
    }

    /// Builder-style: of the input, tokens written to a prompt cache.
    pub const fn with_cache_write_tokens(mut self, tokens: u64) -> Self {
        self.cache_write_tokens = tokens;
        self
    }

    /// Builder-style: of the output, reasoning tokens.
    pub const fn with_reasoning_tokens(mut self, tokens: u64) -> Self {
        self.reasoning_tokens = tokens;
        self
    }

    /// input + output.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// Input tokens that were neither read from nor written to a cache.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens.saturating_sub(self.cache_read_tokens).saturating_sub(self.cache_write_tokens)
    }

    /// Add `other` field by field, saturating.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_add(other.cache_write_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }

    /// True when every field is zero.
    pub fn is_zero(&self) -> bool {
        *self == Usage::default()
    }
}

/// Why the model stopped generating (SPEC MSG-06).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural stop.
    Stop,
    /// The token limit was hit.
    Length,
    /// The model asked for tool calls.
    ToolCall,
    /// A content filter intervened.
    ContentFilter,
    /// Some other provider reason.
    Other,
    /// Not reported.
    #[default]
    Unknown,
}

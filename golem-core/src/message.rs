//! The message model and its durable JSON form (SPEC MSG).
//!
//! Messages are the conversation evidence every run returns. Their JSON is
//! additive-only forever and field-compatible with Go golem, so a history
//! written by either implementation loads in the other: camelCase names,
//! empty fields omitted (except `role`), unknown fields ignored.

use crate::id::Id;
use bytes::Bytes;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
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

/// The arguments of a tool call: raw JSON text, kept byte for byte.
///
/// Model output is untrusted, so the text may be anything — including JSON
/// cut off by a length stop. Valid JSON serialises as itself (byte-exact);
/// anything else serialises as a JSON string holding the text, which keeps it
/// recognisably "not an object" after a round trip.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct ToolArgs(String);

impl ToolArgs {
    /// Wrap raw argument text as produced by the model.
    pub fn new(raw: impl Into<String>) -> Self {
        ToolArgs(raw.into())
    }

    /// Arguments serialised from a JSON value.
    pub fn from_value(value: &serde_json::Value) -> Self {
        ToolArgs(value.to_string())
    }

    /// The raw text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when the text is a JSON object (what tools accept).
    pub fn is_object(&self) -> bool {
        crate::json_object::is_json_object(&self.0)
    }

    /// The arguments as a tool receives them: a JSON object as itself, empty
    /// text as `{}` (a call of a tool without parameters, as some providers
    /// send it), anything else `None` — the one reading the machine screens
    /// calls by (SPEC TOOL-05) and the drivers hand to handlers.
    ///
    /// ```
    /// use golem_core::ToolArgs;
    /// assert_eq!(ToolArgs::new(" ").object(), Some(serde_json::json!({})));
    /// assert_eq!(ToolArgs::new(r#"{"a":1}"#).object(), Some(serde_json::json!({"a": 1})));
    /// assert_eq!(ToolArgs::new(r#"{"a":"#).object(), None);
    /// assert_eq!(ToolArgs::new("[1]").object(), None);
    /// ```
    pub fn object(&self) -> Option<serde_json::Value> {
        if self.0.trim().is_empty() {
            return Some(serde_json::Value::Object(serde_json::Map::new()));
        }
        serde_json::from_str::<serde_json::Value>(&self.0).ok().filter(serde_json::Value::is_object)
    }

    /// Parse the text as a JSON value.
    pub fn parse(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(&self.0)
    }

    /// The text providers should be sent (SPEC HIST-06): empty → `{}`, a JSON
    /// object unchanged, anything else wrapped as `{"truncated_args": "<raw>"}`.
    pub fn normalized_for_wire(&self) -> String {
        if self.0.trim().is_empty() {
            "{}".to_string()
        } else if self.is_object() {
            self.0.clone()
        } else {
            serde_json::json!({ "truncated_args": self.0 }).to_string()
        }
    }
}

impl fmt::Debug for ToolArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolArgs({})", self.0)
    }
}

impl fmt::Display for ToolArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ToolArgs {
    fn from(s: &str) -> Self {
        ToolArgs(s.to_string())
    }
}

impl From<String> for ToolArgs {
    fn from(s: String) -> Self {
        ToolArgs(s)
    }
}

impl Serialize for ToolArgs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match serde_json::value::RawValue::from_string(self.0.clone()) {
            Ok(raw) if !self.0.is_empty() => raw.serialize(s),
            _ => s.serialize_str(&self.0),
        }
    }
}

/// The name serde_json recognises to hand out raw JSON text. Asking for it
/// ourselves (rather than through `RawValue`) lets the same visitor also
/// accept buffered input — inside internally tagged or flattened types, where
/// serde offers no raw text — by re-serialising the value.
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

struct ArgsVisitor;

impl<'de> serde::de::Visitor<'de> for ArgsVisitor {
    type Value = ToolArgs;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tool-call arguments (any JSON value)")
    }

    // serde_json's raw path: a one-entry map whose value is the exact text.
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ToolArgs, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Ok(ToolArgs("{}".to_string()));
        };
        if key == RAW_TOKEN {
            let raw: String = map.next_value()?;
            return Ok(ToolArgs(raw));
        }
        // A genuine object from a buffered source: rebuild it.
        let mut object = serde_json::Map::new();
        object.insert(key, map.next_value()?);
        while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
            object.insert(k, v);
        }
        Ok(ToolArgs(serde_json::Value::Object(object).to_string()))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<ToolArgs, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        Ok(ToolArgs(value.to_string()))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ToolArgs, E> {
        Ok(ToolArgs(serde_json::Value::String(v.to_string()).to_string()))
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<ToolArgs, E> {
        Ok(ToolArgs(v.to_string()))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ToolArgs, E> {
        Ok(ToolArgs(v.to_string()))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ToolArgs, E> {
        Ok(ToolArgs(v.to_string()))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<ToolArgs, E> {
        Ok(ToolArgs(serde_json::Value::from(v).to_string()))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<ToolArgs, E> {
        Ok(ToolArgs("null".to_string()))
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<ToolArgs, E> {
        Ok(ToolArgs("null".to_string()))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ToolArgs, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<serde_json::Value>()? {
            items.push(item);
        }
        Ok(ToolArgs(serde_json::Value::Array(items).to_string()))
    }
}

impl<'de> Deserialize<'de> for ToolArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(RAW_TOKEN, ArgsVisitor)
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

impl ToolArgs {
    fn is_empty_text(&self) -> bool {
        self.0.is_empty()
    }
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

//! The Chat Completions wire format, shared by every service that speaks it
//! (SPEC PROV-OAI, PROV-AZ-01).
//!
//! OpenAI, the OpenAI-compatible services and Azure OpenAI send the same
//! JSON bodies and stream the same chunks; they differ in URL, credentials
//! and a handful of quirks. This module owns the format — request bodies
//! ([`request`]), response bodies ([`response`]), streams ([`stream`]) and
//! error bodies ([`error`]) — and takes the quirks as a [`Dialect`], so the
//! provider modules hold only what is theirs and never import each other.

mod body_writer;
mod builtin;
mod chunk;
mod codec;
mod embed;
mod envelope;
pub mod error;
pub mod ids;
mod meaning;
mod media;
pub mod request;
pub mod response;
pub mod schema;
pub mod stream;
mod strict_reader;
mod tools_cache;
pub mod tuning;
mod wire;

pub use codec::{ChatCodec, ChatFamily, EmbedRoute, Endpoint};
pub use embed::{decode_embeddings, encode_embeddings, OPENAI_BATCH_LIMIT};
pub use request::encode_body;
pub use response::{decode_body, DecodeContext};
pub use stream::ChatStream;
pub use tuning::{ChatExtras, Tuning, TuningError};

/// The codec family name stamped on thinking blocks this format produced
/// (SPEC MSG-04, THINK-04). Azure shares it: same format, same models.
pub const FAMILY: &str = "openai";

/// Which body field carries the output-token limit (SPEC PROV-OAI-02).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI; the older field is deprecated there
    /// and rejected by reasoning models).
    MaxCompletionTokens,
    /// `max_tokens` (most compatible services).
    MaxTokens,
}

impl MaxTokensField {
    /// The field name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            MaxTokensField::MaxTokens => "max_tokens",
        }
    }
}

impl std::fmt::Display for MaxTokensField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How tool-call ids are written on the wire (SPEC PROV-COMMON-06).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdRule {
    /// Ids go out as stored.
    Verbatim,
    /// Ids must be exactly nine ASCII letters or digits (Mistral): other ids
    /// are mapped to a stable nine-character id; stored ids never change.
    Alphanumeric9,
}

/// What a service speaking Chat Completions supports, and its quirks
/// (SPEC PROV-OAI-08). A feature flagged off is refused at encode time with
/// an `Unsupported` error naming it — except tool choice, which is simply
/// not sent, since the restriction of advertised tools still applies
/// (SPEC TOOL-11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dialect {
    /// Function tools are accepted.
    pub tools: bool,
    /// A forced `tool_choice` is honoured.
    pub tool_choice: bool,
    /// `response_format` with a JSON schema is accepted.
    pub json_schema: bool,
    /// `stream_options.include_usage` is accepted (usage arrives in a final
    /// chunk).
    pub stream_usage: bool,
    /// Image parts are accepted.
    pub images: bool,
    /// The output-token limit's field.
    pub max_tokens_field: MaxTokensField,
    /// The tool-call id rule.
    pub id_rule: IdRule,
}

impl Dialect {
    /// Everything supported, `max_completion_tokens`, ids verbatim: OpenAI
    /// itself.
    pub const FULL: Dialect = Dialect {
        tools: true,
        tool_choice: true,
        json_schema: true,
        stream_usage: true,
        images: true,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        id_rule: IdRule::Verbatim,
    };

    /// The capabilities a client with this dialect reports (SPEC MODEL-03).
    /// Streaming always works (the client implements the streaming traits);
    /// a native schema next to tools needs both features; forcing a tool
    /// needs tools and tool choice.
    pub fn capabilities(&self) -> golem_core::model::Capabilities {
        golem_core::model::Capabilities::new()
            .native_schema_with_tools(self.json_schema && self.tools)
            .forced_tool_choice(self.tool_choice && self.tools)
    }
}

impl Default for Dialect {
    fn default() -> Self {
        Dialect::FULL
    }
}

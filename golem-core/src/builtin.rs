//! Built-in tools: tools the provider runs itself (web search, code
//! execution, fetching a URL), declared by the agent and carried on every
//! [`Request`](crate::model::Request), and the blocks their calls and
//! results leave in an assistant message ([`ProviderPart`]).
//!
//! The declaration is provider-neutral: each codec maps the built-ins its
//! family offers onto its own wire shape and refuses, before anything is
//! sent, one it cannot run ([`BuiltinTool::name`] names it in the error).
//! What the provider answers is kept as raw JSON, byte for byte, so the
//! same family is sent it back exactly on the next turn; other families
//! leave it out. These calls are never client tool calls: golem runs no
//! handler for them.

use crate::tool_args::ToolArgs;
use serde::{Deserialize, Serialize};

/// The setters web search and web fetch share: the domains they may and
/// may not reach, and how often per request.
macro_rules! scope_setters {
    ($what:literal, $uses:literal) => {
        #[doc = concat!("Builder-style: only ", $what, " from these domains.")]
        pub fn allowed_domains<S: Into<String>>(mut self, domains: impl IntoIterator<Item = S>) -> Self {
            self.allowed_domains = domains.into_iter().map(Into::into).collect();
            self
        }

        #[doc = concat!("Builder-style: never ", $what, " from these domains.")]
        pub fn blocked_domains<S: Into<String>>(mut self, domains: impl IntoIterator<Item = S>) -> Self {
            self.blocked_domains = domains.into_iter().map(Into::into).collect();
            self
        }

        #[doc = concat!("Builder-style: at most `n` ", $uses, " per request.")]
        pub fn max_uses(mut self, n: u32) -> Self {
            self.max_uses = Some(n);
            self
        }
    };
}

/// A tool the provider runs itself.
///
/// ```
/// use golem_core::builtin::{BuiltinTool, WebSearch};
///
/// let search = BuiltinTool::WebSearch(WebSearch::new().allowed_domains(["example.com"]).max_uses(3));
/// assert_eq!(search.name(), "web_search");
/// assert_eq!(BuiltinTool::CodeExecution.name(), "code_execution");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
#[non_exhaustive]
pub enum BuiltinTool {
    /// Search the web (Anthropic `web_search`, Gemini `googleSearch`, OpenAI
    /// chat `web_search_options`, OpenAI Responses `web_search`, Bedrock
    /// Nova grounding).
    WebSearch(WebSearch),
    /// Fetch the pages the conversation names (Anthropic `web_fetch`).
    WebFetch(WebFetch),
    /// Run code the model writes in the provider's sandbox (Anthropic
    /// `code_execution`, Gemini `codeExecution`, OpenAI Responses
    /// `code_interpreter`, Bedrock Nova code interpreter).
    CodeExecution,
    /// Read the URLs given in the prompt (Gemini `urlContext`).
    UrlContext,
}

impl BuiltinTool {
    /// A short, provider-neutral name, used in errors and reports.
    pub fn name(&self) -> &'static str {
        match self {
            BuiltinTool::WebSearch(_) => "web_search",
            BuiltinTool::WebFetch(_) => "web_fetch",
            BuiltinTool::CodeExecution => "code_execution",
            BuiltinTool::UrlContext => "url_context",
        }
    }
}

/// Options of [`BuiltinTool::WebSearch`]; a family ignores none silently:
/// an option it cannot express is refused like an unsupported tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct WebSearch {
    /// Only results from these domains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_domains: Vec<String>,
    /// Never results from these domains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_domains: Vec<String>,
    /// At most this many searches per request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    /// Where the user is, to localise results.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_location: Option<UserLocation>,
}

impl WebSearch {
    /// A search with no restrictions.
    pub fn new() -> Self {
        WebSearch::default()
    }

    scope_setters!("results", "searches");

    /// Builder-style: where the user is.
    pub fn user_location(mut self, location: UserLocation) -> Self {
        self.user_location = Some(location);
        self
    }
}

/// Options of [`BuiltinTool::WebFetch`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct WebFetch {
    /// Only pages from these domains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_domains: Vec<String>,
    /// Never pages from these domains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_domains: Vec<String>,
    /// At most this many fetches per request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
}

impl WebFetch {
    /// A fetch with no restrictions.
    pub fn new() -> Self {
        WebFetch::default()
    }

    scope_setters!("pages", "fetches");
}

/// An approximate user location for localised search results; every field
/// is optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct UserLocation {
    /// City name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub city: String,
    /// Region or state.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub region: String,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub country: String,
    /// IANA time zone.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub timezone: String,
}

impl UserLocation {
    /// A location with no fields set.
    pub fn new() -> Self {
        UserLocation::default()
    }

    /// Builder-style: the city.
    pub fn city(mut self, city: impl Into<String>) -> Self {
        self.city = city.into();
        self
    }

    /// Builder-style: the region or state.
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.region = region.into();
        self
    }

    /// Builder-style: the country code.
    pub fn country(mut self, country: impl Into<String>) -> Self {
        self.country = country.into();
        self
    }

    /// Builder-style: the IANA time zone.
    pub fn timezone(mut self, timezone: impl Into<String>) -> Self {
        self.timezone = timezone.into();
        self
    }
}

/// What a [`ProviderPart`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProviderPartKind {
    /// The provider called one of its built-in tools.
    Call,
    /// What that call returned.
    Result,
    /// Data about the answer the provider attached (grounding, citations).
    /// [`interleave`] leaves it out; a codec sends it back only where it is
    /// the provider's own container of the text (the Responses API's
    /// `message` items, with their citations).
    Metadata,
}

/// A block of an assistant message that a built-in tool left: kept in the
/// history as the provider sent it and replayed to the same family byte for
/// byte; other families leave it out.
///
/// `at` is where the block stood in the message: the byte offset into the
/// message's text content at which it came (text before it, text after), so
/// a family that interleaves text and blocks gets them back in order.
///
/// ```
/// use golem_core::builtin::{ProviderPart, ProviderPartKind};
///
/// let call = ProviderPart::new("anthropic", ProviderPartKind::Call, r#"{"type":"server_tool_use"}"#)
///     .with_name("web_search")
///     .with_id("srvtoolu_1");
/// assert_eq!(call.raw.as_str(), r#"{"type":"server_tool_use"}"#);
/// assert_eq!(serde_json::to_string(&call.raw).unwrap(), r#"{"type":"server_tool_use"}"#);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProviderPart {
    /// The codec family that produced it (`anthropic`, `gemini`, `bedrock`, …).
    pub provider: String,
    /// Call, result or metadata.
    pub kind: ProviderPartKind,
    /// The built-in tool's wire name, when the block names one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The provider's id of the call (on a result: the call it answers).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// Byte offset into the message content where the block stood.
    #[serde(default)]
    pub at: usize,
    /// How many of the message's thinking blocks came before the block,
    /// for a family whose reasoning and tool blocks alternate and must go
    /// back in that order (OpenAI Responses); `None` where the family puts
    /// its thinking first anyway. Set by the codec, kept by the assembler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_at: Option<usize>,
    /// The block as the provider sent it: raw JSON, byte for byte.
    pub raw: ToolArgs,
}

impl ProviderPart {
    /// A part of `provider`'s `kind` holding the raw JSON `raw`.
    pub fn new(provider: impl Into<String>, kind: ProviderPartKind, raw: impl Into<ToolArgs>) -> Self {
        ProviderPart {
            provider: provider.into(),
            kind,
            name: String::new(),
            id: String::new(),
            at: 0,
            thinking_at: None,
            raw: raw.into(),
        }
    }

    /// Builder-style: the built-in tool's wire name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Builder-style: the provider's call id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// Builder-style: the byte offset into the content where it stood.
    pub fn with_at(mut self, at: usize) -> Self {
        self.at = at;
        self
    }

    /// Builder-style: how many thinking blocks came before it.
    pub fn with_thinking_at(mut self, blocks: usize) -> Self {
        self.thinking_at = Some(blocks);
        self
    }
}

/// The text of `content` and the provider parts of `provider` in the order
/// they stood: each item is either a text segment (never empty) or a part.
/// Metadata parts are the caller's, never sent back, so they are left out
/// (and split no text).
/// An offset past the end or inside a character places the part after the
/// text before it that is valid, so a hand-edited history cannot panic.
///
/// ```
/// use golem_core::builtin::{interleave, Piece, ProviderPart, ProviderPartKind};
///
/// let parts = vec![ProviderPart::new("anthropic", ProviderPartKind::Call, "{}").with_at(3)];
/// let pieces = interleave("abcdef", &parts, "anthropic");
/// assert!(matches!(pieces[..], [Piece::Text("abc"), Piece::Part(_), Piece::Text("def")]));
/// assert!(matches!(interleave("abcdef", &parts, "gemini")[..], [Piece::Text("abcdef")]));
/// ```
pub fn interleave<'a>(content: &'a str, parts: &'a [ProviderPart], provider: &str) -> Vec<Piece<'a>> {
    let mut out = Vec::new();
    let mut from = 0;
    let replayed = |p: &&ProviderPart| p.provider == provider && p.kind != ProviderPartKind::Metadata;
    for part in parts.iter().filter(replayed) {
        let mut at = part.at.clamp(from, content.len());
        while !content.is_char_boundary(at) {
            at -= 1;
        }
        let at = at.max(from);
        if at > from {
            out.push(Piece::Text(&content[from..at]));
        }
        out.push(Piece::Part(part));
        from = at;
    }
    if from < content.len() {
        out.push(Piece::Text(&content[from..]));
    }
    out
}

/// One item of [`interleave`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Piece<'a> {
    /// A segment of the message text.
    Text(&'a str),
    /// A provider part.
    Part(&'a ProviderPart),
}

/// Which built-in tools a model can run: part of its
/// [`Capabilities`](crate::model::Capabilities), so an agent refuses at
/// `build` a built-in its chain cannot run.
///
/// ```
/// use golem_core::builtin::{BuiltinSupport, BuiltinTool, WebSearch};
///
/// let anthropic = BuiltinSupport::NONE.web_search(true).code_execution(true);
/// assert!(anthropic.supports(&BuiltinTool::WebSearch(WebSearch::new())));
/// assert!(!anthropic.supports(&BuiltinTool::UrlContext));
/// assert!(!anthropic.intersect(BuiltinSupport::NONE).supports(&BuiltinTool::CodeExecution));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct BuiltinSupport {
    /// [`BuiltinTool::WebSearch`].
    pub web_search: bool,
    /// [`BuiltinTool::WebFetch`].
    pub web_fetch: bool,
    /// [`BuiltinTool::CodeExecution`].
    pub code_execution: bool,
    /// [`BuiltinTool::UrlContext`].
    pub url_context: bool,
}

impl BuiltinSupport {
    /// No built-in tools.
    pub const NONE: BuiltinSupport =
        BuiltinSupport { web_search: false, web_fetch: false, code_execution: false, url_context: false };

    /// Builder-style: web search.
    pub const fn web_search(mut self, yes: bool) -> Self {
        self.web_search = yes;
        self
    }

    /// Builder-style: web fetch.
    pub const fn web_fetch(mut self, yes: bool) -> Self {
        self.web_fetch = yes;
        self
    }

    /// Builder-style: code execution.
    pub const fn code_execution(mut self, yes: bool) -> Self {
        self.code_execution = yes;
        self
    }

    /// Builder-style: URL context.
    pub const fn url_context(mut self, yes: bool) -> Self {
        self.url_context = yes;
        self
    }

    /// Whether `tool` can run.
    pub fn supports(&self, tool: &BuiltinTool) -> bool {
        match tool {
            BuiltinTool::WebSearch(_) => self.web_search,
            BuiltinTool::WebFetch(_) => self.web_fetch,
            BuiltinTool::CodeExecution => self.code_execution,
            BuiltinTool::UrlContext => self.url_context,
        }
    }

    /// What both support (a fallback chain's built-ins).
    pub const fn intersect(self, other: BuiltinSupport) -> BuiltinSupport {
        BuiltinSupport {
            web_search: self.web_search && other.web_search,
            web_fetch: self.web_fetch && other.web_fetch,
            code_execution: self.code_execution && other.code_execution,
            url_context: self.url_context && other.url_context,
        }
    }
}

//! Request settings (SPEC PROV-ANT-02, PROV-COMMON-02, PROV-ANT-07):
//! sampling fields and prompt caching (thinking is
//! [`crate::config::Thinking`]).
//!
//! Every sampling field is optional and stays off the wire while unset
//! (`0.0` is a real temperature), except `max_tokens`, which the Messages
//! API requires on every request. Ranges are checked once, when the config
//! is built ([`crate::tuning`]).

use crate::tuning::{self, Extras, Limits, TuningError, WireNames};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The `max_tokens` sent when none is configured (SPEC PROV-ANT-02).
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// Anthropic's own request settings: the Messages API has no sampling
/// fields beyond the shared ones, but each server tool comes in dated
/// versions (`web_search_20250305`, `web_search_20260209` with dynamic
/// filtering, …), and a client may pick one per tool.
///
/// ```
/// use golem_providers::anthropic::Tuning;
///
/// let tuning = Tuning::new().server_tool_version("web_search", "web_search_20260209");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().server_tool_version("web_search", "web_fetch_20250910").validate().is_err());
/// assert!(Tuning::new().server_tool_version("memory", "memory_20250818").validate().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct AnthropicExtras {
    /// The version sent for a server tool, by the tool's name
    /// (`web_search`, `web_fetch`, `code_execution`); a tool not named here
    /// goes as the version golem defaults to.
    pub server_tool_versions: BTreeMap<String, String>,
}

impl Extras for AnthropicExtras {
    const LIMITS: Limits = Limits::new(
        "Anthropic",
        1.0,
        WireNames::new("temperature", "top_p", "max_tokens", "stop_sequences").top_k("top_k"),
    )
    .stop_needs_text();

    fn check(&self) -> Result<(), TuningError> {
        for (tool, version) in &self.server_tool_versions {
            if !super::builtin::SERVER_TOOLS.iter().any(|(name, _)| name == tool) {
                return Err(TuningError::UnknownServerTool { tool: tool.clone(), provider: Self::LIMITS.provider });
            }
            let dated = version.strip_prefix(tool.as_str()).and_then(|rest| rest.strip_prefix('_'));
            if !dated
                .is_some_and(|date| !date.is_empty() && date.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            {
                return Err(TuningError::ServerToolVersion { tool: tool.clone(), version: version.clone() });
            }
        }
        Ok(())
    }
}

/// The sampling fields of a Messages request: the shared ones
/// ([`crate::tuning`]), temperature and top_p in [0, 1], `top_k`, no seed.
///
/// ```
/// use golem_providers::anthropic::Tuning;
///
/// let tuning = Tuning::new().max_tokens(4096).temperature(0.2).stop("END");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().temperature(1.5).validate().is_err()); // Anthropic takes [0, 1]
/// ```
pub type Tuning = tuning::Tuning<AnthropicExtras>;

impl Tuning {
    /// The `max_tokens` the request carries: the set one, else
    /// [`DEFAULT_MAX_TOKENS`] (the Messages API requires the field).
    pub fn effective_max_tokens(&self) -> u32 {
        self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)
    }

    /// Send `version` as the `type` of the server tool named `tool`
    /// (`"web_search"`, `"web_fetch"` or `"code_execution"`) when a request
    /// declares that built-in, instead of golem's default. Checked when the
    /// config is built: the tool must be one of those and the version must
    /// be its name, `_` and a date ([`TuningError::ServerToolVersion`]).
    pub fn server_tool_version(mut self, tool: impl Into<String>, version: impl Into<String>) -> Self {
        self.extras.server_tool_versions.insert(tool.into(), version.into());
        self
    }
}

/// How long a prompt-cache entry lives (`cache_control.ttl`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheTtl {
    /// Five minutes, the API's default (sent without `ttl`).
    #[default]
    FiveMinutes,
    /// One hour (`"ttl": "1h"`).
    OneHour,
}

/// Prompt caching (SPEC PROV-ANT-07), on by default: ephemeral cache
/// breakpoints on the tools, the system text and the conversation's
/// frontier as it moves (where exactly: [`MAX_BREAKPOINTS`](super::MAX_BREAKPOINTS)'s
/// module), so each turn reads the prefix the previous turn wrote.
///
/// ```
/// use golem_providers::anthropic::{CacheControl, CacheTtl};
///
/// assert_eq!(CacheControl::new().wire(), serde_json::json!({"type": "ephemeral"}));
/// assert_eq!(CacheControl::new().ttl(CacheTtl::OneHour).wire(),
///            serde_json::json!({"type": "ephemeral", "ttl": "1h"}));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheControl {
    ttl: CacheTtl,
}

impl CacheControl {
    /// A breakpoint with the default (five-minute) lifetime.
    pub fn new() -> Self {
        CacheControl::default()
    }

    /// Builder-style: the lifetime.
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        self.ttl = ttl;
        self
    }

    /// The `cache_control` object.
    pub fn wire(&self) -> Value {
        match self.ttl {
            CacheTtl::FiveMinutes => json!({"type": "ephemeral"}),
            CacheTtl::OneHour => json!({"type": "ephemeral", "ttl": "1h"}),
        }
    }
}

//! Where tokens live between requests and runs (SPEC MCP-15): a trait the
//! application may implement (a keychain, an encrypted file), and the
//! in-memory default.

use golem_providers::Secret;
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::SystemTime;

/// The tokens an authorization server issued for one protected resource.
///
/// `Debug` shows no token: they are [`Secret`]s.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tokens {
    /// The access token sent as `Authorization: Bearer …`.
    pub access_token: Secret,
    /// The refresh token, when the server issued one.
    pub refresh_token: Option<Secret>,
    /// When the access token expires, when the server said (`expires_in`).
    pub expires_at: Option<SystemTime>,
    /// The scopes granted (the server's `scope`, else the ones asked for),
    /// space-separated; empty when none were named.
    pub scope: String,
}

impl Tokens {
    /// An access token without expiry, refresh token or scope.
    pub fn new(access_token: impl Into<Secret>) -> Self {
        Tokens { access_token: access_token.into(), refresh_token: None, expires_at: None, scope: String::new() }
    }

    /// Builder-style: the refresh token.
    pub fn with_refresh_token(mut self, token: impl Into<Secret>) -> Self {
        self.refresh_token = Some(token.into());
        self
    }

    /// Builder-style: the expiry.
    pub fn with_expires_at(mut self, at: SystemTime) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// Builder-style: the granted scopes, space-separated.
    pub fn with_scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = scope.into();
        self
    }

    /// True when the access token expires before `now` plus a small margin
    /// (a request sent now should not arrive with a dead token).
    pub fn expired(&self, now: SystemTime) -> bool {
        const MARGIN: std::time::Duration = std::time::Duration::from_secs(30);
        self.expires_at.is_some_and(|at| at <= now + MARGIN)
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &self.access_token)
            .field("refresh_token", &self.refresh_token)
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish()
    }
}

/// Keeps tokens per protected resource (the canonical URL of an MCP
/// server). Called from the client's request threads, so it must be
/// `Send + Sync`; calls are short and never overlap for one resource.
///
/// ```
/// use golem_io::mcp::{MemoryTokenStore, TokenStore, Tokens};
///
/// let store = MemoryTokenStore::new();
/// store.save("https://mcp.example.com/mcp", &Tokens::new("at-1").with_scope("files:read"));
/// let tokens = store.load("https://mcp.example.com/mcp").unwrap();
/// assert_eq!(tokens.access_token.expose(), "at-1");
/// assert!(!format!("{tokens:?}").contains("at-1"));
/// ```
pub trait TokenStore: Send + Sync {
    /// The tokens kept for `resource`, if any.
    fn load(&self, resource: &str) -> Option<Tokens>;
    /// Keep `tokens` for `resource`, replacing what was there.
    fn save(&self, resource: &str, tokens: &Tokens);
    /// Forget the tokens of `resource` (they were refused).
    fn clear(&self, resource: &str);
}

/// Tokens in memory, for the life of the process (the default store).
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, Tokens>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryTokenStore::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Tokens>> {
        self.tokens.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Option<Tokens> {
        self.map().get(resource).cloned()
    }

    fn save(&self, resource: &str, tokens: &Tokens) {
        self.map().insert(resource.to_string(), tokens.clone());
    }

    fn clear(&self, resource: &str) {
        self.map().remove(resource);
    }
}

impl fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTokenStore").field("resources", &self.map().len()).finish()
    }
}

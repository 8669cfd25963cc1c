//! A redacting wrapper for API keys and tokens (SPEC ERR-06).
//!
//! Keys must never reach `Debug` output, `Display` output, error messages or
//! logs. Holding them in [`Secret`] makes the safe thing the default: every
//! formatting path prints `[redacted]`, and the only way to the text is the
//! explicitly named [`Secret::expose`], which transports call when they write
//! the header onto the wire.

use std::fmt;
use std::sync::Arc;

/// What every formatting of a [`Secret`] prints.
pub const REDACTED: &str = "[redacted]";

/// A secret string (API key, bearer token) that never formats itself.
///
/// ```
/// use golem_providers::Secret;
///
/// let key = Secret::new("sk-very-secret");
/// assert_eq!(format!("{key:?} {key}"), "[redacted] [redacted]");
/// assert_eq!(key.expose(), "sk-very-secret");
/// ```
///
/// Cloning shares the text rather than copying it: a codec builds its
/// credential header once and every request carries a clone.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Arc<str>);

impl Secret {
    /// Wrap a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into().into())
    }

    /// The secret text. Call this only to put it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when the secret is the empty string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with every occurrence of this secret replaced by
    /// [`REDACTED`] — for provider messages that might echo the key back.
    ///
    /// Secrets shorter than four bytes are not searched for: they would match
    /// ordinary words, and no real key is that short.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 || !text.contains(&*self.0) {
            return text.to_string();
        }
        text.replace(&*self.0, REDACTED)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value.into())
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.into())
    }
}

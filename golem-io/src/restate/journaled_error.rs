//! A failing tool's error object across a replay (SPEC DUR-04).
//!
//! In-process, a run that a tool's error failed hands back the error
//! object itself (`RunError::source`). A durable run's tool may have failed
//! in a process that died since, so the driver journals what the object
//! says — its kind and message, and each of its sources' — and rebuilds it
//! from the journal as a [`JournaledError`]. The outcome's
//! [`causes`](super::DurableOutcome::causes) list the same links for
//! callers over HTTP, whether or not the run was replayed.

use golem_core::CauseRecord;
use std::error::Error as StdError;
use std::fmt;

/// The deepest `source()` chain kept: a guard against a chain that never
/// ends, far past any real one.
const MAX_LINKS: usize = 32;

/// An error rebuilt from its journaled record: its kind, its message, and
/// its sources, each rebuilt the same way.
///
/// The kind is `io::<ErrorKind>` for an [`std::io::Error`] (for example
/// `io::ConnectionRefused`), `panic` for a panicking tool, `run_error` or
/// `golem_error` for golem's own errors, and `error` otherwise.
///
/// ```
/// use golem_io::restate::JournaledError;
/// use golem_io::CauseRecord;
///
/// let chain = [CauseRecord::new("error", "stock check failed"), CauseRecord::new("io::TimedOut", "no answer")];
/// let error = JournaledError::from_chain(&chain).unwrap();
/// assert_eq!(error.to_string(), "stock check failed");
/// let source = std::error::Error::source(&error).unwrap().downcast_ref::<JournaledError>().unwrap();
/// assert_eq!((source.kind(), source.to_string().as_str()), ("io::TimedOut", "no answer"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournaledError {
    kind: String,
    message: String,
    source: Option<Box<JournaledError>>,
}

impl JournaledError {
    /// The error `chain` describes, its first link the error itself and
    /// each next one the previous one's source; `None` when it is empty.
    pub fn from_chain(chain: &[CauseRecord]) -> Option<Self> {
        chain.iter().rev().fold(None, |source, link| {
            Some(JournaledError {
                kind: link.kind.clone(),
                message: link.message.clone(),
                source: source.map(Box::new),
            })
        })
    }

    /// The error's kind, as recorded.
    pub fn kind(&self) -> &str {
        &self.kind
    }
}

impl fmt::Display for JournaledError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for JournaledError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source.as_deref().map(|s| s as &(dyn StdError + 'static))
    }
}

/// `error` and each of its sources, kind and message.
pub(crate) fn chain_of(error: &(dyn StdError + 'static)) -> Vec<CauseRecord> {
    let mut chain = Vec::new();
    let mut link = Some(error);
    while let Some(error) = link.filter(|_| chain.len() < MAX_LINKS) {
        chain.push(CauseRecord::new(kind_of(error), error.to_string()));
        link = error.source();
    }
    chain
}

fn kind_of(error: &(dyn StdError + 'static)) -> String {
    if let Some(journaled) = error.downcast_ref::<JournaledError>() {
        journaled.kind.clone()
    } else if let Some(io) = error.downcast_ref::<std::io::Error>() {
        format!("io::{:?}", io.kind())
    } else {
        crate::tool::error_tag(error).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("stock check failed")]
    struct Stock(#[source] std::io::Error);

    #[test]
    fn a_chain_survives_its_record_link_by_link() {
        let original = Stock(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "warehouse offline"));
        let chain = chain_of(&original);
        assert_eq!(
            chain,
            [
                CauseRecord::new("error", "stock check failed"),
                CauseRecord::new("io::ConnectionRefused", "warehouse offline")
            ]
        );
        let rebuilt = JournaledError::from_chain(&chain).unwrap();
        // Recording the rebuilt error again says the same.
        assert_eq!(chain_of(&rebuilt), chain);
        let source = rebuilt.source().unwrap().downcast_ref::<JournaledError>().unwrap();
        assert_eq!(source.kind(), "io::ConnectionRefused");
        assert!(source.source().is_none());
        assert_eq!(JournaledError::from_chain(&[]), None);
    }

    #[test]
    fn golem_errors_and_panics_keep_their_tags() {
        let panicked = crate::run::contain::contain("the tool", || panic!("boom")).unwrap_err();
        assert_eq!(chain_of(&panicked)[0].kind, "panic");
    }
}

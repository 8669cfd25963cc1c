//! Run and conversation ids (SPEC EXTRA-01): UUIDv7 strings, minted here in
//! the driver crate because golem-core has no clock and no randomness.
//!
//! A UUIDv7 (RFC 9562) starts with the 48-bit Unix time in milliseconds,
//! so ids sort by creation time to the millisecond; the rest, apart from the
//! version and variant, is a counter and randomness from the OS, through the
//! `uuid` crate (whose v7 generator also keeps ids minted in one millisecond
//! in order).
//!
//! ```
//! let id = golem_io::ids::uuid_v7();
//! assert_eq!(id.len(), 36);
//! assert_eq!(&id[14..15], "7"); // the version nibble
//! assert_ne!(id, golem_io::ids::uuid_v7());
//! ```

use golem_core::Id;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh UUIDv7 as 36 lowercase characters (`8-4-4-4-12` hex groups).
pub fn uuid_v7() -> String {
    uuid::Uuid::now_v7().hyphenated().to_string()
}

/// A fresh UUIDv7 as a run's [`Id`], written straight into its shared text
/// (one allocation, not a `String` and then a copy).
pub(crate) fn mint() -> Id {
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    Id::from(&*uuid::Uuid::now_v7().hyphenated().encode_lower(&mut text))
}

/// A fresh run's jitter phase (SPEC RETRY-02): the next step of this
/// process's golden-ratio sequence from a random base
/// ([`golem_core::jitter::phase`]). Runs of one process — of one agent or of
/// agents sharing a seed — started together thus retry far apart, and
/// processes differ by their random bases.
pub(crate) fn jitter_phase() -> u64 {
    static BASE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    static RUNS: AtomicU64 = AtomicU64::new(0);
    // The random bits of a fresh UUIDv7 (its last 8 bytes, minus the
    // variant's 2) seed this process's base.
    let base = *BASE.get_or_init(|| uuid::Uuid::now_v7().as_u64_pair().1);
    golem_core::jitter::phase(base, RUNS.fetch_add(1, Ordering::Relaxed))
}

/// The ids of one run as the driver hands them to tool contexts and the
/// machine: shared, so each holder clones two pointers, not two strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RunIds {
    pub(crate) run_id: Id,
    pub(crate) conversation_id: Id,
}

impl RunIds {
    pub(crate) fn new(run_id: impl Into<Id>, conversation_id: impl Into<Id>) -> Self {
        RunIds { run_id: run_id.into(), conversation_id: conversation_id.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_runs_get_consecutive_golden_steps() {
        let (a, b) = (jitter_phase(), jitter_phase());
        // Other tests may take phases in between; each is a whole step on.
        let steps = (1..64u64).find(|n| a.wrapping_add(n.wrapping_mul(golem_core::jitter::STEP)) == b);
        assert!(steps.is_some(), "{a:x} then {b:x}");
    }

    #[test]
    fn minted_ids_are_uuid_v7_like_the_strings() {
        let (a, b) = (mint(), mint());
        assert_ne!(a, b);
        for id in [&a, &b] {
            assert_eq!(id.len(), 36, "{id}");
            assert_eq!(id.as_bytes()[14], b'7', "{id}");
            assert!(matches!(id.as_bytes()[19], b'8' | b'9' | b'a' | b'b'), "{id}");
            assert_eq!(id.as_str(), id.to_lowercase());
        }
    }

    #[test]
    fn fresh_ids_differ_and_carry_version_and_variant() {
        let ids: std::collections::BTreeSet<String> = (0..1000).map(|_| uuid_v7()).collect();
        assert_eq!(ids.len(), 1000);
        for id in &ids {
            assert_eq!(id.as_bytes()[14], b'7', "{id}");
            assert!(matches!(id.as_bytes()[19], b'8' | b'9' | b'a' | b'b'), "{id}");
        }
    }
}

//! Run and conversation ids (SPEC EXTRA-01): UUIDv7 strings, minted here in
//! the driver crate because golem-core has no clock and no randomness.
//!
//! A UUIDv7 (RFC 9562) starts with the 48-bit Unix time in milliseconds,
//! so ids sort by creation time to the millisecond; the other 74 bits, apart
//! from the version and variant, are random. The randomness comes from std's
//! `RandomState` — SipHash under keys the OS seeds once per thread — over the
//! time, a process-wide counter and the thread id: unpredictable enough for
//! identifiers (they are not secrets) and unique within a process by the
//! counter, without a dependency.
//!
//! ```
//! let id = golem_io::ids::uuid_v7();
//! assert_eq!(id.len(), 36);
//! assert_eq!(&id[14..15], "7"); // the version nibble
//! assert_ne!(id, golem_io::ids::uuid_v7());
//! ```

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh UUIDv7 as 36 lowercase characters (`8-4-4-4-12` hex groups).
pub fn uuid_v7() -> String {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let unix_ms = u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX);
    let high = random_u64(since_epoch.as_nanos());
    let low = random_u64(since_epoch.as_nanos());
    format_v7(unix_ms, high, low)
}

/// The UUIDv7 of `unix_ms` with random bits taken from `high` (12 bits)
/// and `low` (62 bits). Split out so the layout is tested exactly.
fn format_v7(unix_ms: u64, high: u64, low: u64) -> String {
    let mut bytes = [0u8; 16];
    // 48-bit big-endian timestamp; a time past the year 10889 wraps.
    bytes[..6].copy_from_slice(&unix_ms.to_be_bytes()[2..]);
    let rand_a = high & 0x0fff;
    bytes[6] = 0x70 | (rand_a >> 8) as u8; // version 7
    bytes[7] = rand_a as u8;
    bytes[8..].copy_from_slice(&low.to_be_bytes());
    bytes[8] = 0x80 | (bytes[8] & 0x3f); // variant 0b10
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// 64 random bits: a freshly keyed SipHash over `salt`, a process-wide
/// counter and the thread id. Each `RandomState::new()` has new keys, and
/// the counter makes every input distinct, so two calls never hash the same.
fn random_u64(salt: u128) -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    salt.hash(&mut hasher);
    COUNTER.fetch_add(1, Ordering::Relaxed).hash(&mut hasher);
    std::thread::current().id().hash(&mut hasher);
    hasher.finish()
}

/// A fresh run's jitter phase (SPEC RETRY-02): the next step of this
/// process's golden-ratio sequence from a random base
/// ([`golem_core::jitter::phase`]). Runs of one process — of one agent or of
/// agents sharing a seed — started together thus retry far apart, and
/// processes differ by their random bases.
pub(crate) fn jitter_phase() -> u64 {
    static BASE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let base =
        *BASE.get_or_init(|| random_u64(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos()));
    golem_core::jitter::phase(base, RUNS.fetch_add(1, Ordering::Relaxed))
}

/// The ids of one run as the driver hands them to tool contexts: shared, so
/// a context clones two pointers, not two strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RunIds {
    pub(crate) run_id: Arc<str>,
    pub(crate) conversation_id: Arc<str>,
}

impl RunIds {
    pub(crate) fn new(run_id: &str, conversation_id: &str) -> Self {
        RunIds { run_id: run_id.into(), conversation_id: conversation_id.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_follows_rfc_9562() {
        // 2024-07-01T00:00:00Z; all random bits set, then all clear.
        let ms = 1_719_792_000_000;
        assert_eq!(format_v7(ms, u64::MAX, u64::MAX), "01906b97-5c00-7fff-bfff-ffffffffffff");
        assert_eq!(format_v7(ms, 0, 0), "01906b97-5c00-7000-8000-000000000000");
    }

    #[test]
    fn consecutive_runs_get_consecutive_golden_steps() {
        let (a, b) = (jitter_phase(), jitter_phase());
        // Other tests may take phases in between; each is a whole step on.
        let steps = (1..64u64).find(|n| a.wrapping_add(n.wrapping_mul(golem_core::jitter::STEP)) == b);
        assert!(steps.is_some(), "{a:x} then {b:x}");
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

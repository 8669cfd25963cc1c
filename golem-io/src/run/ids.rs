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

/// A fresh run's jitter seed (SPEC RETRY-02, JIT-01): 64 bits from the
/// operating system's randomness, one draw per run, so runs of one process
/// and of a fleet of processes retry independently of one another.
///
/// The bits come from std's `RandomState`, whose keys the OS seeds (once
/// per thread, then stepped for every new state), hashed through SipHash
/// together with a process-wide counter: uniform 64-bit values, distinct
/// for every run, with no generator of our own to seed or lock.
pub(crate) fn jitter_seed() -> u64 {
    use std::hash::BuildHasher;
    static RUNS: AtomicU64 = AtomicU64::new(0);
    std::collections::hash_map::RandomState::new().hash_one(RUNS.fetch_add(1, Ordering::Relaxed))
}

/// The ids of one run as the driver hands them to tool contexts and the
/// machine: shared, so each holder clones two pointers, not two strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RunIds {
    pub(crate) run_id: Id,
    pub(crate) conversation_id: Id,
    /// On a resume: the run that paused on each approved call, by call id
    /// (SPEC PAUSE-01). An approved call's idempotency key names that run,
    /// not the resuming one, so a tool sees one key however many times the
    /// application resumes the pause. `None` for every other run: no map is
    /// allocated for the runs that resume nothing (issue 37).
    pub(crate) paused_by: Option<std::sync::Arc<std::collections::BTreeMap<String, Id>>>,
}

impl RunIds {
    pub(crate) fn new(run_id: impl Into<Id>, conversation_id: impl Into<Id>) -> Self {
        RunIds { run_id: run_id.into(), conversation_id: conversation_id.into(), paused_by: Default::default() }
    }

    /// These ids, knowing which run paused on each call `start` approves:
    /// the run stamped on the history message that made the call.
    pub(crate) fn resuming(mut self, start: &golem_core::machine::Start) -> Self {
        let Some(resume) = &start.resume else { return self };
        let paused_by: std::collections::BTreeMap<String, Id> = resume
            .approvals
            .keys()
            .filter_map(|call_id| {
                let message = start.history.iter().rev().find(|m| m.tool_calls.iter().any(|c| &c.id == call_id))?;
                (!message.run_id.is_empty()).then(|| (call_id.clone(), message.run_id.clone()))
            })
            .collect();
        self.paused_by = (!paused_by.is_empty()).then(|| std::sync::Arc::new(paused_by));
        self
    }

    /// The run an approved call's idempotency key names: the one that
    /// paused on it, when known, else this run.
    pub(crate) fn key_run(&self, call_id: &str, approved: bool) -> &Id {
        match self.paused_by.as_ref().and_then(|paused_by| paused_by.get(call_id)) {
            Some(paused) if approved => paused,
            _ => &self.run_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jit_01_every_run_draws_a_seed_of_its_own() {
        let seeds: std::collections::BTreeSet<u64> = (0..1000).map(|_| jitter_seed()).collect();
        assert_eq!(seeds.len(), 1000);
        // Every bit varies: no bit is fixed the way a UUIDv7's are.
        let (ones, zeros) = seeds.iter().fold((0u64, 0u64), |(o, z), s| (o | s, z | !s));
        assert_eq!((ones, zeros), (u64::MAX, u64::MAX));
    }

    /// The first two retry waits of a run whose driver drew `seed`.
    fn first_waits(seed: u64) -> [std::time::Duration; 2] {
        use golem_core::sim::{ModelReply, Sim};
        use golem_core::{EventKind, ModelError, Response, RetryPolicy, RunConfig};
        let mut config = RunConfig::default();
        config.retry = RetryPolicy::new().max_attempts(3).jitter(true);
        let ms = std::time::Duration::from_millis(1);
        let busy = || ModelReply::err(ms, ModelError::api(503, "busy"));
        let replies = vec![busy(), busy(), ModelReply::ok(ms, Response::text("ok"))];
        let start = golem_core::machine::Start::prompt("hi").with_jitter_seed(seed);
        let mut sim = Sim::new(config, start, Sim::scripted(replies)).unwrap();
        sim.run();
        let waits: Vec<_> = sim
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Retrying { delay, .. } => Some(*delay),
                _ => None,
            })
            .collect();
        [waits[0], waits[1]]
    }

    #[test]
    fn jit_01_a_thousand_os_seeded_runs_cover_the_band_and_retry_independently() {
        // What fleets of processes do: every run seeded from the OS.
        let runs: Vec<[std::time::Duration; 2]> = (0..1000).map(|_| first_waits(jitter_seed())).collect();
        // First backoffs: 500 ms ± 25 %, in ten 25 ms buckets of ~100 each.
        let mut buckets = [0u32; 10];
        for [first, _] in &runs {
            let ms = first.as_secs_f64() * 1000.0;
            assert!((375.0..625.0).contains(&ms), "{ms} ms outside the band");
            buckets[(((ms - 375.0) / 25.0) as usize).min(9)] += 1;
        }
        let chi2: f64 = buckets.iter().map(|&n| (f64::from(n) - 100.0).powi(2) / 100.0).sum();
        // 9 degrees of freedom: 40 is passed by chance about once in 130,000.
        assert!(chi2 < 40.0, "first backoffs bunch: {buckets:?} (chi² {chi2:.1})");
        // Pairs that re-send within 5 ms of each other at retry 1 (about
        // 4 % of pairs) are no likelier than any pair to do so at retry 2
        // (10 ms of its 500 ms band: about 4 %).
        let ms5 = std::time::Duration::from_millis(5);
        let (mut first, mut again) = (0u32, 0u32);
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                if a[0].abs_diff(b[0]) < ms5 {
                    first += 1;
                    again += u32::from(a[1].abs_diff(b[1]) < 2 * ms5);
                }
            }
        }
        assert!(first > 10_000, "{first} colliding pairs");
        let share = f64::from(again) / f64::from(first);
        assert!(share < 0.08, "{again} of {first} pairs colliding at retry 1 collide at retry 2");
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

//! Per-run jitter (SPEC RETRY-02): where each run's retry waits fall within
//! their ±25 % band.
//!
//! The machine has no randomness. A driver gives each run a *phase* — a
//! point on the unit interval, as a 64-bit fraction — in
//! [`Start::jitter_phase`](crate::machine::Start::jitter_phase), and the log
//! records it, so a replay waits exactly as the recording did. The run's
//! n-th jitter draw is its phase stepped n times by the golden ratio,
//! shifted by the config seed. Stepping by the golden ratio visits the
//! interval as evenly as any sequence can (the three-distance theorem): a
//! run's successive draws spread out, and runs whose phases are consecutive
//! steps — what [`phase`] hands a process's runs — keep a fixed, wide
//! distance at every retry, instead of the near misses independent random
//! draws produce. Across processes the drivers' random bases keep runs
//! apart as independent draws would.
//!
//! ```
//! use golem_core::jitter;
//!
//! // Eight runs of one process: their first retries' jitter factors lie
//! // at least 9 % of the band apart.
//! let mut units: Vec<f64> = (0..8).map(|run| jitter::unit(0, Some(jitter::phase(12345, run)), 1)).collect();
//! units.sort_by(f64::total_cmp);
//! assert!(units.windows(2).all(|w| w[1] - w[0] > 0.09));
//! ```

/// The golden ratio's fractional part as a 64-bit fraction (⌊2⁶⁴/φ⌋, odd).
pub const STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// The phase of the `run`-th run (from 0) of a driver whose random base is
/// `base`: consecutive runs lie one golden step apart.
pub fn phase(base: u64, run: u64) -> u64 {
    base.wrapping_add(run.wrapping_mul(STEP))
}

/// The jitter draw `draw` (the run's retries so far, from 1) as a number in
/// `[0, 1)`, for a run of config seed `seed` and jitter phase `phase`.
/// Without a phase (a log written before phases existed) the draw hashes
/// the seed and draw number, exactly as those logs were recorded.
pub fn unit(seed: u64, phase: Option<u64>, draw: u64) -> f64 {
    let bits = match phase {
        Some(phase) => phase.wrapping_add(mix(seed)).wrapping_add(draw.wrapping_mul(STEP)),
        None => mix(seed ^ mix(draw)),
    };
    // The top 53 bits: exactly representable, so the unit stays below 1.
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// SplitMix64's finaliser: a few lines of well-known mixing, enough to turn
/// a seed into an unrelated-looking offset.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(STEP);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

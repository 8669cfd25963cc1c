//! Per-run jitter (SPEC RETRY-02, JIT-01): where each retry's wait falls
//! within its ±25 % band.
//!
//! The machine has no randomness, so the driver hands each run 64 random
//! bits from the operating system in
//! [`Start::jitter_seed`](crate::machine::Start::jitter_seed), and the event
//! log records them with the start, so a replay waits exactly as the
//! recording did. The n-th retry's draw hashes that run seed, the config
//! seed and n together ([`run_unit`]): each draw is uniform over `[0, 1)`,
//! runs are independent of one another, and so are a run's retries — two
//! runs whose first retries happen to coincide are no likelier to coincide
//! at the second than any other two.
//!
//! A configuration with a fixed seed
//! ([`RunConfig::fixed_seed`](crate::RunConfig::fixed_seed), what an
//! agent's `.seed(n)` sets) ignores the run seed: every run draws from the
//! config seed alone ([`seed_unit`]), for tests. Logs written before run
//! seeds existed recorded a golden-ratio *phase* instead
//! ([`Start::jitter_phase`](crate::machine::Start::jitter_phase)); they
//! replay with that phase's formula ([`phase_unit`]).
//!
//! ```
//! use golem_core::jitter;
//!
//! // The same run seed and draw give the same unit, in [0, 1) …
//! let a = jitter::run_unit(0, 0x5eed, 1);
//! assert_eq!(a, jitter::run_unit(0, 0x5eed, 1));
//! assert!((0.0..1.0).contains(&a));
//! // … and the next retry of the run draws anew.
//! assert_ne!(a, jitter::run_unit(0, 0x5eed, 2));
//! ```

/// The golden ratio's fractional part as a 64-bit fraction (⌊2⁶⁴/φ⌋, odd):
/// SplitMix64's increment.
pub const STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// Where one run's jitter comes from, as the machine decides it from the
/// configuration and the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The config seed alone: a fixed seed, or a start without a run seed.
    Seed(u64),
    /// A log of the golden-ratio era: its phase and config seed.
    Phase { seed: u64, phase: u64 },
    /// The run's own seed from the OS, mixed with the config seed.
    Run { seed: u64, run_seed: u64 },
}

impl Source {
    /// The source of a run of config seed `seed`: the run seed unless the
    /// seed is fixed, else a recorded phase, else the config seed.
    pub(crate) fn of(seed: u64, fixed: bool, run_seed: Option<u64>, phase: Option<u64>) -> Source {
        match (fixed, run_seed, phase) {
            (false, Some(run_seed), _) => Source::Run { seed, run_seed },
            (false, None, Some(phase)) => Source::Phase { seed, phase },
            _ => Source::Seed(seed),
        }
    }

    /// Draw `draw` (the run's retries so far, from 1) in `[0, 1)`.
    pub(crate) fn unit(self, draw: u64) -> f64 {
        match self {
            Source::Seed(seed) => seed_unit(seed, draw),
            Source::Phase { seed, phase } => phase_unit(seed, phase, draw),
            Source::Run { seed, run_seed } => run_unit(seed, run_seed, draw),
        }
    }
}

/// The jitter draw `draw` (from 1) of a run whose driver drew `run_seed`,
/// under config seed `seed`, in `[0, 1)`: the `draw`-th output of a
/// SplitMix64 stream keyed by both seeds. Its outputs pass the usual
/// statistical batteries, so draws are uniform and independent of one
/// another.
pub fn run_unit(seed: u64, run_seed: u64, draw: u64) -> f64 {
    let key = mix(run_seed ^ mix(seed));
    to_unit(mix(key.wrapping_add(draw.wrapping_mul(STEP))))
}

/// The jitter draw `draw` (from 1) of a run with no seed of its own: a
/// hash of the config seed and the draw number. Deterministic — the same
/// seed waits the same — which is what tests want, and what every run of a
/// fixed seed gets.
pub fn seed_unit(seed: u64, draw: u64) -> f64 {
    to_unit(mix(seed ^ mix(draw)))
}

/// The draw of a log written with a jitter phase (before run seeds): the
/// phase stepped `draw` times by the golden ratio, shifted by the config
/// seed. Kept only so those logs replay exactly: its draws are not
/// independent across retries.
pub fn phase_unit(seed: u64, phase: u64, draw: u64) -> f64 {
    to_unit(phase.wrapping_add(mix(seed)).wrapping_add(draw.wrapping_mul(STEP)))
}

/// The top 53 bits as a fraction: exactly representable, so the unit stays
/// below 1.
fn to_unit(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// SplitMix64's finaliser (with its increment first): a few lines of
/// well-known mixing in which every input bit reaches every output bit.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(STEP);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jit_01_a_fixed_seed_ignores_the_run_seed() {
        assert_eq!(Source::of(9, true, Some(1), Some(2)), Source::Seed(9));
        assert_eq!(Source::of(9, false, Some(1), Some(2)), Source::Run { seed: 9, run_seed: 1 });
        assert_eq!(Source::of(9, false, None, Some(2)), Source::Phase { seed: 9, phase: 2 });
        assert_eq!(Source::of(9, false, None, None), Source::Seed(9));
    }
}

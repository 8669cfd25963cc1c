//! Per-run jitter (SPEC RETRY-02, JIT-01, LOG-01..03): each run's waits
//! come from its own seed, drawn anew at every retry, so runs never wait in
//! lockstep; the log records the seed so a replay waits exactly as the
//! recording did; a fixed seed makes every run wait alike; logs written
//! before run seeds (with a phase, or with neither) replay as recorded.

use crate::outcomes::{completed, retry_waits};
use golem_core::log::{replay, EventLog};
use golem_core::machine::{Output, Start};
use golem_core::sim::{ModelReply, Sim};
use golem_core::*;
use std::time::Duration;

fn jittered(attempts: u32, seed: u64) -> RunConfig {
    let mut config = RunConfig::default();
    config.retry = RetryPolicy::new().max_attempts(attempts).jitter(true);
    config.seed = seed;
    config
}

/// The waits of a run whose model fails `failures` times with a 503, then answers.
fn waits(config: RunConfig, start: Start, failures: usize) -> (Vec<Duration>, EventLog) {
    let mut replies: Vec<ModelReply> =
        (0..failures).map(|_| ModelReply::err(Duration::from_millis(3), ModelError::api(503, "busy"))).collect();
    replies.push(ModelReply::ok(Duration::from_millis(3), Response::text("ok")));
    let mut sim = Sim::new(config, start, Sim::scripted(replies)).unwrap();
    completed(sim.run());
    (retry_waits(sim.events()), sim.log())
}

fn replayed_waits(text: &str) -> Vec<Duration> {
    let replayed = replay(&EventLog::parse(text).unwrap()).expect("replays with every digest checked");
    replayed
        .outputs
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Output::Event(RunEvent { kind: EventKind::Retrying { delay, .. }, .. }) => Some(*delay),
            _ => None,
        })
        .collect()
}

#[test]
fn jit_01_consecutive_run_seeds_still_spread_uniformly_and_independently() {
    // Seeds 0..1000, the least random a driver could hand over: the hash
    // still spreads every retry over its band, and a retry says nothing of
    // the next (the golden-ratio phases before kept every pair's distance).
    let runs: Vec<Vec<Duration>> =
        (0..1000).map(|seed| waits(jittered(3, 0), Start::prompt("hi").with_jitter_seed(seed), 2).0).collect();
    for retry in 0..2 {
        let base = Backoff::exponential(retry as u32 + 1);
        let mut buckets = [0u32; 10];
        for wait in runs.iter().map(|w| w[retry]) {
            assert!(wait >= base.mul_f64(0.75) && wait < base.mul_f64(1.25), "{wait:?} outside ±25 % of {base:?}");
            let at = (wait.as_secs_f64() / base.as_secs_f64() - 0.75) * 2.0;
            buckets[((at * 10.0) as usize).min(9)] += 1;
        }
        let chi2: f64 = buckets.iter().map(|&n| (f64::from(n) - 100.0).powi(2) / 100.0).sum();
        // 9 degrees of freedom: 40 is exceeded by chance about once in 130,000.
        assert!(chi2 < 40.0, "retry {}: buckets {buckets:?} (chi² {chi2:.1})", retry + 1);
    }
    let close = |a: Duration, b: Duration, within: Duration| a.abs_diff(b) < within;
    let (mut first, mut both) = (0u32, 0u32);
    for (i, a) in runs.iter().enumerate() {
        for b in &runs[i + 1..] {
            if close(a[0], b[0], Duration::from_millis(5)) {
                first += 1;
                both += u32::from(close(a[1], b[1], Duration::from_millis(10)));
            }
        }
    }
    // 5 ms of a 250 ms band: about 4 % of pairs collide at retry 1; of
    // those, about 4 % (10 ms of 500 ms) collide again, as any pair would.
    assert!(first > 10_000, "{first} pairs collide at retry 1");
    let again = f64::from(both) / f64::from(first);
    assert!(again < 0.08, "{both} of {first} pairs colliding at retry 1 collide at retry 2");
}

#[test]
fn jit_01_runs_with_other_seeds_wait_otherwise_under_one_config_seed() {
    let a = waits(jittered(3, 7), Start::prompt("hi").with_jitter_seed(1), 2).0;
    let b = waits(jittered(3, 7), Start::prompt("hi").with_jitter_seed(2), 2).0;
    assert_ne!(a[0], b[0]);
    assert_ne!(a[1], b[1]);
    // The config seed still shifts a run with a seed of its own.
    let c = waits(jittered(3, 8), Start::prompt("hi").with_jitter_seed(1), 2).0;
    assert_ne!(a, c);
}

#[test]
fn jit_01_a_fixed_seed_waits_alike_whatever_the_run_seed() {
    let fixed = |run_seed: u64| {
        let mut config = jittered(4, 42);
        config.fixed_seed = true;
        waits(config, Start::prompt("hi").with_jitter_seed(run_seed), 3).0
    };
    assert_eq!(fixed(1), fixed(0xdead_beef));
    assert_ne!(fixed(1), fixed_with_seed(43));
    fn fixed_with_seed(seed: u64) -> Vec<Duration> {
        let mut config = jittered(4, seed);
        config.fixed_seed = true;
        waits(config, Start::prompt("hi").with_jitter_seed(1), 3).0
    }
}

#[test]
fn log_02_the_run_seed_is_recorded_and_a_replay_waits_exactly_as_the_run_did() {
    let (recorded, log) = waits(jittered(4, 3), Start::prompt("hi").with_jitter_seed(0xfeed_f00d_dead_beef), 3);
    let text = log.to_jsonl();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["start"]["jitterSeed"], 0xfeed_f00d_dead_beef_u64);
    assert_eq!(replayed_waits(&text), recorded);
}

#[test]
fn log_03_a_log_with_a_phase_waits_as_it_was_recorded() {
    // Logs written with a golden-ratio phase (before issue 32) wait what
    // they waited then.
    let (recorded, log) = waits(jittered(4, 3), Start::prompt("hi").with_jitter_phase(0xfeed_f00d_dead_beef), 3);
    let micros: Vec<u128> = recorded.iter().map(Duration::as_micros).collect();
    assert_eq!(micros, [556_825, 922_668, 2_463_370]);
    let text = log.to_jsonl();
    assert!(text.lines().next().unwrap().contains("jitterPhase"));
    assert_eq!(replayed_waits(&text), recorded);
}

#[test]
fn log_03_a_log_without_a_phase_waits_as_it_was_recorded() {
    // Before phases, every run of an agent seeded 7 waited exactly these
    // (issue 17): logs of that time still replay to them.
    let (recorded, log) = waits(jittered(4, 7), Start::prompt("hi"), 3);
    let micros: Vec<u128> = recorded.iter().map(Duration::as_micros).collect();
    assert_eq!(micros, [491_298, 803_887, 2_408_213]);
    let text = log.to_jsonl();
    let header = text.lines().next().unwrap();
    assert!(!header.contains("jitterPhase") && !header.contains("jitterSeed"), "the header keeps its old shape");
    replay(&EventLog::parse(&text).unwrap()).expect("replays");
}

//! Per-run jitter (SPEC RETRY-02, LOG-01..03): each run's waits come from
//! its own phase, so runs never wait in lockstep, the log records the phase
//! so a replay waits exactly as the recording did, and logs written before
//! phases existed replay as they were recorded.

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

#[test]
fn retry_02_runs_of_one_process_spread_their_waits_at_every_retry() {
    // Twelve runs as a driver numbers them: one random base, consecutive runs.
    let base = 0x0123_4567_89ab_cdef;
    let runs: Vec<Vec<Duration>> = (0..12)
        .map(|run| waits(jittered(4, 0), Start::prompt("hi").with_jitter_phase(jitter::phase(base, run)), 3).0)
        .collect();
    for retry in 0..3 {
        let mut at: Vec<Duration> = runs.iter().map(|w| w[retry]).collect();
        at.sort();
        let closest = at.windows(2).map(|w| w[1] - w[0]).min().unwrap();
        // The band is half the base wait wide; twelve golden steps leave at
        // least 5.5 % of it between any two runs.
        let band = Backoff::exponential(retry as u32 + 1) / 2;
        assert!(closest >= band.mul_f64(0.055), "retry {}: two runs {closest:?} apart: {at:?}", retry + 1);
        for wait in &at {
            let base = Backoff::exponential(retry as u32 + 1);
            assert!(*wait >= base.mul_f64(0.75) && *wait < base.mul_f64(1.25), "{wait:?} outside ±25 % of {base:?}");
        }
    }
}

#[test]
fn retry_02_agents_sharing_a_seed_do_not_wait_alike() {
    let a = waits(jittered(3, 7), Start::prompt("hi").with_jitter_phase(1 << 40), 2).0;
    let b = waits(jittered(3, 7), Start::prompt("hi").with_jitter_phase(9 << 60), 2).0;
    assert_ne!(a[0], b[0]);
    assert_ne!(a[1], b[1]);
}

#[test]
fn retry_02_the_seed_still_shifts_a_run_with_a_phase() {
    let start = || Start::prompt("hi").with_jitter_phase(42);
    assert_ne!(waits(jittered(2, 1), start(), 1).0, waits(jittered(2, 2), start(), 1).0);
    assert_eq!(waits(jittered(2, 1), start(), 1).0, waits(jittered(2, 1), start(), 1).0);
}

#[test]
fn log_02_the_phase_is_recorded_and_a_replay_waits_exactly_as_the_run_did() {
    let (recorded, log) = waits(jittered(4, 3), Start::prompt("hi").with_jitter_phase(0xfeed_f00d_dead_beef), 3);
    let text = log.to_jsonl();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["start"]["jitterPhase"], 0xfeed_f00d_dead_beef_u64);
    let replayed = replay(&EventLog::parse(&text).unwrap()).expect("replays with every digest checked");
    let again: Vec<Duration> = replayed
        .outputs
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Output::Event(RunEvent { kind: EventKind::Retrying { delay, .. }, .. }) => Some(*delay),
            _ => None,
        })
        .collect();
    assert_eq!(again, recorded);
}

#[test]
fn log_03_a_log_without_a_phase_waits_as_it_was_recorded() {
    // Before phases, every run of an agent seeded 7 waited exactly these
    // (issue 17): logs of that time still replay to them.
    let (recorded, log) = waits(jittered(4, 7), Start::prompt("hi"), 3);
    let micros: Vec<u128> = recorded.iter().map(Duration::as_micros).collect();
    assert_eq!(micros, [491_298, 803_887, 2_408_213]);
    let text = log.to_jsonl();
    assert!(!text.lines().next().unwrap().contains("jitterPhase"), "the header keeps its old shape");
    replay(&EventLog::parse(&text).unwrap()).expect("replays");
}

#[test]
fn retry_02_jitter_phases_of_a_process_keep_their_distance() {
    // The bound the golem-io test of eight simultaneous runs relies on: any
    // 8 runs within 21 consecutive ones are at least 3.4 % of the band apart.
    for base in [0, u64::MAX, 0x9e37_79b9_7f4a_7c15, 12_345] {
        let units: Vec<f64> = (0..21).map(|run| jitter::unit(0, Some(jitter::phase(base, run)), 1)).collect();
        for (i, a) in units.iter().enumerate() {
            for b in &units[i + 1..] {
                let d = (a - b).abs();
                assert!(d.min(1.0 - d) > 0.034, "base {base}: {a} and {b}");
            }
        }
    }
}

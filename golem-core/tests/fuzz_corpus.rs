//! Every fuzz target's body over its committed seed corpus, so CI exercises
//! the targets on stable Rust (the fuzzers themselves need cargo-fuzz).

// The test reads its seed files from disk; the crate itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("seed corpus {} missing: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "seed corpus {} is empty", dir.display());
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

#[test]
fn run_machine_seed_corpus() {
    for (path, data) in corpus("run_machine") {
        eprintln!("{}", path.display());
        golem_core::fuzzing::run_machine(&data);
    }
}

#[test]
fn event_log_seed_corpus() {
    for (path, data) in corpus("event_log") {
        eprintln!("{}", path.display());
        golem_core::fuzzing::event_log(&data);
    }
}

/// `count` pseudo-random inputs of up to 400 bytes from a fixed seed
/// (xorshift64; the state moves on for every length too, so an empty input
/// is not followed by empty ones forever).
fn pseudo_random_inputs(count: usize) -> impl Iterator<Item = Vec<u8>> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count).map(move |_| {
        let len = (next() % 400) as usize;
        (0..len).map(|_| (next() >> 24) as u8).collect()
    })
}

/// A cheap stand-in for the fuzzer between fuzzing sessions: thousands of
/// pseudo-random inputs from a fixed seed.
#[test]
fn run_machine_on_pseudo_random_inputs() {
    for data in pseudo_random_inputs(3000) {
        golem_core::fuzzing::run_machine(&data);
    }
}

/// The target draws each tool's `UnknownOutcome` from its input (issue 16),
/// and the seed corpus takes a call that started before a crash through
/// the recovery of every policy, so the fuzzer starts from each path.
#[test]
fn run_machine_seed_corpus_reaches_every_recovery_policy() {
    let mut reached = std::collections::BTreeSet::new();
    for (_, data) in corpus("run_machine") {
        reached.extend(golem_core::fuzzing::run_machine_recoveries(&data).iter().map(|d| format!("{d:?}")));
    }
    assert_eq!(reached.iter().map(String::as_str).collect::<Vec<_>>(), ["AskHuman", "Interrupt", "Redo"]);
}

/// The same stand-in for `event_log`: the seed logs with bytes flipped,
/// cut short and garbled tails glued on, so torn and damaged logs of every
/// shape go through the reader (issue 16).
#[test]
fn event_log_on_mutated_seeds() {
    let seeds = corpus("event_log");
    let mut noise = pseudo_random_inputs(4000);
    for round in 0..4000 {
        let (_, seed) = &seeds[round % seeds.len()];
        let noise = noise.next().unwrap_or_default();
        let mut data = seed.clone();
        let pick = |i: usize, n: usize| usize::from(noise.get(i).copied().unwrap_or(0)) * 257 % n.max(1);
        if !data.is_empty() {
            let at = pick(0, data.len());
            data[at] = noise.get(1).copied().unwrap_or(b'\n');
            data.truncate(pick(2, data.len() + 1).max(data.len() / 2));
        }
        data.extend_from_slice(&noise[noise.len().min(3)..noise.len().min(40)]);
        golem_core::fuzzing::event_log(&data);
    }
}

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

/// The recovery seeds, by the policy each reaches.
const RECOVERY_SEEDS: [(&str, &str); 3] =
    [("Interrupt", "recover-interrupt"), ("Redo", "recover-redo"), ("AskHuman", "recover-ask-human")];

fn reaches(data: &[u8], policy: &str) -> bool {
    golem_core::fuzzing::run_machine_recoveries(data).iter().any(|d| format!("{d:?}") == policy)
}

/// The target draws each tool's `UnknownOutcome` from its input (issue 16),
/// and the seed corpus takes a call that started before a crash through
/// the recovery of every policy, so the fuzzer starts from each path.
#[test]
fn run_machine_seed_corpus_reaches_every_recovery_policy() {
    let seeds = corpus("run_machine");
    for (policy, _) in RECOVERY_SEEDS {
        assert!(
            seeds.iter().any(|(_, data)| reaches(data, policy)),
            "no seed reaches the {policy} recovery; if how run_machine reads its bytes changed, run \
             `cargo test -p golem-core --test integration -- --ignored regenerate_recovery_seeds`"
        );
    }
}

/// Find the recovery seeds again after a change to how `run_machine` reads
/// its bytes: the old seeds with one byte inserted, replaced or removed
/// anywhere (a field added to the input's layout shifts the rest by a
/// byte), else pseudo-random inputs; the first input found to reach each
/// policy is written over its seed.
#[test]
#[ignore = "rewrites fuzz/corpus/run_machine/recover-*; run it when the seed test asks for it"]
fn regenerate_recovery_seeds() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/run_machine");
    let old: Vec<Vec<u8>> = RECOVERY_SEEDS.iter().filter_map(|(_, name)| std::fs::read(dir.join(name)).ok()).collect();
    let edits = old.iter().flat_map(|seed| {
        (0..=seed.len()).flat_map(move |at| {
            let removed = (at < seed.len()).then(|| [&seed[..at], &seed[at + 1..]].concat());
            let others = (0..=255u8).flat_map(move |b| {
                let inserted = [&seed[..at], &[b][..], &seed[at..]].concat();
                let replaced = (at < seed.len()).then(|| [&seed[..at], &[b][..], &seed[at + 1..]].concat());
                std::iter::once(inserted).chain(replaced)
            });
            removed.into_iter().chain(others)
        })
    });
    let candidates = old.clone().into_iter().chain(edits).chain(pseudo_random_inputs(200_000));
    let mut found: std::collections::BTreeMap<&str, Vec<u8>> = std::collections::BTreeMap::new();
    for data in candidates {
        for (policy, _) in RECOVERY_SEEDS {
            if !found.contains_key(policy) && reaches(&data, policy) {
                found.insert(policy, data.clone());
            }
        }
        if found.len() == RECOVERY_SEEDS.len() {
            break;
        }
    }
    for (policy, name) in RECOVERY_SEEDS {
        let data = found.get(policy).unwrap_or_else(|| panic!("no input reaches the {policy} recovery"));
        std::fs::write(dir.join(name), data).unwrap();
    }
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

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

/// A cheap stand-in for the fuzzer between fuzzing sessions: thousands of
/// pseudo-random inputs from a fixed seed.
#[test]
fn run_machine_on_pseudo_random_inputs() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..3000 {
        let len = (state % 400) as usize;
        let data: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        golem_core::fuzzing::run_machine(&data);
    }
}

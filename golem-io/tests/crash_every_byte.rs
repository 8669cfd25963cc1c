//! Crash at every byte (issue 16, SPEC LOG-05, LOG-06). The scenario's run
//! — a run, a pause, a resume — is recorded through the record/replay
//! guide's crash recipe; then each of its logs is cut at every byte offset,
//! once as a killed process leaves it and once with random bytes after the
//! cut, as a power loss may. From each cut the recipe brings the run to its
//! end, the newest log is cut again at a random offset in what that
//! recovery wrote, and the recipe ends the run once more. Every time the
//! logs read, the run reaches the reference answer, and no call whose
//! finish was recorded runs again. Even offsets run on the blocking
//! driver, odd ones on the async driver.

use crate::crash_support::{agent, approve_all, check_run, log_files, scratch_dir, Ledger, Note, Recipe, Rng};
use golem_core::log::EventLog;
use golem_io::LogFile;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const PROMPT: &str = "tidy up";

/// Bodies begun, by idempotency key.
type Ran = Arc<Mutex<BTreeMap<String, usize>>>;

fn plain(file: LogFile) -> Box<dyn Write + Send> {
    Box::new(file)
}

/// Bring the run in `dir` to its end with the recipe, as a new process
/// would, and check it; `before` is the ledgers of the logs as the crash
/// left them (what the crashed process may have run), `context` names the
/// crash. Returns the ledgers of the logs it leaves.
fn recover(dir: &Path, before: &[Ledger], async_driver: bool, context: &str) -> Vec<Ledger> {
    let ran = Ran::default();
    let counter = Arc::clone(&ran);
    let note: Note = Arc::new(move |key, _| *counter.lock().unwrap().entry(key.to_string()).or_default() += 1);
    let recipe = Recipe { async_driver, wrap: &plain };
    let result = recipe
        .run_to_end(&agent(24, Duration::ZERO, note), dir, PROMPT, approve_all)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let mut total: BTreeMap<String, usize> = before.iter().flat_map(Ledger::starts).collect();
    for (key, n) in ran.lock().unwrap().iter() {
        *total.entry(key.clone()).or_default() += n;
    }
    check_run(dir, &result, &total, before, context)
}

/// The ledgers of logs cut from the logs of `ledgers`: the logs before
/// `k` whole, log `k` as `cut` left it.
fn cut_ledgers(ledgers: &[Ledger], k: usize, cut: &[u8]) -> Vec<Ledger> {
    let mut before = ledgers[..k].to_vec();
    if let Ok(read) = EventLog::read_bytes(cut) {
        before.push(ledgers[k].prefix(read.log.records.len()));
    }
    before
}

/// Log `k` of the uncrashed run cut at every offset, with garbage after
/// the cut or not; each recovery cut once more.
fn every_byte_of(k: usize, with_garbage: bool) {
    let reference = scratch_dir();
    let ledgers = recover(reference.path(), &[], false, "the uncrashed run");
    assert_eq!(ledgers.len(), 2, "a run and the resume of its pause");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ (k as u64) << 1 ^ u64::from(with_garbage));
    let dir = scratch_dir();
    let path = |i: usize| dir.path().join(format!("run.{i}.jsonl"));
    let log = &ledgers[k].bytes;
    for cut in 0..=log.len() {
        for old in log_files(dir.path()) {
            std::fs::remove_file(old).unwrap();
        }
        for (i, ledger) in ledgers[..k].iter().enumerate() {
            std::fs::write(path(i), &ledger.bytes).unwrap();
        }
        let mut crashed = log[..cut].to_vec();
        if with_garbage {
            crashed.extend(rng.garbage());
        }
        std::fs::write(path(k), &crashed).unwrap();
        let context = format!("run.{k} cut at {cut}{}", if with_garbage { " with garbage" } else { "" });
        let before = cut_ledgers(&ledgers, k, &crashed);
        let after = recover(dir.path(), &before, cut % 2 == 1, &context);
        let Ok(read) = EventLog::read_bytes(&crashed) else {
            // The run (or the resume) never began, and began afresh: a crash
            // in that recovery is a first crash, covered by the other cuts.
            continue;
        };

        // Crash again, in what the recovery appended or began.
        let newest = after.len() - 1;
        let bytes = &after[newest].bytes;
        let from = if newest == k { read.intact } else { 0 };
        let again = from + (rng.next() % (bytes.len() - from + 1) as u64) as usize;
        let mut crashed = bytes[..again].to_vec();
        if with_garbage {
            crashed.extend(rng.garbage());
        }
        std::fs::write(path(newest), &crashed).unwrap();
        let before = cut_ledgers(&after, newest, &crashed);
        recover(dir.path(), &before, cut % 2 == 0, &format!("{context}, then run.{newest} cut at {again}"));
    }
}

#[test]
fn issue_16_the_run_log_cut_at_every_byte() {
    every_byte_of(0, false);
}

#[test]
fn issue_16_the_run_log_cut_at_every_byte_with_garbage_after() {
    every_byte_of(0, true);
}

#[test]
fn issue_16_the_resume_log_cut_at_every_byte() {
    every_byte_of(1, false);
}

#[test]
fn issue_16_the_resume_log_cut_at_every_byte_with_garbage_after() {
    every_byte_of(1, true);
}

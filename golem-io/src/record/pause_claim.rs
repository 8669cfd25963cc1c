//! A paused run's pause, used at most once across processes (SPEC PAUSE-01).
//!
//! The paused log's directory is the state every resuming process shares:
//! resuming claims the pause by creating `<log>.resumed` beside the log with
//! an exclusive create (`O_CREAT | O_EXCL`). The operating system makes that
//! create atomic — of any number of processes racing on one log, exactly
//! one creates the file; every other gets "already exists" — so exactly one
//! resumption runs, whoever asks and however often. The claim is synced to
//! disk (file and directory) before the resumption runs anything, so a
//! crash after the claim can lose a resumption but never allow a second:
//! at most once, as an authorization boundary must be. The claim names the
//! resuming run, whose own log says how the resumption went.

use crate::Error;
use std::fs::OpenOptions;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

/// Where the claim on the pause of the log at `log` lives.
pub(crate) fn claim_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".resumed");
    PathBuf::from(name)
}

/// Claim the pause of the log at `log` for the run `run_id`, or say which
/// run already did ([`Error::AlreadyResumed`]).
pub(crate) fn claim(log: &Path, run_id: &str) -> Result<(), Error> {
    let path = claim_path(log);
    let record = |e: std::io::Error| Error::Record(format!("{}: {e}", path.display()));
    let created = super::log_file::owner_only(OpenOptions::new().write(true).create_new(true)).open(&path);
    let mut file = match created {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            return Err(Error::AlreadyResumed { claim: path.clone(), by_run: claimant(&path) });
        }
        Err(e) => return Err(record(e)),
    };
    let line = serde_json::json!({ "resumedBy": run_id }).to_string();
    file.write_all(line.as_bytes()).and_then(|()| file.write_all(b"\n")).map_err(record)?;
    file.sync_all().map_err(record)?;
    super::log_file::sync_parent(&path).map_err(record)?;
    Ok(())
}

/// The run a claim names; empty while its writer has not written it yet
/// (or if it died first).
fn claimant(path: &Path) -> String {
    let mut text = String::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_string(&mut text));
    if read.is_err() {
        return String::new();
    }
    serde_json::from_str::<serde_json::Value>(text.trim())
        .ok()
        .and_then(|v| v.get("resumedBy")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

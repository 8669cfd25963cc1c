//! Replaying a log into a fresh machine (SPEC LOG-02).

use super::digest::outputs_digest_for;
use super::format::{EndKind, EventLog};
use crate::machine::{ApiMisuse, Outcome, Output, RunMachine, SetupError};
use crate::time::Moment;

/// A replayed run: the machine in the state the log left it, and every
/// output it produced, in order.
#[derive(Debug)]
pub struct Replay {
    /// The machine after the last record; continue it to resume a crash.
    pub machine: RunMachine,
    /// The outputs of the first drain after `RunMachine::new` (empty when
    /// the header says the first record came before it), then of each record.
    pub outputs: Vec<Vec<Output>>,
    /// The machine time of the last record (the run's time when the log
    /// stops; the header's epoch for a log without records).
    pub last_at: Moment,
}

/// Why a log does not replay.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The logged start does not set up a run.
    #[error("the logged run cannot start: {0}")]
    Setup(#[from] SetupError),
    /// Record `record` (0-based) is refused by the machine.
    #[error("replay diverged at record {record}: {misuse}")]
    Refused {
        /// The record's index.
        record: usize,
        /// The machine's refusal.
        misuse: ApiMisuse,
    },
    /// Record `record` produced different outputs than were recorded.
    #[error("replay diverged at record {record}: outputs differ from the recording")]
    Diverged {
        /// The record's index.
        record: usize,
    },
    /// The log ends with a marker the replayed outcome contradicts.
    #[error("the log says the run {logged:?}, the replay says {replayed}")]
    EndMismatch {
        /// What the log says.
        logged: EndKind,
        /// What the replay reached.
        replayed: String,
    },
}

/// Replay every record of `log`. Needs no model, no tools and no decoder:
/// their answers are the log's inputs.
pub fn replay(log: &EventLog) -> Result<Replay, ReplayError> {
    let replay = replay_prefix(log, log.records.len())?;
    if let Some(logged) = log.end {
        let replayed = match replay.machine.outcome() {
            Some(Outcome::Completed { .. }) => Some(EndKind::Completed),
            Some(Outcome::Paused { .. }) => Some(EndKind::Paused),
            Some(Outcome::Failed(_)) => Some(EndKind::Failed),
            None => None,
        };
        if replayed != Some(logged) {
            let replayed = replayed.map_or("not finished".to_string(), |k| format!("{k:?}"));
            return Err(ReplayError::EndMismatch { logged, replayed });
        }
    }
    Ok(replay)
}

/// Replay the first `count` records only (fork, crash-at-every-point tests).
pub fn replay_prefix(log: &EventLog, count: usize) -> Result<Replay, ReplayError> {
    let header = &log.header;
    let epoch = Moment::from_nanos(header.epoch);
    let mut machine = RunMachine::new(header.config.clone(), header.machine_start(), epoch)?;
    let first = if header.fed_before_start { Vec::new() } else { machine.drain() };
    let mut outputs = vec![first];
    let mut last_at = epoch;
    for (index, record) in log.records.iter().take(count).enumerate() {
        let Some(input) = record.input.clone() else { continue };
        let now = log.moment(record.at);
        let produced = machine.step(now, input).map_err(|misuse| ReplayError::Refused { record: index, misuse })?;
        if record.out.as_ref().is_some_and(|d| *d != outputs_digest_for(header.format, &produced)) {
            return Err(ReplayError::Diverged { record: index });
        }
        outputs.push(produced);
        last_at = now;
    }
    Ok(Replay { machine, outputs, last_at })
}

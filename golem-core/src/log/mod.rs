//! The event log: a run's inputs as JSON lines, the source of truth for
//! replay and resume (SPEC LOG).
//!
//! Line 1 is a [`LogHeader`]: the format version, the crate version, the
//! run's configuration and its processed start. Every further line is a
//! [`LogRecord`]: the input the machine consumed and when (`at`, in
//! nanoseconds since the start), optionally with a digest of the outputs
//! that input produced, so a replay can name the first record whose outputs
//! differ. A final `end` line marks a run that finished; a log without one
//! is a crashed (or still running) run. A crash damages only a log's end:
//! reading drops a torn tail and says where it starts
//! ([`EventLog::read_bytes`]), so a continued log is cut back before it is
//! appended to.
//!
//! Logs hold prompts, tool arguments and results — treat them like the
//! conversation itself — but never secrets or HTTP headers: nothing of the
//! kind reaches the machine.
//!
//! ```
//! use golem_core::log::{EventLog, LogHeader};
//! use golem_core::machine::{Input, Start};
//! use golem_core::{Moment, Response, RunConfig, RunMachine};
//!
//! // Record a run by hand…
//! let header = LogHeader::new(RunConfig::default(), Start::prompt("hi"));
//! let mut log = EventLog::new(header);
//! let mut machine = RunMachine::new(log.header.config.clone(), log.header.start.clone(), Moment::ZERO).unwrap();
//! let first = machine.drain();
//! let call = first.iter().find_map(|o| match o {
//!     golem_core::machine::Output::Command(golem_core::machine::Command::CallModel { id, .. }) => Some(*id),
//!     _ => None,
//! }).unwrap();
//! let input = Input::ModelFinished { id: call, result: Ok(Box::new(Response::text("hello"))) };
//! let outputs = machine.step(Moment::from_millis(3), input.clone()).unwrap();
//! log.push(Moment::from_millis(3), input, Some(&outputs));
//!
//! // …write it, read it back, and replay it with no model at all.
//! let text = log.to_jsonl();
//! let again = EventLog::parse(&text).unwrap();
//! let replay = golem_core::log::replay(&again).unwrap();
//! assert_eq!(replay.machine.outcome(), machine.outcome());
//! ```

mod digest;
mod format;
mod legacy;
mod read;
mod replay;

pub use digest::{outputs_digest, outputs_digest_for};
pub use format::{EndKind, EventLog, LogError, LogHeader, LogRecord, FORMAT_VERSION};
pub use read::ReadLog;
pub use replay::{replay, replay_prefix, Replay, ReplayError};

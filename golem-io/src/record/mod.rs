//! Recording runs to an event log, and starting runs from one (SPEC LOG).
//!
//! Both drivers record through the same [`Recorder`](recorder): every input
//! the machine consumes is written — and flushed — before the driver acts
//! on what it produced, so a tool's `ToolStarted` line is on disk before its
//! body runs (the write-ahead ledger, SPEC LOG-06). A run that is not
//! recorded pays nothing: no serialisation, no digests. A paused log's
//! pause is claimed once, across processes, beside the log (`pause_claim`,
//! SPEC PAUSE-01).
//!
//! May import: `observe` (the trace a recorded machine emits), `run`, golem-core.

mod log_file;
pub(crate) mod pause_claim;
mod recorder;
mod stepper;

pub use log_file::LogFile;
pub(crate) use recorder::Recorder;
pub use recorder::SyncedFile;
pub(crate) use stepper::RecordedMachine;

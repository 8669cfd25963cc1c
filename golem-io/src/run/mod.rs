//! The run's room: starting runs and reading them — the run builder
//! (`start`), its async and event-stream faces, results and errors — and
//! the vocabulary a run shares with tools and drivers (ids, clocks,
//! cancellation, the run context, streamed deltas, sub-run events).
//!
//! May import: `drive` (to run the machine), `agent`, `tool`, `record`,
//! golem-core.

#[cfg(feature = "async")]
pub(crate) mod asynchronous;
pub(crate) mod cancel;
pub(crate) mod clock;
pub(crate) mod context;
pub(crate) mod error;
#[cfg(feature = "async")]
pub(crate) mod events;
pub mod ids;
pub(crate) mod result;
pub(crate) mod start;
pub(crate) mod stream_delta;
pub(crate) mod sub_run_event;

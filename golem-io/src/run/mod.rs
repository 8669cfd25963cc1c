//! What runs are made of — the vocabulary the drivers, agents and tools
//! import: a run's ids, clock and cancellation, the context application
//! code sees, and how application code is called with its panics
//! contained (`contain`) or its future awaited under a cancel token
//! (`block_on`). What a run hands back (results, paused runs, errors,
//! streamed deltas) is `results`'s; starting runs is `start`'s.
//!
//! The bottom room: imports only golem-core and the crate root's
//! re-exports of golem-core.

pub(crate) mod block_on;
pub(crate) mod cancel;
pub(crate) mod clock;
pub(crate) mod contain;
pub(crate) mod context;
pub mod ids;

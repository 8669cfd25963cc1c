//! What a run is, shared by every room above it: its ids, clock and
//! cancellation, the context application code sees, what a run returns
//! (results, paused runs, errors), streamed deltas, and how application
//! code is called with its panics contained (`contain`) or its future
//! awaited under a cancel token (`block_on`). Starting runs is `start`'s.
//!
//! The bottom room: imports only golem-core and the crate root's
//! re-exports of golem-core.

pub(crate) mod block_on;
pub(crate) mod cancel;
pub(crate) mod clock;
pub(crate) mod contain;
pub(crate) mod context;
pub(crate) mod error;
pub mod ids;
pub(crate) mod result;
pub(crate) mod stream_delta;

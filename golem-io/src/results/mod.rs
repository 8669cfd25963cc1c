//! What a run hands back to whoever started it — the front door's side of
//! a run: its result with the whole evidence, the outcome of a run that
//! may pause, the paused run, the error of an entry point, and each
//! fragment a streamed run hands its callback. Starting runs is
//! `start`'s; what runs are made of (ids, clocks, cancellation, context,
//! calling application code) is `run`'s.
//!
//! Imports only golem-core (and its own files): every room above may
//! name what a run returns.

pub(crate) mod error;
pub(crate) mod result;
pub(crate) mod stream_delta;

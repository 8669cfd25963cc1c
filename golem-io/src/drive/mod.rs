//! The drivers' room: carrying out the machine's commands. `dispatch` is
//! what every driver shares (commands into tasks, models and tools run with
//! their panics contained, what is kept beside the machine, observers);
//! `blocking` and `asynchronous` are each driver's placement and waiting.
//! The Restate driver (`crate::restate`) uses `dispatch` the same way.
//!
//! May import: `record`, `agent`, `tool`, `observe`, `run`, golem-core.
//! Never `start`, which calls in here.

#[cfg(feature = "async")]
pub(crate) mod asynchronous;
#[cfg(feature = "blocking")]
pub(crate) mod blocking;
pub(crate) mod dispatch;

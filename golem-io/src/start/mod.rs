//! The front door: `RunBuilder` (`agent.run(..)`), which resolves a run
//! (ids, instructions, history, log, the machine's start) and hands it to a
//! driver, plus its async face (`call_async`) and its event stream.
//!
//! May import every room below it: `drive`, `record`, `agent`, `tool`,
//! `run`, golem-core.

#[cfg(feature = "async")]
pub(crate) mod asynchronous;
pub(crate) mod builder;
#[cfg(feature = "async")]
pub(crate) mod events;

pub use builder::RunBuilder;

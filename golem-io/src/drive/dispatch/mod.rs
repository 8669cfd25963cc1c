//! What both drivers share: turning commands into units of work, running
//! application code (models, tools, decoders, observers) with its panics
//! contained, and keeping the error objects and decoded values the machine
//! only sees as records (SPEC MACH-02). The drivers differ only in *where*
//! work runs and how they wait for it.

mod block_on;
#[cfg(feature = "blocking")]
mod inline_stream;
mod kept;
mod launch;
mod observers;
mod panicked;
mod tool;
mod work;

pub(crate) use block_on::block_on_or_cancel;
#[cfg(feature = "blocking")]
pub(crate) use inline_stream::InlineStream;
pub(crate) use kept::Attachments;
pub(crate) use launch::{start_machine, LogOut, Origin, RunSetup};
pub(crate) use observers::{DeltaCallback, Observers};
#[cfg(feature = "async")]
pub(crate) use panicked::contain_async;
pub(crate) use panicked::{contain, Panicked};
#[cfg(feature = "async")]
pub(crate) use tool::call_tool_async;
#[cfg(feature = "blocking")]
pub(crate) use tool::call_tool_blocking;
pub(crate) use work::{action, caller_cancel, Action, ForwardDeltas, Task, TaskId};

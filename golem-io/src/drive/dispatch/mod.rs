//! What both drivers share: turning commands into units of work, the
//! bookkeeping of starting, canceling and answering them (`dispatcher`),
//! running tools and models (their panics contained by `run::contain`), and keeping the error objects and decoded values the
//! machine only sees as records (SPEC MACH-02). The drivers differ only in
//! *where* work runs and how they wait for it (a `Placement`).

mod dispatcher;
#[cfg(feature = "blocking")]
mod inline_stream;
mod kept;
mod launch;
mod observers;
mod resources;
mod tool;
mod work;

pub(crate) use dispatcher::{Answer, Dispatcher, Drained, Placement};
#[cfg(feature = "blocking")]
pub(crate) use inline_stream::InlineStream;
pub(crate) use kept::Attachments;
pub(crate) use launch::{LogOut, Opened, Origin, RunSetup};
pub(crate) use observers::{DeltaCallback, Observers};
pub(crate) use resources::RunResources;
#[cfg(feature = "blocking")]
pub(crate) use tool::call_tool_blocking;
#[cfg(feature = "async")]
pub(crate) use tool::{call_tool_async, ToolAnswer};
pub(crate) use work::{action, caller_cancel, stopped_at, Action, CallerToken, ForwardDeltas, Task, TaskId};

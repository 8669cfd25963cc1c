//! What both drivers share: turning commands into units of work, running
//! application code (models, tools, decoders, observers) with its panics
//! contained, and keeping the error objects and decoded values the machine
//! only sees as records (SPEC MACH-02). The drivers differ only in *where*
//! work runs and how they wait for it.

mod kept;
mod launch;
mod observers;
mod panicked;
mod tool;
mod work;

pub(crate) use kept::Kept;
pub(crate) use launch::Launch;
pub(crate) use observers::{DeltaCallback, Observers};
pub(crate) use panicked::{contain, contain_async, Panicked};
pub(crate) use tool::{call_tool_async, call_tool_blocking};
pub(crate) use work::{caller_cancel, order, ForwardDeltas, Order, Work, WorkId};

use crate::cancel::CancellationToken;
use futures_lite::future;
use std::future::Future;

/// Drive `future` to completion on this thread with a minimal `block_on` —
/// no runtime — unless `cancel` fires first: then the future is dropped and
/// there is no answer. Async models and tools run this way under the
/// blocking driver (SPEC DRV-04).
pub(crate) fn block_on_or_cancel<T>(future: impl Future<Output = T>, cancel: &CancellationToken) -> Option<T> {
    let cancelled = cancel.cancelled();
    // async-io's block_on also drives its reactor on this thread, so a
    // future waiting on async-io timers or sockets is served directly.
    async_io::block_on(future::or(async { Some(future.await) }, async {
        cancelled.await;
        None
    }))
}

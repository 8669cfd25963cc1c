//! A tool's handler, blocking, async or both, and how each kind runs under
//! either driver (SPEC DRV-04): an async handler under the blocking driver is
//! driven by a minimal `block_on`, a blocking handler under the async driver
//! runs on the blocking thread pool, and a handler with both faces runs the
//! one that fits the driver.

use super::{ToolError, ToolResult};
use crate::run::block_on::block_on_or_cancel;
#[cfg(feature = "async")]
use crate::run::contain::contain;
use crate::tool::context::ToolContext;
use golem_core::model::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

pub(crate) type BlockingFn<Deps> = dyn Fn(&ToolContext<Deps>, Value) -> Result<ToolResult, ToolError> + Send + Sync;
pub(crate) type AsyncFn<Deps> =
    dyn Fn(ToolContext<Deps>, Value) -> BoxFuture<'static, Result<ToolResult, ToolError>> + Send + Sync;

/// The code behind a tool.
pub(crate) enum Handler<Deps> {
    /// Runs to completion on whatever thread calls it.
    Blocking(Arc<BlockingFn<Deps>>),
    /// Returns a `'static` future that owns its context.
    Async(Arc<AsyncFn<Deps>>),
    /// The same work in both forms, so neither driver needs a bridge (a
    /// delegated sub-run runs on its parent's driver kind, SPEC DELEG-04).
    /// Only with both drivers compiled in; with one, its face alone is kept.
    #[cfg(all(feature = "blocking", feature = "async"))]
    Both { blocking: Arc<BlockingFn<Deps>>, asynchronous: Arc<AsyncFn<Deps>> },
}

impl<Deps> Clone for Handler<Deps> {
    fn clone(&self) -> Self {
        match self {
            Handler::Blocking(f) => Handler::Blocking(Arc::clone(f)),
            Handler::Async(f) => Handler::Async(Arc::clone(f)),
            #[cfg(all(feature = "blocking", feature = "async"))]
            Handler::Both { blocking, asynchronous } => {
                Handler::Both { blocking: Arc::clone(blocking), asynchronous: Arc::clone(asynchronous) }
            }
        }
    }
}

impl<Deps: Send + Sync + 'static> Handler<Deps> {
    /// Run on the current thread. An async handler's future is raced
    /// against the call's cancellation and dropped when the run gives up on
    /// the call: it then has no answer (`None`), like any dropped future.
    pub(crate) fn run_blocking(&self, ctx: &ToolContext<Deps>, args: Value) -> Option<Result<ToolResult, ToolError>> {
        match self {
            Handler::Blocking(f) => Some(f(ctx, args)),
            #[cfg(all(feature = "blocking", feature = "async"))]
            Handler::Both { blocking: f, .. } => Some(f(ctx, args)),
            Handler::Async(f) => block_on_or_cancel(f(ctx.clone(), args), ctx.cancellation()),
        }
    }

    /// Run as a `'static` future. A blocking handler moves to the blocking
    /// thread pool with the context's own `Arc` of the deps; dropping the
    /// future abandons it there (its cancellation token tells it to stop).
    #[cfg(feature = "async")]
    pub(crate) fn run_async(
        &self,
        ctx: ToolContext<Deps>,
        args: Value,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        match self {
            Handler::Blocking(f) => {
                let f = Arc::clone(f);
                // A panic must not escape into the pool, or the task would
                // never report; it becomes the call's fatal error here.
                Box::pin(blocking::unblock(move || {
                    contain("the tool", || f(&ctx, args)).unwrap_or_else(|p| Err(ToolError::fatal(p)))
                }))
            }
            Handler::Async(f) => f(ctx, args),
            #[cfg(feature = "blocking")]
            Handler::Both { asynchronous: f, .. } => f(ctx, args),
        }
    }
}

//! What a tool handler sees of its run (SPEC DRV-06).

use crate::clock::Clock;
use golem_core::Moment;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A shared signal that tells running work to stop.
///
/// The driver cancels a call's token when the machine cancels the call (a
/// deadline passed, a sibling failed); a cooperative tool checks
/// [`is_cancelled`](Self::is_cancelled) and returns early, and a tool that
/// ignores it is abandoned, never waited for. Given to a run with
/// [`RunBuilder::cancellation`](crate::RunBuilder::cancellation), the same
/// token stops the whole run.
#[derive(Clone, Default)]
pub struct CancellationToken(Arc<TokenState>);

type Waker = Box<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct TokenState {
    // Only written under `wakers`' lock, so a waker registered concurrently
    // with `cancel` is either called by `cancel` or sees the flag itself.
    cancelled: AtomicBool,
    wakers: Mutex<Vec<(u64, Waker)>>,
    next_waker: AtomicU64,
}

impl CancellationToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        CancellationToken::default()
    }

    /// Ask the work holding this token to stop. Idempotent.
    pub fn cancel(&self) {
        let wakers = self.lock();
        if !self.0.cancelled.swap(true, Ordering::SeqCst) {
            wakers.iter().for_each(|(_, wake)| wake());
        }
    }

    /// True once [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Call `wake` on cancellation (at once if already cancelled); returns
    /// the key that [`forget`](Self::forget) takes.
    pub(crate) fn on_cancel(&self, wake: impl Fn() + Send + Sync + 'static) -> u64 {
        let key = self.0.next_waker.fetch_add(1, Ordering::SeqCst);
        let mut wakers = self.lock();
        if self.is_cancelled() {
            wake();
        } else {
            wakers.push((key, Box::new(wake)));
        }
        key
    }

    /// Stop calling the waker registered under `key`.
    pub(crate) fn forget(&self, key: u64) {
        self.lock().retain(|(k, _)| *k != key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, Waker)>> {
        // A waker only sends on a channel; a poisoned list is still valid.
        self.0.wakers.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancellationToken").field("cancelled", &self.is_cancelled()).finish()
    }
}

/// The context of one tool call: the run's dependencies and the call's
/// identity, deadline, cancellation signal and approval marker.
pub struct ToolContext<Deps> {
    pub(crate) deps: Arc<Deps>,
    pub(crate) call_id: String,
    pub(crate) tool_name: String,
    pub(crate) deadline: Option<Moment>,
    pub(crate) cancel: CancellationToken,
    pub(crate) approved: bool,
    pub(crate) clock: Arc<dyn Clock>,
}

impl<Deps> ToolContext<Deps> {
    /// The run's dependencies.
    pub fn deps(&self) -> &Deps {
        &self.deps
    }

    /// The run's dependencies as the shared `Arc`, for work that outlives
    /// the call (a sub-run, a spawned thread).
    pub fn deps_arc(&self) -> &Arc<Deps> {
        &self.deps
    }

    /// The provider's id of this call.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The name the model called this tool by.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// When the call must have answered, on the run's clock.
    pub fn deadline(&self) -> Option<Moment> {
        self.deadline
    }

    /// Time left before the deadline (zero once it passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(self.clock.now()))
    }

    /// True once the run no longer wants this call's result.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The call's cancellation token, to hand to nested work.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// True when this is the approved re-run of a deferred call (SPEC DEFER-03).
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// The run's clock, so nested runs share its timeline.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

impl<Deps> fmt::Debug for ToolContext<Deps> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Deps may hold secrets or be huge; never print them.
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool_name", &self.tool_name)
            .field("deadline", &self.deadline)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("approved", &self.approved)
            .finish_non_exhaustive()
    }
}

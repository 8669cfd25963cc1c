//! The cancellation signal shared by callers, drivers and tools (SPEC
//! DRV-05, DRV-06): one token type for both drivers, observable by polling,
//! by callback (the blocking driver's channel) or as a future (the async
//! driver and async tools).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// A shared signal that tells running work to stop.
///
/// The driver cancels a call's token when the machine cancels the call (a
/// deadline passed, a sibling failed); a cooperative tool checks
/// [`is_canceled`](Self::is_canceled) — or awaits
/// [`canceled`](Self::canceled) — and returns early, and a tool that
/// ignores it is abandoned, never waited for. Given to a run with
/// [`RunBuilder::cancellation`](crate::RunBuilder::cancellation), the same
/// token stops the whole run, under either driver.
///
/// ```
/// use golem_io::CancellationToken;
///
/// let token = CancellationToken::new();
/// let seen_by_tool = token.clone();
/// token.cancel();
/// assert!(seen_by_tool.is_canceled());
/// futures_lite::future::block_on(seen_by_tool.canceled()); // ready at once
/// ```
#[derive(Clone, Default)]
pub struct CancellationToken(Arc<TokenState>);

type WakeFn = Box<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct TokenState {
    // Only written under `wakers`' lock, so a waker registered concurrently
    // with `cancel` is either called by `cancel` or sees the flag itself.
    canceled: AtomicBool,
    wakers: Mutex<Vec<(u64, WakeFn)>>,
    next_waker: AtomicU64,
    /// Set by `cancel_after_turn`: a run holding the token finishes its
    /// current turn (and that turn's tool batch) before it stops. Shared
    /// apart from the token so wake callbacks can read it without holding
    /// the token (which holds them).
    after_turn: Arc<AtomicBool>,
}

impl CancellationToken {
    /// A token that is not canceled.
    pub fn new() -> Self {
        CancellationToken::default()
    }

    /// Ask the work holding this token to stop. Idempotent.
    pub fn cancel(&self) {
        let wakers = self.lock();
        if !self.0.canceled.swap(true, Ordering::SeqCst) {
            wakers.iter().for_each(|(_, wake)| wake());
        }
    }

    /// Ask a run holding this token to stop once its current turn — the
    /// model call and its tool batch — has finished, before the next model
    /// call (SPEC MACH-07 `AfterTurn`). Work other than runs (a tool holding
    /// the token) sees an ordinary cancellation. No effect once canceled.
    pub fn cancel_after_turn(&self) {
        if !self.is_canceled() {
            self.0.after_turn.store(true, Ordering::SeqCst);
        }
        self.cancel();
    }

    /// The flag `cancel_after_turn` sets, for drivers.
    pub(crate) fn after_turn_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0.after_turn)
    }

    /// True once [`cancel`](Self::cancel) was called.
    pub fn is_canceled(&self) -> bool {
        self.0.canceled.load(Ordering::SeqCst)
    }

    /// A future that completes once the token is canceled — for async work
    /// racing its own body against the signal. It works under any executor.
    pub fn canceled(&self) -> Canceled {
        Canceled { token: self.clone(), registration: None }
    }

    /// Call `wake` on cancellation (at once if already canceled); returns
    /// the key that [`forget`](Self::forget) takes.
    pub(crate) fn on_cancel(&self, wake: impl Fn() + Send + Sync + 'static) -> u64 {
        let key = self.0.next_waker.fetch_add(1, Ordering::SeqCst);
        let mut wakers = self.lock();
        if self.is_canceled() {
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

    fn lock(&self) -> MutexGuard<'_, Vec<(u64, WakeFn)>> {
        // A waker only sends or wakes; a poisoned list is still valid.
        self.0.wakers.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancellationToken").field("canceled", &self.is_canceled()).finish()
    }
}

/// The task waker a [`Canceled`] future last saw, shared with the token's
/// wake callback.
type WakerSlot = Arc<Mutex<Option<Waker>>>;

/// The future returned by [`CancellationToken::canceled`].
#[must_use = "futures do nothing unless polled"]
pub struct Canceled {
    token: CancellationToken,
    /// Registered on first poll, so an unpolled future costs nothing.
    registration: Option<(u64, WakerSlot)>,
}

impl Future for Canceled {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.token.is_canceled() {
            return Poll::Ready(());
        }
        match &self.registration {
            Some((_, slot)) => *lock_slot(slot) = Some(cx.waker().clone()),
            None => {
                let slot: WakerSlot = Arc::new(Mutex::new(Some(cx.waker().clone())));
                let for_token = Arc::clone(&slot);
                let key = self.token.on_cancel(move || {
                    if let Some(waker) = lock_slot(&for_token).take() {
                        waker.wake();
                    }
                });
                self.registration = Some((key, slot));
            }
        }
        // A cancel between the first check and the waker update woke the
        // old waker; looking again closes that window.
        if self.token.is_canceled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Canceled {
    fn drop(&mut self) {
        if let Some((key, _)) = &self.registration {
            // A token may outlive many waits; stop waking this one.
            self.token.forget(*key);
        }
    }
}

impl fmt::Debug for Canceled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Canceled").field("token", &self.token).finish_non_exhaustive()
    }
}

fn lock_slot(slot: &WakerSlot) -> MutexGuard<'_, Option<Waker>> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn canceled_completes_when_another_thread_cancels() {
        let token = CancellationToken::new();
        let canceller = token.clone();
        let handle = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            canceller.cancel();
        });
        futures_lite::future::block_on(token.canceled());
        assert!(token.is_canceled());
        let _ = handle.join();
    }

    #[test]
    fn a_dropped_wait_leaves_no_waker_behind() {
        let token = CancellationToken::new();
        let mut wait = token.canceled();
        let polled = futures_lite::future::block_on(futures_lite::future::poll_once(&mut wait));
        assert!(polled.is_none());
        assert_eq!(token.lock().len(), 1);
        drop(wait);
        assert!(token.lock().is_empty());
    }
}

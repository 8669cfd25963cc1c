//! Driving one future to completion on the calling thread, with no runtime:
//! how async models and tools run under the blocking driver and in
//! [`Tool::call`](crate::Tool::call) (SPEC DRV-04).
//!
//! With the `async` feature this is async-io's `block_on`, which also runs
//! async-io's reactor on this thread, so a future waiting on async-io timers
//! or sockets is served directly. Without it a thread-parking loop does the
//! job with std alone; async-io, if the application uses it anyway, then
//! serves such futures from its own fallback thread.

use crate::run::cancel::CancellationToken;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;

/// Drive `future` to completion on this thread unless `cancel` fires first:
/// then the future is dropped and there is no answer.
pub(crate) fn block_on_or_cancel<T>(future: impl Future<Output = T>, cancel: &CancellationToken) -> Option<T> {
    let mut future = pin!(future);
    let mut canceled = pin!(cancel.canceled());
    // The work is polled first, so an answer that is ready wins over a
    // cancellation that arrived at the same moment.
    block_on(poll_fn(|cx| {
        if let Poll::Ready(value) = future.as_mut().poll(cx) {
            return Poll::Ready(Some(value));
        }
        match canceled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }))
}

#[cfg(feature = "async")]
use async_io::block_on;
#[cfg(not(feature = "async"))]
use park_on as block_on;

/// A minimal `block_on`: poll, and park the thread until a waker unparks it.
/// Compiled for tests too, so the default build checks it as well.
#[cfg(any(test, not(feature = "async")))]
fn park_on<T>(future: impl Future<Output = T>) -> T {
    use std::sync::Arc;
    use std::task::{Context, Wake, Waker};
    use std::thread::{self, Thread};

    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
        // A wake before this park leaves the token set, so it is not lost;
        // a spurious return only costs one more poll.
        thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::park_on;
    use crate::run::cancel::CancellationToken;
    use std::time::Duration;

    #[test]
    fn parking_waits_for_a_wake_from_another_thread() {
        let token = CancellationToken::new();
        let canceller = token.clone();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            canceller.cancel();
        });
        park_on(token.canceled());
        assert!(token.is_canceled());
        thread.join().unwrap();
    }

    #[test]
    fn a_ready_future_needs_no_wake() {
        assert_eq!(park_on(async { 7 }), 7);
    }
}

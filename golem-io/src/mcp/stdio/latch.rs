//! A flag one thread sets once and others wait for, with a limit: how the
//! stdio threads tell each other that a stream ended.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Set once; waiters wake when it is.
#[derive(Clone, Default)]
pub(crate) struct Latch(Arc<(Mutex<bool>, Condvar)>);

impl Latch {
    /// Set it and wake every waiter.
    pub(crate) fn set(&self) {
        let (done, cond) = &*self.0;
        *done.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cond.notify_all();
    }

    /// Wait up to `limit` for it to be set; true when it is.
    pub(crate) fn wait(&self, limit: Duration) -> bool {
        let (done, cond) = &*self.0;
        let guard = done.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = cond.wait_timeout_while(guard, limit, |done| !*done).unwrap_or_else(|p| p.into_inner());
        *guard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_wake_when_set_and_give_up_at_the_limit() {
        let latch = Latch::default();
        assert!(!latch.wait(Duration::from_millis(10)));
        let setter = latch.clone();
        let thread = std::thread::spawn(move || setter.set());
        assert!(latch.wait(Duration::from_secs(10)));
        thread.join().unwrap();
        assert!(latch.wait(Duration::ZERO), "it stays set");
    }
}

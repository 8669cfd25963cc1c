//! The GET-stream listener's state and stop signal, shared by the client
//! (which reads the state and stops it), the connection (whose new session
//! wakes it) and the listener thread.

use crate::mcp::listen_state::ListenState;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

/// The listener's state and its stop signal, shared by the client and the
/// listener thread.
pub(crate) struct Control {
    inner: Mutex<ControlInner>,
    pub(super) cond: Condvar,
}

pub(super) struct ControlInner {
    pub(super) state: ListenState,
    pub(super) stopping: bool,
    pub(super) thread: Option<JoinHandle<()>>,
    pub(super) running: bool,
}

impl Control {
    pub(crate) fn new() -> Self {
        let inner = ControlInner { state: ListenState::Off, stopping: false, thread: None, running: false };
        Control { inner: Mutex::new(inner), cond: Condvar::new() }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, ControlInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn state(&self) -> ListenState {
        self.lock().state
    }

    pub(super) fn set(&self, state: ListenState) {
        let mut inner = self.lock();
        if !inner.stopping {
            inner.state = state;
        }
    }

    pub(super) fn stopping(&self) -> bool {
        self.lock().stopping
    }

    /// Something the listener may wait for changed (the session id).
    pub(crate) fn wake(&self) {
        let _inner = self.lock();
        self.cond.notify_all();
    }

    /// Wait until `done` or a stop; true when stopping.
    pub(super) fn wait_until(&self, deadline: Option<Instant>, mut done: impl FnMut() -> bool) -> bool {
        let mut inner = self.lock();
        loop {
            if inner.stopping {
                return true;
            }
            if done() {
                return false;
            }
            inner = match deadline {
                None => self.cond.wait(inner).unwrap_or_else(|p| p.into_inner()),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return false;
                    }
                    self.cond.wait_timeout(inner, left).unwrap_or_else(|p| p.into_inner()).0
                }
            };
        }
    }

    pub(super) fn finished(&self) {
        let mut inner = self.lock();
        inner.running = false;
        if inner.stopping {
            inner.state = ListenState::Closed;
        }
        self.cond.notify_all();
    }

    /// Wait until the listener thread is no longer running; false at `deadline`.
    pub(super) fn wait_not_running(&self, deadline: Instant) -> bool {
        let mut inner = self.lock();
        while inner.running {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            inner = self.cond.wait_timeout(inner, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        true
    }
}

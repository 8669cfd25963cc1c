//! The server process's lifetime: its own process group, and the shutdown
//! ladder — stdin closed, 2 s, SIGTERM to the group, 2 s, SIGKILL to the
//! group, reaped (SPEC MCP-05).
//!
//! The group is killed at the end of the ladder even when the server
//! exited on its own: helpers it started and left behind are in its group
//! and go with it (issue 15). So that the kill can never reach a stranger,
//! the server is not reaped before it: on Unix its exit is only observed
//! (`waitid` with `WNOWAIT`), and while it is an unreaped zombie its pid —
//! and so its group id — cannot be reused.

use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long each step of the shutdown ladder waits.
const GRACE: Duration = Duration::from_secs(2);

/// A child process, reaped exactly once whoever gets there first.
pub(crate) struct Process {
    state: Mutex<State>,
}

struct State {
    child: Child,
    /// Set once the process has ended (observed, not necessarily reaped).
    status: Option<ExitStatus>,
    reaped: bool,
    shut_down: bool,
}

/// Put the server in its own process group, so signals reach whatever it
/// started too and no grandchild outlives it.
pub(crate) fn own_group(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(not(unix))]
    let _ = command;
}

impl Process {
    pub(crate) fn new(child: Child) -> Self {
        Process { state: Mutex::new(State { child, status: None, reaped: false, shut_down: false }) }
    }

    pub(crate) fn id(&self) -> u32 {
        self.lock().child.id()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The exit status, if the process has ended (not reaping it on Unix).
    fn try_status(&self) -> Option<ExitStatus> {
        let mut state = self.lock();
        if state.status.is_none() {
            state.status = observe_exit(&mut state.child);
        }
        state.status
    }

    /// Block until the process ends (not reaping it on Unix); its status
    /// as text. The exit watcher's call: the server's end is seen at once,
    /// even while a helper it left behind holds its stdout open.
    pub(crate) fn wait_for_exit(&self) -> String {
        loop {
            if let Some(status) = self.try_status() {
                return status.to_string();
            }
            if self.lock().reaped {
                return "exited".to_string();
            }
            if !block_until_exit(self.id()) {
                // Not a child to wait for (any more): look now and then.
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    /// Wait up to `limit` for the process to end; its status as text.
    pub(crate) fn wait_exit(&self, limit: Duration) -> String {
        match self.poll_until(limit) {
            Some(status) => status.to_string(),
            None => "still running after closing its stdout".to_string(),
        }
    }

    fn poll_until(&self, limit: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.try_status() {
                return Some(status);
            }
            if start.elapsed() >= limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The ladder after stdin was closed; idempotent.
    pub(crate) fn shut_down(&self) {
        {
            let mut state = self.lock();
            if state.shut_down {
                return;
            }
            state.shut_down = true;
        }
        if self.poll_until(GRACE).is_none() {
            self.signal(false);
            self.poll_until(GRACE);
        }
        self.terminate();
    }

    /// SIGKILL the whole group — the server, if still running, and
    /// whatever it left behind — then reap the server.
    pub(crate) fn terminate(&self) {
        self.signal(true);
        let mut state = self.lock();
        if !state.reaped {
            if state.status.is_none() {
                let _ = state.child.kill();
            }
            if let Ok(status) = state.child.wait() {
                state.status = Some(status);
            }
            state.reaped = true;
        }
    }

    fn signal(&self, kill: bool) {
        let state = self.lock();
        // Once reaped, the group id may belong to someone else.
        if state.reaped {
            return;
        }
        #[cfg(unix)]
        {
            use rustix::process::{kill_process_group, Pid, Signal};
            let signal = if kill { Signal::KILL } else { Signal::TERM };
            if let Some(pid) = i32::try_from(state.child.id()).ok().and_then(Pid::from_raw) {
                let _ = kill_process_group(pid, signal);
            }
        }
        #[cfg(not(unix))]
        if kill {
            let _ = state.child.kill();
        }
    }
}

/// The child's exit status if it has ended, leaving it unreaped (Unix).
#[cfg(unix)]
fn observe_exit(child: &mut Child) -> Option<ExitStatus> {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    use std::os::unix::process::ExitStatusExt;
    let pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw)?;
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    let status = loop {
        match waitid(WaitId::Pid(pid), options) {
            Err(rustix::io::Errno::INTR) => continue,
            Ok(status) => break status?,
            Err(_) => return None,
        }
    };
    // As a raw wait status, so it prints like any `ExitStatus`.
    match (status.exit_status(), status.terminating_signal()) {
        (Some(code), _) => Some(ExitStatus::from_raw((code & 0xff) << 8)),
        (None, Some(signal)) => Some(ExitStatus::from_raw(signal & 0x7f)),
        (None, None) => None,
    }
}

#[cfg(not(unix))]
fn observe_exit(child: &mut Child) -> Option<ExitStatus> {
    child.try_wait().ok().flatten()
}

/// Block until child `pid` has ended, without reaping it (the lock is not
/// held: the ladder may reap meanwhile, which wakes this too); false when
/// there is no such child to wait for.
#[cfg(unix)]
fn block_until_exit(pid: u32) -> bool {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else { return false };
    loop {
        match waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT) {
            Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => return true,
            Err(_) => return false,
        }
    }
}

/// Without `waitid`, the watcher polls.
#[cfg(not(unix))]
fn block_until_exit(_pid: u32) -> bool {
    std::thread::sleep(Duration::from_millis(50));
    true
}

//! The server process's lifetime: its own process group, and the shutdown
//! ladder — stdin closed, 2 s, SIGTERM, 2 s, SIGKILL, reaped (SPEC MCP-05).

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
    status: Option<ExitStatus>,
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
        Process { state: Mutex::new(State { child, status: None, shut_down: false }) }
    }

    pub(crate) fn id(&self) -> u32 {
        self.lock().child.id()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The exit status, if the process has ended (reaping it).
    fn try_status(&self) -> Option<ExitStatus> {
        let mut state = self.lock();
        if state.status.is_none() {
            state.status = state.child.try_wait().ok().flatten();
        }
        state.status
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
        if self.poll_until(GRACE).is_some() {
            return;
        }
        self.signal(false);
        if self.poll_until(GRACE).is_some() {
            return;
        }
        self.terminate();
    }

    /// SIGKILL and reap.
    pub(crate) fn terminate(&self) {
        self.signal(true);
        let mut state = self.lock();
        if state.status.is_none() {
            let _ = state.child.kill();
            state.status = state.child.wait().ok();
        }
    }

    fn signal(&self, kill: bool) {
        let state = self.lock();
        if state.status.is_some() {
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

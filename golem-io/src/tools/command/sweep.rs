//! Finding the command's descendants that left its process group (issue
//! 15), on Linux: a `setsid` daemon is in no group golem can signal, and
//! once its parent is gone it is not golem's descendant either.
//!
//! Why not a subreaper: `PR_SET_CHILD_SUBREAPER` is a property of the whole
//! process. Set on the application's process, every orphan of every child
//! it ever starts — not only commands — would become its child, to be
//! reaped by someone; a library cannot take that over. A helper process
//! acting as the subreaper needs an executable to run, which a library
//! does not have without taking over the application's `main`.
//!
//! So the command carries two marks a descendant keeps unless it works to
//! lose them: the variable [`MARKER`] in its environment (inherited by
//! everything it starts) and the write end of golem's output pipe. After
//! the group kill, every process of this user whose initial environment
//! holds the marker, or which holds the pipe, is killed; the scan repeats
//! until it finds none (a bounded number of rounds, against a process that
//! forks while it is swept). Only processes started no earlier than the
//! command are looked into — a descendant cannot be older — which keeps a
//! sweep to one small read per other process. Each kill goes through a
//! pidfd opened before the last check, so a pid reused meanwhile is never
//! signalled.
//!
//! What still escapes: a descendant that both replaces its environment
//! (`env -i`) and closes or redirects the pipe, and anything started
//! through another service (`at`, `systemd-run`, a terminal multiplexer's
//! server started with a cleared environment).

use rustix::process::{Pid, PidfdFlags, Signal};
use std::fs;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The variable marking a command and its descendants.
pub const MARKER: &str = "GOLEM_COMMAND_ID";

/// Scans after the first that may still find processes (a descendant
/// forking while it is killed).
const MAX_ROUNDS: usize = 16;

/// What identifies one command's descendants.
pub(super) struct Marks {
    /// `MARKER=<id>` as it appears in `/proc/<pid>/environ`.
    entry: Vec<u8>,
    /// `pipe:[<inode>]`, the output pipe as `/proc/<pid>/fd/*` names it.
    pipe: Option<String>,
    /// When the command started, in clock ticks since boot.
    since: u64,
}

impl Marks {
    /// Fresh marks for one command whose output pipe is `pipe`.
    pub(super) fn new(pipe: impl AsFd) -> (Marks, String) {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let id = format!("{}-{}-{nanos}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let pipe = rustix::fs::fstat(pipe).ok().map(|stat| format!("pipe:[{}]", stat.st_ino));
        (Marks { entry: format!("{MARKER}={id}").into_bytes(), pipe, since: 0 }, id)
    }

    /// The command is `pid`: nothing started before it is its descendant.
    pub(super) fn started(&mut self, pid: Pid) {
        let dir = Path::new("/proc").join(pid.as_raw_nonzero().to_string());
        self.since = stat(&dir).map_or(0, |stat| stat.started);
    }

    /// Kill every marked process of this user but this one; `pipe_open`
    /// says whether someone may still hold the output pipe (if it reported
    /// its end, nobody does and the costlier descriptor scan is skipped).
    pub(super) fn sweep(&self, pipe_open: bool) {
        for _ in 0..=MAX_ROUNDS {
            let found = self.scan(pipe_open);
            if found.is_empty() {
                return;
            }
            for pid in found {
                self.kill(pid, pipe_open);
            }
        }
    }

    fn scan(&self, pipe_open: bool) -> Vec<Pid> {
        let Ok(entries) = fs::read_dir("/proc") else { return Vec::new() };
        let (me, uid) = (std::process::id(), rustix::process::geteuid().as_raw());
        entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
                // Other users' processes are not readable, and not ours to kill.
                let owned = entry.metadata().is_ok_and(|m| m.uid() == uid);
                let stat = stat(&entry.path())?;
                // This process's own children are never the command's
                // escaped descendants (the command itself went with its
                // group), but one being spawned right now briefly holds a
                // copy of every descriptor, the pipe included.
                let candidate = pid != me && owned && stat.parent != me && stat.started >= self.since;
                (candidate && self.marked(&entry.path(), pipe_open)).then_some(pid)
            })
            .filter_map(|pid| Pid::from_raw(i32::try_from(pid).ok()?))
            .collect()
    }

    /// True when the process at `dir` (`/proc/<pid>`) carries a mark.
    fn marked(&self, dir: &Path, pipe_open: bool) -> bool {
        let in_env = fs::read(dir.join("environ"))
            .is_ok_and(|environ| environ.split(|b| *b == 0).any(|entry| entry == self.entry.as_slice()));
        in_env || (pipe_open && self.holds_pipe(dir))
    }

    fn holds_pipe(&self, dir: &Path) -> bool {
        let Some(pipe) = &self.pipe else { return false };
        let Ok(fds) = fs::read_dir(dir.join("fd")) else { return false };
        fds.filter_map(Result::ok)
            .any(|fd| fs::read_link(fd.path()).is_ok_and(|target| target.as_os_str() == pipe.as_str()))
    }

    /// SIGKILL `pid` if it is still marked, through a pidfd so that a pid
    /// reused after the check is never hit.
    fn kill(&self, pid: Pid, pipe_open: bool) {
        let dir = Path::new("/proc").join(pid.as_raw_nonzero().to_string());
        match rustix::process::pidfd_open(pid, PidfdFlags::empty()) {
            Ok(pidfd) => {
                if self.marked(&dir, pipe_open) {
                    let _ = rustix::process::pidfd_send_signal(&pidfd, Signal::KILL);
                }
            }
            // Kernels before 5.3: the check and the kill are as close as
            // they can be.
            Err(rustix::io::Errno::NOSYS) => {
                if self.marked(&dir, pipe_open) {
                    let _ = rustix::process::kill_process(pid, Signal::KILL);
                }
            }
            Err(_) => {}
        }
    }
}

/// What `/proc/<pid>/stat` says about a process.
struct Stat {
    parent: u32,
    /// Clock ticks since boot.
    started: u64,
}

/// The `stat` line of the process at `dir`: its fields after the
/// parenthesised command name (which may itself hold spaces and
/// parentheses) start with the third, the state; the parent is the fourth,
/// the start time the twenty-second.
fn stat(dir: &Path) -> Option<Stat> {
    let line = fs::read_to_string(dir.join("stat")).ok()?;
    let fields: Vec<&str> = line.rsplit_once(')')?.1.split_whitespace().collect();
    Some(Stat { parent: fields.get(1)?.parse().ok()?, started: fields.get(19)?.parse().ok()? })
}

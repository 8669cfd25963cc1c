//! Running one child in its own process group (SPEC SHELL-01, SHELL-03,
//! SHELL-04): one pipe on stdout and stderr, stdin null, output capped
//! while the pipe keeps draining, and the whole group killed on timeout,
//! on cancellation and once the child is done — so no grandchild outlives
//! the call. The child is reaped only after the kill, so its process-group
//! id cannot have been reused by then. On Linux, descendants that left the
//! group are then found and killed too ([`sweep`](super::sweep)).
//!
//! The output is read by a thread that waits on the pipe and on a second,
//! private pipe at once: once the call is over, closing the second one
//! stops the reader even if some process outside golem's reach still holds
//! the output pipe open, so no thread is left behind blocked on it.

use crate::run::cancel::CancellationToken;
use rustix::event::{PollFd, PollFlags};
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// How long the pipe may keep the call waiting once the child is gone or
/// killed (a process outside the group may still hold it).
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// How the child's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Exited(i32),
    Signalled(i32),
    TimedOut,
    Canceled,
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(crate) output: Vec<u8>,
    pub(crate) truncated: bool,
    pub(crate) end: End,
}

enum Event {
    Eof,
    Exited,
    Cancel,
}

#[derive(Default)]
struct Capture {
    bytes: Vec<u8>,
    truncated: bool,
}

/// Run `command` (argv and environment set, stdio and group left to this
/// function); with `track`, mark it so that descendants leaving its group
/// are found (Linux). `Err` only when it cannot start.
pub(crate) fn run(
    mut command: Command,
    max_bytes: usize,
    timeout: Duration,
    cancel: Option<&CancellationToken>,
    track: bool,
) -> io::Result<Outcome> {
    let started = Instant::now();
    let (read_end, write_end) = pipe()?;
    let (stop_read, stop_write) = pipe()?;
    #[cfg(target_os = "linux")]
    let mut marks = track.then(|| {
        let (marks, id) = super::sweep::Marks::new(&read_end);
        command.env(super::sweep::MARKER, id);
        marks
    });
    #[cfg(not(target_os = "linux"))]
    let _ = track;
    command.stdin(Stdio::null()).stdout(Stdio::from(write_end.try_clone()?)).stderr(Stdio::from(write_end));
    command.process_group(0);
    let spawned = command.spawn();
    // The command holds our copies of the write end: drop them, or the
    // pipe never reports end-of-file.
    drop(command);
    let mut child = spawned?;
    let pid = Pid::from_child(&child);
    // Nothing older than the command can be its descendant.
    #[cfg(target_os = "linux")]
    if let Some(marks) = &mut marks {
        marks.started(pid);
    }

    let (events, inbox) = mpsc::channel();
    let capture = Arc::new(Mutex::new(Capture::default()));
    spawn_reader(File::from(read_end), stop_read, Arc::clone(&capture), max_bytes, events.clone());
    spawn_waiter(pid, events.clone());
    let cancel_key = cancel.map(|token| {
        let events = events.clone();
        (token, token.on_cancel(move || drop(events.send(Event::Cancel))))
    });

    let deadline = started + timeout;
    let (mut eof, mut exited_at) = (false, None::<Instant>);
    let stopped = loop {
        if eof && exited_at.is_some() {
            break None;
        }
        let now = Instant::now();
        // Once the child is gone, a grandchild holding the pipe gets the
        // grace period, not the whole timeout.
        let wake = exited_at.map_or(deadline, |at| deadline.min(at + DRAIN_GRACE));
        match inbox.recv_timeout(wake.saturating_duration_since(now)) {
            Ok(Event::Eof) => eof = true,
            Ok(Event::Exited) => exited_at = Some(Instant::now()),
            Ok(Event::Cancel) => break Some(End::Canceled),
            Err(RecvTimeoutError::Timeout) if exited_at.is_some() && Instant::now() < deadline => break None,
            Err(RecvTimeoutError::Timeout) => break Some(End::TimedOut),
            Err(RecvTimeoutError::Disconnected) => break None,
        }
    };
    if let Some((token, key)) = cancel_key {
        token.forget(key);
    }

    // Not yet reaped, so the group id is still this child's.
    let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    #[cfg(target_os = "linux")]
    if let Some(marks) = &marks {
        marks.sweep(!eof);
    }
    if !eof {
        let grace_end = Instant::now() + DRAIN_GRACE;
        while let Ok(event) = inbox.recv_timeout(grace_end.saturating_duration_since(Instant::now())) {
            if matches!(event, Event::Eof) {
                break;
            }
        }
    }
    // Whoever still holds the pipe, the reader stops here.
    drop(stop_write);
    let status = child.wait()?;
    let end = stopped.unwrap_or_else(|| match (status.code(), status.signal()) {
        (Some(code), _) => End::Exited(code),
        (None, Some(signal)) => End::Signalled(signal),
        (None, None) => End::Exited(-1),
    });
    let capture = std::mem::take(&mut *capture.lock().unwrap_or_else(PoisonError::into_inner));
    Ok(Outcome { output: capture.bytes, truncated: capture.truncated, end })
}

/// A pipe whose ends are not inherited by other children spawned meanwhile.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd", target_os = "netbsd"))]
    {
        Ok(rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd", target_os = "netbsd")))]
    {
        let (r, w) = rustix::pipe::pipe()?;
        for fd in [&r, &w] {
            rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::CLOEXEC)?;
        }
        Ok((r, w))
    }
}

/// Drain the pipe to its end, keeping the first `max_bytes` — or until
/// `stop`'s other end is closed.
fn spawn_reader(
    pipe: File,
    stop: OwnedFd,
    capture: Arc<Mutex<Capture>>,
    max_bytes: usize,
    events: mpsc::Sender<Event>,
) {
    thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            let mut fds = [PollFd::new(&pipe, PollFlags::IN), PollFd::new(&stop, PollFlags::IN)];
            match rustix::event::poll(&mut fds, None) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => break,
            }
            let (output, stopped) = (fds[0].revents(), fds[1].revents());
            if !stopped.is_empty() {
                break;
            }
            if output.is_empty() {
                continue;
            }
            match (&pipe).read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let mut capture = capture.lock().unwrap_or_else(PoisonError::into_inner);
                    let room = max_bytes.saturating_sub(capture.bytes.len());
                    capture.bytes.extend_from_slice(&buf[..n.min(room)]);
                    capture.truncated |= n > room;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = events.send(Event::Eof);
    });
}

/// Report the child's exit without reaping it.
fn spawn_waiter(pid: Pid, events: mpsc::Sender<Event>) {
    thread::spawn(move || loop {
        match rustix::process::waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT) {
            Err(rustix::io::Errno::INTR) => continue,
            _ => {
                let _ = events.send(Event::Exited);
                break;
            }
        }
    });
}

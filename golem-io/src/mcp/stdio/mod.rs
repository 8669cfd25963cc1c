//! The stdio transport (SPEC MCP-05): the server is a child process
//! speaking newline-delimited JSON-RPC on its stdin and stdout.
//!
//! Four threads serve it: a writer (so a server that stops reading never
//! blocks a caller) fed through a queue bounded at [`MAX_QUEUED`] bytes, a
//! stdout reader that feeds the session, a stderr reader that keeps the
//! last 64 KiB for error messages, and an exit watcher.
//!
//! The server's end is seen two ways: its stdout closing, and its process
//! exiting — the watcher's, which matters when a helper the server started
//! still holds stdout open (the stream then never closes). A server that
//! closes its stdin but keeps running is seen by the writer: the requests
//! waiting to be written, and every later one, fail at once with
//! [`McpError::StdinClosed`].

mod latch;
mod lines;
mod process;
mod queue;

pub use lines::{MAX_LINE, STDERR_TAIL};
pub use queue::MAX_QUEUED;

use super::error::McpError;
use super::jsonrpc::Message;
use super::shared::{Shared, Transport};
use latch::Latch;
use lines::{read_line, LineRead, Tail};
use process::Process;
use queue::{OutQueue, Refused};
use std::ffi::OsString;
use std::fmt;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// How long the exit watcher lets the stdout reader drain what the server
/// wrote before it exited (and the stderr tail fill) before it reports the
/// exit itself.
const DRAIN: Duration = Duration::from_millis(300);

/// How to start a stdio MCP server: the program and its arguments (run
/// directly, never through a shell), optionally a working directory and
/// environment changes.
///
/// `Debug` shows the environment's keys, never its values: that is where
/// servers take their tokens. Pass secrets through [`env`](Self::env), not
/// as arguments, which `Debug` shows.
///
/// ```
/// use golem_io::mcp::StdioConfig;
///
/// let config = StdioConfig::new("python3").arg("server.py").env("GITHUB_TOKEN", "ghp-secret").dir("/tmp");
/// assert_eq!(config.program(), "python3");
/// let shown = format!("{config:?}");
/// assert!(shown.contains("GITHUB_TOKEN") && !shown.contains("ghp-secret"));
/// ```
#[derive(Clone)]
pub struct StdioConfig {
    program: OsString,
    args: Vec<OsString>,
    dir: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
    clear_env: bool,
}

impl StdioConfig {
    /// Run `program` (looked up on `PATH` when it has no slash).
    pub fn new(program: impl Into<OsString>) -> Self {
        StdioConfig { program: program.into(), args: Vec::new(), dir: None, env: Vec::new(), clear_env: false }
    }

    /// Builder-style: one more argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Builder-style: more arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Builder-style: the server's working directory.
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Builder-style: set an environment variable (over the inherited ones,
    /// or over nothing after [`clear_env`](Self::clear_env)).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Builder-style: start from an empty environment instead of ours.
    pub fn clear_env(mut self) -> Self {
        self.clear_env = true;
        self
    }

    /// The program, for messages.
    pub fn program(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        if self.clear_env {
            command.env_clear();
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        process::own_group(&mut command);
        command
    }
}

impl fmt::Debug for StdioConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let env_keys: Vec<&OsString> = self.env.iter().map(|(key, _)| key).collect();
        f.debug_struct("StdioConfig")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("dir", &self.dir)
            .field("env_keys", &env_keys)
            .field("clear_env", &self.clear_env)
            .finish()
    }
}

/// A running stdio server.
pub(crate) struct StdioTransport {
    queue: Arc<OutQueue>,
    process: Arc<Process>,
    /// The pipes the threads of [`start`](Transport::start) take.
    stdin: Mutex<Option<ChildStdin>>,
    stdout: Mutex<Option<ChildStdout>>,
    tail: Tail,
    /// Set once a reply was dropped for want of room, so the log sink
    /// hears of it once, not once per message a flooding server provokes.
    dropped: AtomicBool,
}

impl StdioTransport {
    /// Spawn the server; its threads start with [`start`](Self::start).
    pub(crate) fn spawn(config: &StdioConfig) -> Result<StdioTransport, McpError> {
        let spawn_error = |e: std::io::Error| McpError::Spawn { program: config.program(), source: Arc::new(e) };
        let mut child = config.command().spawn().map_err(spawn_error)?;
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let process = Arc::new(Process::new(child));
        let tail = Tail::default();
        let (Some(stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            process.terminate();
            return Err(spawn_error(std::io::Error::other("the child's pipes are missing")));
        };
        let collector = tail.clone();
        let stderr_thread =
            std::thread::Builder::new().name("golem-mcp-stderr".into()).spawn(move || collector.collect(stderr));
        if let Err(e) = stderr_thread {
            process.terminate();
            return Err(spawn_error(e));
        }
        Ok(StdioTransport {
            queue: Arc::new(OutQueue::new(MAX_QUEUED)),
            process,
            stdin: Mutex::new(Some(stdin)),
            stdout: Mutex::new(Some(stdout)),
            tail,
            dropped: AtomicBool::new(false),
        })
    }

    /// The writer, the stdout reader and the exit watcher.
    fn start_threads(&self, shared: &Arc<Shared>) -> Result<(), McpError> {
        let stdin = self.stdin.lock().unwrap_or_else(|p| p.into_inner()).take();
        let stdout = self.stdout.lock().unwrap_or_else(|p| p.into_inner()).take();
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else { return Ok(()) };
        let (queue, weak) = (Arc::clone(&self.queue), Arc::downgrade(shared));
        spawn("golem-mcp-stdin", move || write_stdin(stdin, &queue, &weak))?;
        let reader_done = Latch::default();
        let (shared_, process, tail, done) =
            (Arc::clone(shared), Arc::clone(&self.process), self.tail.clone(), reader_done.clone());
        spawn("golem-mcp-stdout", move || {
            read_stdout(stdout, &shared_, &process, &tail);
            done.set();
        })?;
        let (weak, process, tail) = (Arc::downgrade(shared), Arc::clone(&self.process), self.tail.clone());
        spawn("golem-mcp-exit", move || watch_exit(&weak, &process, &tail, &reader_done))
    }

    fn enqueue(&self, message: &Message, request: Option<u64>) -> Result<(), Refused> {
        let mut line = message.to_bytes();
        line.push(b'\n');
        self.queue.push(line, request)
    }
}

fn spawn(name: &str, work: impl FnOnce() + Send + 'static) -> Result<(), McpError> {
    std::thread::Builder::new().name(name.into()).spawn(work).map(drop).map_err(McpError::from)
}

impl Transport for StdioTransport {
    fn start(&self, shared: &Arc<Shared>) -> Result<(), McpError> {
        self.start_threads(shared)
    }

    fn process_id(&self) -> Option<u32> {
        Some(self.process.id())
    }

    fn send_request(&self, shared: &Arc<Shared>, id: u64, message: Message) {
        match self.enqueue(&message, Some(id)) {
            Ok(()) => {}
            Err(Refused::Full) => shared.fail(id, McpError::OutgoingQueueFull { limit: self.queue.limit() }),
            Err(Refused::Broken) => shared.fail(id, McpError::StdinClosed),
            // The client is closing: every pending request fails with that.
            Err(Refused::Closed) => {}
        }
    }

    fn send(&self, shared: &Arc<Shared>, message: Message) {
        // Replies and notifications have no caller to tell: a server that
        // does not read them loses them, and the log sink hears it once.
        if self.enqueue(&message, None) == Err(Refused::Full) && !self.dropped.swap(true, Ordering::SeqCst) {
            shared.note(
                "warning",
                format!(
                    "{}; replies and notifications to it are dropped",
                    McpError::OutgoingQueueFull { limit: self.queue.limit() }
                ),
            );
        }
    }

    fn close(&self, _shared: &Arc<Shared>) {
        // Closing the queue ends the writer thread, which closes stdin.
        self.queue.close();
        self.process.shut_down();
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.queue.close();
        self.process.shut_down();
    }
}

/// The writer: lines from the queue to the server's stdin until the client
/// closes the queue or the pipe breaks. A broken pipe means the server
/// closed its stdin: the requests still queued fail at once, as will every
/// later one. Dropping `stdin` at the end tells the server we are done.
fn write_stdin(mut stdin: ChildStdin, queue: &OutQueue, shared: &Weak<Shared>) {
    while let Some(line) = queue.pop() {
        if stdin.write_all(&line.bytes).and_then(|()| stdin.flush()).is_err() {
            let failed = line.request.into_iter().chain(queue.break_off());
            if let Some(shared) = shared.upgrade() {
                failed.for_each(|id| shared.fail(id, McpError::StdinClosed));
            }
            return;
        }
    }
}

/// The exit watcher: the server process ended. The stdout reader reports
/// that as soon as stdout closes; when it does not within [`DRAIN`] — a
/// helper the server started holds stdout open — the watcher does.
fn watch_exit(shared: &Weak<Shared>, process: &Process, tail: &Tail, reader_done: &Latch) {
    let status = process.wait_for_exit();
    if reader_done.wait(DRAIN) {
        return;
    }
    tail.wait_end(DRAIN);
    if let Some(shared) = shared.upgrade() {
        shared.fail_all(McpError::ServerExited { status, stderr_tail: tail.text() });
    }
}

/// The stdout reader: one message per line; non-JSON lines are skipped and
/// logged; an over-long line or the end of the stream ends the session.
fn read_stdout(stdout: ChildStdout, shared: &Arc<Shared>, process: &Process, tail: &Tail) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut buf = Vec::new();
    loop {
        match read_line(&mut reader, &mut buf, MAX_LINE) {
            Ok(LineRead::Line) => handle_line(shared, &buf),
            Ok(LineRead::TooLong) => {
                shared.fail_all(McpError::LineTooLong { limit: MAX_LINE });
                // Keep the pipe flowing so the server is not stuck writing
                // while it is shut down.
                let _ = std::io::copy(&mut reader, &mut std::io::sink());
                return;
            }
            Ok(LineRead::Eof) | Err(_) => break,
        }
    }
    if !buf.is_empty() {
        handle_line(shared, &buf);
    }
    let status = process.wait_exit(Duration::from_secs(2));
    tail.wait_end(Duration::from_millis(500));
    shared.fail_all(McpError::ServerExited { status, stderr_tail: tail.text() });
}

fn handle_line(shared: &Arc<Shared>, line: &[u8]) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    match Message::parse(line) {
        Ok(message) => shared.feed(message),
        Err(error) => {
            let shown = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
            shared.note("warning", format!("skipped a stdout line that is not JSON-RPC ({error}): {shown}"));
        }
    }
}

//! The `run_command` tool (SPEC SHELL): run one local command and return
//! its combined output. Unix only.
//!
//! - **No shell unless asked.** By default the command is split into argv
//!   with POSIX quoting (quotes and backslash only) and the program runs
//!   directly; pipes, redirections, `;`, `&`, backticks, `$(…)`,
//!   variables, globs, `~` and comments are refused with a failed result
//!   saying shell features are off. [`shell`](RunCommandBuilder::shell)
//!   runs `sh -c` instead. An optional [allowlist](RunCommandBuilder::allow_program)
//!   names the programs that may run.
//! - **One pipe** on stdout and stderr, so the output is in write order;
//!   stdin is null; the working directory is the configured one.
//! - **A minimal environment.** The command sees [`PASSED_ENV`] (`PATH`,
//!   `HOME`, the locale, `TERM`, …) from this process, the names
//!   [passed](RunCommandBuilder::pass_env) explicitly and the values
//!   [set](RunCommandBuilder::env) — not this process's API keys.
//!   [`inherit_env`](RunCommandBuilder::inherit_env) hands it everything.
//! - **Own process group.** The timeout (60 s by default, always on) and
//!   the run's cancellation kill the whole group — no grandchild keeps
//!   running or holds the pipe; the pipe drains at most 1 s more, then
//!   the child is reaped. The group is also killed once the command has
//!   exited, so background processes it started do not outlive the call.
//!   On Linux, descendants that left the group (`setsid`, daemons) are
//!   found by a mark and killed too; see
//!   [`track_descendants`](RunCommandBuilder::track_descendants) for how,
//!   and for what still escapes.
//! - **Bounded output.** 1 MiB by default; the rest is discarded while the
//!   pipe keeps draining, and a marker says so.
//!
//! A non-zero exit is an ordinary result ending in "[shell: exited with
//! status N]"; the tool's own timeout and a program that cannot start are
//! failed results; an empty command is a correctable rejection (texts in
//! [`texts`]).
//!
//! **Not a sandbox.** The command runs with this process's user, files and
//! network. Without an [allowlist](RunCommandBuilder::allow_program) the
//! tool is a shell in all but syntax: `sh -c '…'` is a plain argv. An
//! allowlist names programs, not what they can do — `env`, `xargs`,
//! `find -exec`, `git -c core.pager=…`, any interpreter run others.
//! Register the tool only where that is acceptable; confine it with the OS
//! (a container, a separate user) where it is not.
//!
//! ```
//! use golem_io::tools::command::RunCommand;
//!
//! let dir = tempfile::tempdir()?;
//! let command = RunCommand::builder(dir.path()).build()?;
//! assert_eq!(command.run("echo hello")?, "hello\n");
//! assert_eq!(command.run("sh -c 'exit 3'")?, "[shell: exited with status 3]");
//! let tool: golem_io::Tool<()> = command.tool();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod argv;
mod env;
mod exec;
#[cfg(target_os = "linux")]
mod sweep;
pub mod texts;

pub use argv::{split_command, SplitError};
pub use env::PASSED_ENV;
#[cfg(target_os = "linux")]
pub use sweep::MARKER;

use crate::{CancellationToken, Tool, ToolContext, ToolError, ToolResult};
use env::{Base, Env};
use exec::End;
use serde::Deserialize;
use serde_json::Value;
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The timeout unless configured (SPEC SHELL-01).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The output cap unless configured (SPEC SHELL-01).
pub const DEFAULT_MAX_BYTES: usize = 1 << 20;

/// A configured command runner: cheap to clone, shared by every tool made
/// from it.
#[derive(Clone)]
pub struct RunCommand {
    inner: Arc<Config>,
}

#[derive(Clone, Debug)]
struct Config {
    dir: PathBuf,
    shell: bool,
    env: Env,
    track: bool,
    timeout: Duration,
    max_bytes: usize,
    allowed: Option<Vec<String>>,
}

/// Why a command produced no result. Its `Display` is the text the model
/// reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The model should fix its call (an empty command, an open quote).
    #[error("{0}")]
    Rejected(String),
    /// A definitive failure: shell features off, a program not allowed or
    /// not startable, the tool's timeout, a cancellation.
    #[error("{0}")]
    Failed(String),
}

impl CommandError {
    /// True for a correctable rejection.
    pub fn is_rejection(&self) -> bool {
        matches!(self, CommandError::Rejected(_))
    }
}

impl CommandError {
    /// The tool's verdict: a rejection stays correctable, a failure is a
    /// failed result. (`?` on a `CommandError` in a tool of your own gives
    /// a failed result for both, like any error.)
    pub fn into_tool_error(self) -> ToolError {
        match self {
            CommandError::Rejected(reason) => ToolError::Reject(reason),
            CommandError::Failed(reason) => ToolError::Failed(reason),
        }
    }
}

impl RunCommand {
    /// A builder for commands run in `dir` (an existing directory).
    pub fn builder(dir: impl Into<PathBuf>) -> RunCommandBuilder {
        RunCommandBuilder {
            config: Config {
                dir: dir.into(),
                shell: false,
                env: Env::default(),
                track: true,
                timeout: DEFAULT_TIMEOUT,
                max_bytes: DEFAULT_MAX_BYTES,
                allowed: None,
            },
        }
    }

    /// The `run_command` tool, for an agent with any deps.
    pub fn tool<Deps: Send + Sync + 'static>(&self) -> Tool<Deps> {
        let runner = self.clone();
        let shell = self.inner.shell;
        Tool::new(
            texts::TOOL_NAME,
            texts::description(shell),
            texts::schema(shell),
            move |ctx: ToolContext<Deps>, args| runner.call(ctx.cancellation(), args),
        )
    }

    /// Run `command` as the tool would and return what the model reads.
    pub fn run(&self, command: &str) -> Result<String, CommandError> {
        self.run_inner(command, None)
    }

    /// [`run`](Self::run), killing the command once `cancel` is canceled.
    pub fn run_with_cancellation(&self, command: &str, cancel: &CancellationToken) -> Result<String, CommandError> {
        self.run_inner(command, Some(cancel))
    }

    fn call(&self, cancel: &CancellationToken, args: Value) -> Result<ToolResult, ToolError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Args {
            command: String,
        }
        let args: Args =
            serde_json::from_value(args).map_err(|e| ToolError::Reject(texts::bad_args(&e.to_string())))?;
        let output = self.run_inner(&args.command, Some(cancel)).map_err(CommandError::into_tool_error)?;
        Ok(ToolResult::text(output))
    }

    fn run_inner(&self, command: &str, cancel: Option<&CancellationToken>) -> Result<String, CommandError> {
        let config = &self.inner;
        if command.trim().is_empty() {
            return Err(CommandError::Rejected(texts::COMMAND_REQUIRED.into()));
        }
        let argv = if config.shell {
            vec!["sh".to_string(), "-c".to_string(), command.to_string()]
        } else {
            split_command(command).map_err(|e| match e {
                SplitError::Empty => CommandError::Rejected(texts::COMMAND_REQUIRED.into()),
                SplitError::UnterminatedQuote(q) => CommandError::Rejected(texts::unterminated_quote(q)),
                SplitError::TrailingBackslash => CommandError::Rejected(texts::TRAILING_BACKSLASH.into()),
                SplitError::ShellFeature(feature) => CommandError::Failed(texts::shell_features_off(feature)),
            })?
        };
        let program = &argv[0];
        if let Some(allowed) = &config.allowed {
            if !allowed.iter().any(|p| p == program) {
                return Err(CommandError::Failed(texts::not_allowed(program, allowed)));
            }
        }
        let mut process = std::process::Command::new(program);
        process.args(&argv[1..]).current_dir(&config.dir);
        config.env.apply(&mut process);
        let outcome =
            exec::run(process, config.max_bytes, config.timeout, cancel, config.track).map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => CommandError::Failed(texts::program_not_found(program)),
                _ => CommandError::Failed(texts::cannot_start(program, &e.to_string())),
            })?;
        let mut parts = Vec::new();
        let output = String::from_utf8_lossy(&outcome.output);
        if !output.is_empty() {
            parts.push(output.into_owned());
        }
        if outcome.truncated {
            parts.push(texts::truncated(config.max_bytes));
        }
        let failed = match outcome.end {
            End::Exited(0) => false,
            End::Exited(code) => {
                parts.push(texts::exited(code));
                false
            }
            End::Signalled(signal) => {
                parts.push(texts::signalled(signal));
                false
            }
            End::TimedOut => {
                parts.push(texts::timed_out(config.timeout.as_secs_f64()));
                true
            }
            End::Canceled => {
                parts.push(texts::CANCELED.to_string());
                true
            }
        };
        let text = parts.join("\n\n");
        if failed {
            Err(CommandError::Failed(text))
        } else {
            Ok(text)
        }
    }
}

impl fmt::Debug for RunCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Environment values may be secrets: only their names are shown.
        let c = &self.inner;
        f.debug_struct("RunCommand")
            .field("dir", &c.dir)
            .field("shell", &c.shell)
            .field("env_base", &c.env.base)
            .field("pass_env", &c.env.passed)
            .field("env_keys", &c.env.overrides.keys().collect::<Vec<_>>())
            .field("track_descendants", &c.track)
            .field("timeout", &c.timeout)
            .field("max_bytes", &c.max_bytes)
            .field("allowed", &c.allowed)
            .finish()
    }
}

/// Configuration for [`RunCommand`].
pub struct RunCommandBuilder {
    config: Config,
}

impl fmt::Debug for RunCommandBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunCommandBuilder").field("dir", &self.config.dir).finish_non_exhaustive()
    }
}

impl RunCommandBuilder {
    /// Run commands with `sh -c` — pipes, variables and the rest become
    /// available. Off by default; incompatible with an allowlist.
    pub fn shell(mut self, shell: bool) -> Self {
        self.config.shell = shell;
        self
    }

    /// Set `key` to `value` in the command's environment.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.config.env.overrides.insert(key.into(), Some(value.into()));
        self
    }

    /// Remove `key` from the command's environment.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.config.env.overrides.insert(key.into(), None);
        self
    }

    /// Copy `key` from this process's environment, when set there, on top
    /// of [`PASSED_ENV`] (or of nothing, after [`clear_env`](Self::clear_env)).
    pub fn pass_env(mut self, key: impl Into<OsString>) -> Self {
        self.config.env.passed.push(key.into());
        self
    }

    /// Hand the command this process's whole environment — API keys and
    /// tokens included — instead of the minimal one (the overrides still
    /// apply). `false` restores the default.
    pub fn inherit_env(mut self, inherit: bool) -> Self {
        self.config.env.base = if inherit { Base::Inherit } else { Base::Minimal };
        self
    }

    /// Start from an empty environment: not even [`PASSED_ENV`], only the
    /// names [passed](Self::pass_env) and the [overrides](Self::env).
    /// `false` restores the default (the minimal environment).
    pub fn clear_env(mut self, clear: bool) -> Self {
        self.config.env.base = if clear { Base::Empty } else { Base::Minimal };
        self
    }

    /// Find and kill the command's descendants that left its process group
    /// (on by default; Linux only — elsewhere only the group is killed).
    ///
    /// The command gets a variable `GOLEM_COMMAND_ID=<id>` in its
    /// environment. Once it is done — exited, timed out or canceled — and
    /// its group is killed, every process of this user whose initial
    /// environment holds that marker, or which holds the command's output
    /// pipe, is killed, until none is left. A `setsid` daemon is caught by
    /// either mark. What escapes: a process that drops both (`env -i` and
    /// closing or redirecting the pipe), and anything started through
    /// another service (`at`, `systemd-run`, a multiplexer's server).
    /// golem does not make itself a subreaper: that is a property of the
    /// whole application process, affecting every child it starts.
    ///
    /// `false` leaves the environment unmarked and does no sweep.
    pub fn track_descendants(mut self, track: bool) -> Self {
        self.config.track = track;
        self
    }

    /// The timeout (default 60 s; always on).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.config.timeout = timeout;
        self
    }

    /// The output cap in bytes (default 1 MiB).
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.config.max_bytes = max_bytes;
        self
    }

    /// Allow `program` (compared with the command's first word exactly as
    /// written); once any program is allowed, all others are refused.
    pub fn allow_program(mut self, program: impl Into<String>) -> Self {
        self.config.allowed.get_or_insert_with(Vec::new).push(program.into());
        self
    }

    /// Check the configuration and build the runner.
    pub fn build(mut self) -> Result<RunCommand, BuildError> {
        if self.config.timeout.is_zero() {
            return Err(BuildError::ZeroTimeout);
        }
        if self.config.max_bytes == 0 {
            return Err(BuildError::ZeroMaxBytes);
        }
        if self.config.shell && self.config.allowed.is_some() {
            return Err(BuildError::AllowlistWithShell);
        }
        let dir = &self.config.dir;
        let canonical =
            std::fs::canonicalize(dir).map_err(|e| BuildError::Dir { dir: dir.clone(), source: Arc::new(e) })?;
        if !canonical.is_dir() {
            return Err(BuildError::NotADirectory(dir.clone()));
        }
        self.config.dir = canonical;
        Ok(RunCommand { inner: Arc::new(self.config) })
    }
}

/// A [`RunCommandBuilder`] configuration that cannot work.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The timeout is zero.
    #[error("run_command: the timeout must be greater than zero")]
    ZeroTimeout,
    /// The output cap is zero.
    #[error("run_command: max bytes must be greater than zero")]
    ZeroMaxBytes,
    /// An allowlist cannot be enforced on `sh -c` command lines.
    #[error("run_command: a program allowlist cannot be enforced in shell mode")]
    AllowlistWithShell,
    /// The working directory cannot be resolved.
    #[error("run_command: dir {}: {source}", dir.display())]
    Dir {
        /// The directory as given.
        dir: PathBuf,
        /// Why it cannot be resolved.
        #[source]
        source: Arc<io::Error>,
    },
    /// The working directory is not a directory.
    #[error("run_command: dir {} is not a directory", .0.display())]
    NotADirectory(PathBuf),
}

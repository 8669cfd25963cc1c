//! The error of a run entry point: a run that could not start, a run that
//! failed, a run that paused where only completion was expected, or a
//! driver fault.

use crate::results::result::PausedRun;
use golem_core::machine::{ApiMisuse, SetupError};
use golem_core::{RunError, Stage};

/// Why a run returned no result.
///
/// A [`SetupError`] (bad prompt parts, invalid history, refused deferred
/// resolutions, a failing history processor) happens before the run exists,
/// so it has no stage and no evidence; a [`RunError`] carries both.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The run could not start (SPEC RUN-03).
    #[error("run setup failed: {0}")]
    Setup(#[from] SetupError),
    /// The run failed; see its stage, cause and partial evidence. Boxed:
    /// the evidence is large and `Result`s should stay small.
    #[error(transparent)]
    Run(Box<RunError>),
    /// The run paused on deferred tool calls (SPEC RUN-09), but was started
    /// with [`RunBuilder::call`](crate::RunBuilder::call) (or a `run…`
    /// shortcut), which returns completed runs only. Nothing is lost: the
    /// paused run is here, ready to resume. Agents whose tools defer use
    /// [`RunBuilder::call_pausable`](crate::RunBuilder::call_pausable).
    #[error(
        "the run paused on {} deferred tool call(s); resume it, or start runs that may pause with call_pausable",
        .0.pending()
    )]
    Paused(Box<PausedRun>),
    /// The driver broke the machine's contract — a bug in golem, not in the
    /// application or the model.
    #[error("the driver broke the machine's contract: {0}")]
    Misuse(#[source] ApiMisuse),
    /// The machine waited with no work in flight and no deadline, so no
    /// input could ever arrive — a bug in golem.
    #[error("the run stalled: nothing in flight and no deadline to wait for")]
    Stalled,
    /// The machine ended without an outcome the driver can report — a bug
    /// in golem.
    #[error("the run ended without a usable outcome: {0}")]
    NoOutcome(&'static str),
    /// Writing the run's event log failed; the run stops rather than go on
    /// unrecorded. Also a [`LogFile`](crate::LogFile) that cannot be
    /// created, read or cut back.
    #[error("recording the event log failed: {0}")]
    Record(String),
    /// The event log does not read (SPEC LOG-03) — or holds no complete
    /// header: [`LogError::NotStarted`](golem_core::log::LogError::NotStarted),
    /// a run that crashed before it started and can be started again.
    #[error("the event log cannot be read: {0}")]
    Log(#[from] golem_core::log::LogError),
    /// The event log does not replay.
    #[error(transparent)]
    Replay(#[from] golem_core::log::ReplayError),
    /// The event log replays, but cannot be resumed this way.
    #[error("the log cannot be resumed: {0}")]
    NotResumable(String),
    /// The paused run's pause was already resumed (SPEC PAUSE-01): a pause
    /// is used once, across processes, so an approval never runs its calls
    /// twice. Nothing ran. See
    /// [`RunBuilder::resume_log_file`](crate::RunBuilder::resume_log_file).
    #[error("the paused run was already resumed{} (claim {})", if by_run.is_empty() { String::new() } else { format!(" by run {by_run}") }, claim.display())]
    AlreadyResumed {
        /// The claim file beside the paused log.
        claim: std::path::PathBuf,
        /// The run that resumed it, as its claim names it (empty while the
        /// claim is being written).
        by_run: String,
    },
}

impl Error {
    /// The run failure, when the run started and failed.
    pub fn as_run(&self) -> Option<&RunError> {
        match self {
            Error::Run(e) => Some(e),
            _ => None,
        }
    }

    /// The run failure, by value.
    pub fn into_run(self) -> Option<RunError> {
        match self {
            Error::Run(e) => Some(*e),
            _ => None,
        }
    }

    /// The paused run, when the run paused where only completion was expected.
    pub fn as_paused(&self) -> Option<&PausedRun> {
        match self {
            Error::Paused(p) => Some(p),
            _ => None,
        }
    }

    /// The paused run, by value.
    pub fn into_paused(self) -> Option<PausedRun> {
        match self {
            Error::Paused(p) => Some(*p),
            _ => None,
        }
    }

    /// The setup failure, when the run never started.
    pub fn as_setup(&self) -> Option<&SetupError> {
        match self {
            Error::Setup(e) => Some(e),
            _ => None,
        }
    }

    /// The failed stage, when the run started and failed.
    pub fn stage(&self) -> Option<Stage> {
        self.as_run().map(|e| e.stage)
    }

    /// The failed run's id (SPEC EXTRA-01), when the run started and failed;
    /// `None` for a setup error or a driver fault.
    pub fn run_id(&self) -> Option<&str> {
        self.as_run().map(RunError::run_id)
    }

    /// The failed run's conversation id (SPEC EXTRA-01), when the run
    /// started and failed.
    pub fn conversation_id(&self) -> Option<&str> {
        self.as_run().map(RunError::conversation_id)
    }

    /// True when the caller's cancellation or the run deadline ended the run.
    pub fn is_canceled(&self) -> bool {
        self.as_run().is_some_and(RunError::is_canceled)
    }
}

impl From<RunError> for Error {
    fn from(error: RunError) -> Self {
        Error::Run(Box::new(error))
    }
}

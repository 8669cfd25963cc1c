//! The event-log file of the record/replay guide's recipe: synced records,
//! and a torn tail cut off before a continued run appends.

use crate::Error;
use golem_core::log::{EventLog, ReadLog};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// A run's event-log file, made to survive crashes (SPEC LOG-05, LOG-06):
/// each record is synced to disk before the run acts on it (like
/// [`SyncedFile`](crate::SyncedFile)), and a log reopened to continue a
/// crashed run is first cut back to its last complete record. A process
/// may die at any byte, any number of times in a row: the log always reads.
///
/// A log without a complete header — the process died between creating the
/// file and writing its first line — is
/// [`LogError::NotStarted`](golem_core::log::LogError::NotStarted): nothing
/// ran, and the run is started again. One process at a time writes a log.
///
/// ```
/// use golem_core::log::LogError;
/// use golem_core::testing::ScriptedModel;
/// use golem_io::{Agent, Error, LogFile};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("run.log.jsonl");
/// let agent = Agent::<()>::builder(ScriptedModel::new().text("hi")).build()?;
///
/// // A crash right after creating the file: the run never started.
/// std::fs::write(&path, "")?;
/// assert!(matches!(LogFile::open_for_continue(&path), Err(Error::Log(LogError::NotStarted { .. }))));
///
/// // So it starts again, recording from the first line.
/// let done = agent.run_with(()).prompt("hello").record(LogFile::create(&path)?).call()?;
/// let (log, _file) = LogFile::open_for_continue(&path)?;
/// assert_eq!(log.header.run_id, done.run_id());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct LogFile {
    file: File,
}

impl LogFile {
    /// Create the log of a new run at `path`, replacing any file there.
    /// The new directory entry is synced too, so a record on disk is never
    /// in a file a power loss can take away.
    ///
    /// On Unix the file is readable and writable by its owner alone (mode
    /// `0600`, SPEC LOG-08): a log holds prompts, tool arguments and
    /// results. A file it replaces is narrowed to that mode as well.
    pub fn create(path: impl AsRef<Path>) -> Result<LogFile, Error> {
        let path = path.as_ref();
        let file = owner_only(OpenOptions::new().write(true).create(true).truncate(true))
            .open(path)
            .map_err(|e| io_error(path, &e))?;
        narrow_to_owner(&file).map_err(|e| io_error(path, &e))?;
        sync_parent(path).map_err(|e| io_error(path, &e))?;
        Ok(LogFile { file })
    }

    /// Open the log at `path` to go on with its run: read it, cut off a
    /// tail a crash tore (a record written in part, bytes a power loss
    /// left — see [`EventLog::read_bytes`]) and end the last line, so the
    /// next record starts a line of its own. Returns the log, for
    /// [`RunBuilder::continue_log`](crate::RunBuilder::continue_log) (or
    /// [`resume_log`](crate::RunBuilder::resume_log)), and the file,
    /// positioned to append, for [`RunBuilder::record`](crate::RunBuilder::record).
    ///
    /// A log that does not read is [`Error::Log`] — with
    /// [`LogError::NotStarted`](golem_core::log::LogError::NotStarted) when
    /// the run never started; a file that cannot be read or changed is
    /// [`Error::Record`]. The file is changed only when it had a torn tail.
    pub fn open_for_continue(path: impl AsRef<Path>) -> Result<(EventLog, LogFile), Error> {
        let path = path.as_ref();
        let mut file = OpenOptions::new().read(true).write(true).open(path).map_err(|e| io_error(path, &e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| io_error(path, &e))?;
        let read = EventLog::read_bytes(&bytes)?;
        cut_back(&mut file, &read, bytes.len()).map_err(|e| io_error(path, &e))?;
        Ok((read.log, LogFile { file }))
    }
}

impl Write for LogFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()?;
        self.file.sync_data()
    }
}

/// Cut `file` (of `len` bytes) back to `read`'s intact part, end its last
/// line, and leave it positioned there.
fn cut_back(file: &mut File, read: &ReadLog, len: usize) -> std::io::Result<()> {
    let intact = u64::try_from(read.intact).unwrap_or(u64::MAX);
    let torn = read.intact < len;
    if torn {
        file.set_len(intact)?;
    }
    file.seek(SeekFrom::Start(intact))?;
    if read.unterminated {
        file.write_all(b"\n")?;
    }
    if torn || read.unterminated {
        // The cut is durable before any record lands after it.
        file.sync_all()?;
    }
    Ok(())
}

/// Options that create a file only its owner may read (SPEC LOG-08); the
/// umask can only narrow the mode further.
pub(crate) fn owner_only(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// An existing file keeps its mode when opened: narrow it to its owner.
fn narrow_to_owner(file: &File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if file.metadata()?.permissions().mode() & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

fn io_error(path: &Path, error: &std::io::Error) -> Error {
    Error::Record(format!("{}: {error}", path.display()))
}

/// Sync the directory holding `path`, where the platform can open one.
pub(crate) fn sync_parent(path: &Path) -> std::io::Result<()> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if cfg!(unix) {
        File::open(parent)?.sync_all()?;
    }
    Ok(())
}

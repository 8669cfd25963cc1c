//! Writing log lines as the run goes.

use golem_core::log::{EndKind, EventLog, LogHeader, LogRecord};
use golem_core::machine::{Input, Outcome, Output};
use golem_core::Moment;
use std::io::Write;

/// A log file synced to disk after every record (each record is flushed
/// anyway; this also makes it durable, at a disk round trip per input).
/// [`LogFile`](crate::LogFile) does the same and also opens a crashed run's
/// log safely for appending.
#[derive(Debug)]
pub struct SyncedFile(pub std::fs::File);

impl Write for SyncedFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()?;
        self.0.sync_data()
    }
}

/// Writes one run's lines.
pub(crate) struct Recorder<'a> {
    sink: Box<dyn Write + Send + 'a>,
    header: LogHeader,
}

impl<'a> Recorder<'a> {
    /// A recorder for the run `header` starts; `write_header` is false when
    /// appending to the log of a run being continued.
    pub(crate) fn new(
        sink: Box<dyn Write + Send + 'a>,
        header: LogHeader,
        write_header: bool,
    ) -> Result<Self, crate::Error> {
        let mut recorder = Recorder { sink, header };
        if write_header {
            let line = EventLog::header_line(&recorder.header);
            recorder.write(&line)?;
        }
        Ok(recorder)
    }

    fn write(&mut self, line: &str) -> Result<(), crate::Error> {
        self.sink
            .write_all(line.as_bytes())
            .and_then(|()| self.sink.flush())
            .map_err(|e| crate::Error::Record(e.to_string()))
    }

    /// One consumed input and what it produced.
    pub(crate) fn input(&mut self, now: Moment, input: &Input, outputs: &[Output]) -> Result<(), crate::Error> {
        let record = LogRecord::input(&self.header, now, input.clone(), Some(outputs));
        self.write(&EventLog::record_line(&record))
    }

    /// The end marker of a finished run.
    pub(crate) fn end(&mut self, now: Moment, outcome: &Outcome) -> Result<(), crate::Error> {
        let end = match outcome {
            Outcome::Completed { .. } => EndKind::Completed,
            Outcome::Paused { .. } => EndKind::Paused,
            Outcome::Failed(_) => EndKind::Failed,
        };
        let at = now.as_nanos().saturating_sub(self.header.epoch);
        self.write(&EventLog::record_line(&LogRecord { at, input: None, out: None, end: Some(end) }))
    }
}

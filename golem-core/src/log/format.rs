//! The log's lines and their parsing (SPEC LOG-01, LOG-03).

use crate::config::RunConfig;
use crate::machine::{Input, Output, Start};
use crate::time::Moment;
use serde::{Deserialize, Serialize};

/// The current log format. Readers accept every earlier version.
///
/// - 1: the first format.
/// - 2: tool events carry their turn and `tool_end` a typed outcome; only
///   the output digests differ (inputs and header are unchanged), and a
///   format-1 log's digests are checked in format 1's shape
///   ([`outputs_digest_for`](super::outputs_digest_for)).
/// - 3 (issue 32): the header's start may carry a jitter seed
///   (`jitterSeed`, SPEC JIT-01) and its config the first-chunk and idle
///   limits (TIME-01) and the tool caps (CAP-01), which a format-2 reader
///   would silently ignore and replay otherwise; records and digests are
///   format 2's.
pub const FORMAT_VERSION: u32 = 3;

/// The first line of a log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogHeader {
    /// The format version of the file.
    pub format: u32,
    /// The golem-core version that wrote it.
    pub golem_core_version: String,
    /// The run's configuration.
    pub config: RunConfig,
    /// The processed start (history processor and instructions applied),
    /// without its ids: those are the header's own fields.
    pub start: Start,
    /// The run id (SPEC LOG-01, EXTRA-01). Replay gives it back to the
    /// machine, so a replayed run stamps exactly what the recorded one did;
    /// empty in logs written before runs had ids.
    #[serde(default)]
    pub run_id: String,
    /// The conversation id, like `run_id`.
    #[serde(default)]
    pub conversation_id: String,
    /// The jitter seed (also inside the config; kept for readers).
    #[serde(default)]
    pub seed: u64,
    /// Wall-clock start, for humans; replay never reads it.
    #[serde(default)]
    pub started_at_unix_ms: u64,
    /// The machine's `now` at start (nanoseconds on the recording driver's
    /// timeline). Records' `at` count from here; replay starts the machine
    /// here so every deadline it computes matches the recording.
    #[serde(default)]
    pub epoch: u64,
    /// The first record was fed before the machine's first drain — a
    /// cancellation that arrived before the run began, so no turn started.
    /// Replay then feeds it first too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fed_before_start: bool,
    /// The name of the agent that ran, when it has one, for humans (the run
    /// report shows it); replay never reads it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub agent: String,
}

impl LogHeader {
    /// A header for a run of `config` from `start`, in the current format.
    /// The start's ids move to the header's `run_id` and `conversation_id`
    /// (SPEC LOG-01), so the log holds each once.
    pub fn new(config: RunConfig, mut start: Start) -> Self {
        let seed = config.seed;
        let run_id = std::mem::take(&mut start.run_id);
        let conversation_id = std::mem::take(&mut start.conversation_id);
        LogHeader {
            format: FORMAT_VERSION,
            golem_core_version: env!("CARGO_PKG_VERSION").to_string(),
            config,
            start,
            run_id: run_id.to_string(),
            conversation_id: conversation_id.to_string(),
            seed,
            started_at_unix_ms: 0,
            epoch: 0,
            fed_before_start: false,
            agent: String::new(),
        }
    }
}

impl LogHeader {
    /// The start the logged machine was created with: [`LogHeader::start`]
    /// with the header's ids put back (ids the start itself carries win, for
    /// headers built by hand).
    pub fn machine_start(&self) -> Start {
        let mut start = self.start.clone();
        if start.run_id.is_empty() {
            start.run_id = self.run_id.as_str().into();
        }
        if start.conversation_id.is_empty() {
            start.conversation_id = self.conversation_id.as_str().into();
        }
        start
    }
}

/// How a logged run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// The decoder accepted an answer.
    Completed,
    /// The run paused on deferred calls.
    Paused,
    /// The run failed.
    Failed,
}

/// One line after the header: an input, or the end marker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// Nanoseconds since the run's start.
    pub at: u64,
    /// The input consumed at `at` (absent on the end line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Input>,
    /// Digest of the outputs the input produced ([`super::outputs_digest`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out: Option<String>,
    /// Present on the last line of a finished run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<EndKind>,
}

/// A whole log in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct EventLog {
    /// Line 1.
    pub header: LogHeader,
    /// The inputs, in the order consumed.
    pub records: Vec<LogRecord>,
    /// How the run ended, if it did.
    pub end: Option<EndKind>,
}

/// A log that cannot be read. Reading fails closed: an unknown version,
/// input variant or malformed line is an error, never a guess — except for
/// a tail a crash tore, which is dropped ([`EventLog::read_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// The log has no complete header: the process died between creating
    /// the file and finishing its first line (it is empty, or holds a
    /// header the crash cut short, or bytes a power loss left), so the run
    /// never started: the driver makes no model call and runs no tool
    /// before the header is written. The run can safely be started again
    /// from the beginning.
    #[error(
        "the log holds no complete header ({bytes} bytes): the run crashed before it started, nothing ran, and it can be started again"
    )]
    NotStarted {
        /// The log's length.
        bytes: usize,
    },
    /// The header is not valid.
    #[error("log header is invalid: {0}")]
    Header(String),
    /// A format this reader does not know.
    #[error("log format {found} is newer than this reader (knows up to {FORMAT_VERSION})")]
    UnknownFormat {
        /// The version found.
        found: u32,
    },
    /// A line after the header is not a valid record.
    #[error("log line {line} is invalid: {reason}")]
    Record {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Records after the end marker, or time going backwards.
    #[error("log line {line} is out of place: {reason}")]
    Order {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

impl EventLog {
    /// An empty log under `header`.
    pub fn new(header: LogHeader) -> Self {
        EventLog { header, records: Vec::new(), end: None }
    }

    /// Append an input consumed at `now` (on the machine's timeline; the
    /// record stores it relative to the header's epoch), with the digest of
    /// `outputs` when given.
    pub fn push(&mut self, now: Moment, input: Input, outputs: Option<&[Output]>) {
        self.records.push(LogRecord::input(&self.header, now, input, outputs));
    }

    /// The machine time of a record's `at`.
    pub fn moment(&self, at: u64) -> Moment {
        Moment::from_nanos(self.header.epoch.saturating_add(at))
    }
}

impl LogRecord {
    /// The record of `input` consumed at `now` in the run `header` starts.
    pub fn input(header: &LogHeader, now: Moment, input: Input, outputs: Option<&[Output]>) -> LogRecord {
        LogRecord {
            at: now.as_nanos().saturating_sub(header.epoch),
            input: Some(input),
            // A continued log keeps its format, so its digests stay in one shape.
            out: outputs.map(|o| super::outputs_digest_for(header.format, o)),
            end: None,
        }
    }
}

impl EventLog {
    /// Mark the run finished.
    pub fn finish(&mut self, end: EndKind) {
        self.end = Some(end);
    }

    /// The header as one JSON line (with its newline).
    pub fn header_line(header: &LogHeader) -> String {
        let mut line = serde_json::to_string(header).unwrap_or_default();
        line.push('\n');
        line
    }

    /// One record as a JSON line (with its newline).
    pub fn record_line(record: &LogRecord) -> String {
        let mut line = serde_json::to_string(record).unwrap_or_default();
        line.push('\n');
        line
    }

    /// The whole log as JSON lines.
    pub fn to_jsonl(&self) -> String {
        let mut out = Self::header_line(&self.header);
        for record in &self.records {
            out.push_str(&Self::record_line(record));
        }
        if let Some(end) = self.end {
            let at = self.records.last().map_or(0, |r| r.at);
            out.push_str(&Self::record_line(&LogRecord { at, input: None, out: None, end: Some(end) }));
        }
        out
    }
}

//! Reading a log, including one a crash cut short (SPEC LOG-03, LOG-05).
//!
//! A crash damages only a log's end. The driver acts on an input only after
//! its line is written and flushed, so every complete record before the
//! damage happened, and whatever follows the last one — a line the crash
//! cut in half, or, after a power loss, bytes the disk never held (zeros,
//! stale data) — is a write that never finished: nothing it caused
//! happened. Reading drops that tail and says where it starts, so a writer
//! continuing the log cuts it off before appending (else the next record
//! would be glued onto the fragment). Damage with a record after it is not
//! a crash's: it is an error, like any line that looks like a record but
//! does not read as one.

use super::format::{EventLog, LogError, LogHeader, LogRecord, FORMAT_VERSION};

/// A log read from bytes that a crash may have torn
/// ([`EventLog::read_bytes`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ReadLog {
    /// The log: the header and every complete record.
    pub log: EventLog,
    /// How many leading bytes hold the log. What follows is a torn tail,
    /// not read: cut the log back to this length before appending to it.
    pub intact: usize,
    /// The intact part ends inside a line — its last record is complete
    /// but its newline was never written: write one before appending.
    pub unterminated: bool,
}

/// One line of the log, without its newline.
struct Line<'a> {
    /// 1-based.
    number: usize,
    /// Where it starts in the log.
    start: usize,
    bytes: &'a [u8],
}

impl Line<'_> {
    fn is_blank(&self) -> bool {
        self.bytes.iter().all(u8::is_ascii_whitespace)
    }

    /// A complete JSON object with an `at` and an `input` or `end` field:
    /// what every record line is, and what neither a line cut short nor
    /// random bytes after it are, short of a freak accident.
    fn is_record_shaped(&self) -> bool {
        serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(self.bytes).is_ok_and(|object| {
            object.contains_key("at") && (object.contains_key("input") || object.contains_key("end"))
        })
    }
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let mut start = 0;
    bytes.split(|&b| b == b'\n').enumerate().map(move |(index, line)| {
        let line = Line { number: index + 1, start, bytes: line };
        start += line.bytes.len() + 1;
        line
    })
}

impl EventLog {
    /// Read a log from text; see [`EventLog::read_bytes`], which this is
    /// without the length of the intact part.
    pub fn parse(text: &str) -> Result<EventLog, LogError> {
        Self::read_bytes(text.as_bytes()).map(|read| read.log)
    }

    /// Read a log from bytes, as a crash may have left them. Blank lines
    /// are skipped.
    ///
    /// A torn tail — everything from the first line that is not a record
    /// (a line cut short, bytes that are not text or not JSON) when no
    /// record follows it — is dropped: the driver acts on an input only
    /// after its line is flushed, so nothing it caused happened, and a
    /// continued run redoes it. A last line that is a complete record
    /// without its newline is read. [`ReadLog::intact`] says where the
    /// tail starts: cut it off before appending.
    ///
    /// Anything else fails closed: damage followed by a record, a line that
    /// looks like a record but is not one (an unknown input, both an input
    /// and an end), records after the end marker or going back in time, a
    /// complete header that is invalid or of a newer format. (Bytes after a
    /// cut that happened to complete the cut line into valid JSON would be
    /// read as what they say: the log has no checksum to tell.) A log without
    /// a complete header is [`LogError::NotStarted`]: the run crashed
    /// before it began, and nothing ran.
    ///
    /// ```
    /// use golem_core::log::{EventLog, LogError, LogHeader};
    /// use golem_core::machine::{Input, Start};
    /// use golem_core::{Moment, RunConfig};
    ///
    /// let mut log = EventLog::new(LogHeader::new(RunConfig::default(), Start::prompt("hi")));
    /// log.push(Moment::from_millis(5), Input::Tick, None);
    /// let text = log.to_jsonl();
    ///
    /// // A crash cut the next record in half: it is dropped, and `intact`
    /// // says where to cut before appending.
    /// let torn = format!("{text}{{\"at\":9000000,\"inp");
    /// let read = EventLog::read_bytes(torn.as_bytes())?;
    /// assert_eq!((read.log, read.intact, read.unterminated), (log, text.len(), false));
    ///
    /// // A crash before the header was complete: nothing ran.
    /// let cut = &text.as_bytes()[..20];
    /// assert_eq!(EventLog::read_bytes(cut), Err(LogError::NotStarted { bytes: 20 }));
    /// # Ok::<(), LogError>(())
    /// ```
    pub fn read_bytes(bytes: &[u8]) -> Result<ReadLog, LogError> {
        let mut lines = lines(bytes).filter(|line| !line.is_blank());
        let not_started = LogError::NotStarted { bytes: bytes.len() };
        let Some(first) = lines.next() else { return Err(not_started) };
        let header = match read_header(first.bytes)? {
            Ok(header) => header,
            Err(damage) if lines.any(|line| line.is_record_shaped()) => return Err(LogError::Header(damage)),
            // The crash came while the header was being written.
            Err(_) => return Err(not_started),
        };
        let mut log = EventLog::new(header);
        let mut intact = bytes.len();
        let mut last_at = 0;
        while let Some(line) = lines.next() {
            let record = match read_record(line.bytes) {
                Ok(record) => record,
                Err(reason) if line.is_record_shaped() || lines.any(|later| later.is_record_shaped()) => {
                    return Err(LogError::Record { line: line.number, reason });
                }
                Err(_) => {
                    intact = line.start;
                    break;
                }
            };
            if log.end.is_some() {
                return Err(LogError::Order { line: line.number, reason: "a record after the end marker".into() });
            }
            if record.at < last_at {
                return Err(LogError::Order { line: line.number, reason: "time goes backwards".into() });
            }
            last_at = record.at;
            match record.end {
                None => log.records.push(record),
                Some(end) => log.end = Some(end),
            }
        }
        let unterminated = bytes[..intact].last().is_some_and(|&b| b != b'\n');
        Ok(ReadLog { log, intact, unterminated })
    }
}

/// A record line: an input or the end marker, exactly one of them.
fn read_record(line: &[u8]) -> Result<LogRecord, String> {
    let record = serde_json::from_slice::<LogRecord>(line).map_err(|e| e.to_string())?;
    if record.input.is_some() == record.end.is_some() {
        return Err("a record holds exactly one of `input` and `end`".into());
    }
    Ok(record)
}

/// The header line: the header, or — when the line is not a complete
/// header at all (not a JSON object with a format, a configuration and a
/// start, as a header cut short is not) — why not. A complete one that is
/// invalid or of a newer format is an error.
fn read_header(line: &[u8]) -> Result<Result<LogHeader, String>, LogError> {
    /// What every header has, read without building the rest.
    #[derive(serde::Deserialize)]
    struct Shape {
        format: serde_json::Value,
        #[serde(rename = "config")]
        _config: serde::de::IgnoredAny,
        #[serde(rename = "start")]
        _start: serde::de::IgnoredAny,
    }
    let known = |format: u64| {
        let format = u32::try_from(format).unwrap_or(u32::MAX);
        if format == 0 || format > FORMAT_VERSION {
            return Err(LogError::UnknownFormat { found: format });
        }
        Ok(())
    };
    let error = match serde_json::from_slice::<LogHeader>(line) {
        Ok(header) => return known(header.format.into()).map(|()| Ok(header)),
        Err(error) => error,
    };
    let shape = match serde_json::from_slice::<Shape>(line) {
        Ok(shape) => shape,
        Err(e) => return Ok(Err(e.to_string())),
    };
    known(shape.format.as_u64().ok_or(LogError::Header("no format version".into()))?)?;
    Err(LogError::Header(error.to_string()))
}

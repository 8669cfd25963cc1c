//! An opened file as text (SPEC FILE-04, FILE-05): binary detection, the
//! byte cap, line ranges — and, for a range, a bound on the bytes scanned
//! to reach it, so a start line deep in a huge file costs a bounded read
//! (issue 15).

use super::{texts, ReadError};
use std::io::{BufRead, BufReader, Read};

/// How much of the file's start is searched for a NUL byte.
const SNIFF_BYTES: usize = 8 * 1024;

/// Lines `start..=end`, 1-based; `end` `None` means to the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Range {
    start: u64,
    end: Option<u64>,
}

impl Range {
    /// The range the arguments ask for, or `None` for the whole file.
    pub(super) fn new(start: Option<u64>, end: Option<u64>) -> Result<Option<Range>, ReadError> {
        if start == Some(0) || end == Some(0) {
            return Err(ReadError::Rejected(texts::LINE_ZERO.into()));
        }
        match (start, end) {
            (None, None) => Ok(None),
            (start, end) => {
                let start = start.unwrap_or(1);
                if let Some(end) = end.filter(|end| *end < start) {
                    return Err(ReadError::Rejected(texts::range_reversed(start, end)));
                }
                Ok(Some(Range { start, end }))
            }
        }
    }
}

/// How much work one read may do.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// The most bytes returned.
    pub(super) max_bytes: u64,
    /// The most bytes a line range may scan, skipped lines included.
    pub(super) max_scan: u64,
}

/// Read `file` (named `path` to the model) as text.
pub(super) fn read(path: &str, file: std::fs::File, range: Option<Range>, limits: Limits) -> Result<String, ReadError> {
    let max_bytes = limits.max_bytes;
    let io_error = |e: std::io::Error| ReadError::Failed(texts::io(path, &e.to_string()));
    let mut reader = BufReader::new(file);
    let sniff = reader.fill_buf().map_err(io_error)?;
    if sniff[..sniff.len().min(SNIFF_BYTES)].contains(&0) {
        return Err(ReadError::Failed(texts::binary(path)));
    }
    let (bytes, truncated) = match range {
        None => {
            let mut bytes = Vec::new();
            reader.by_ref().take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(io_error)?;
            let truncated = bytes.len() as u64 > max_bytes;
            bytes.truncate(usize::try_from(max_bytes).unwrap_or(usize::MAX));
            (bytes, truncated)
        }
        Some(range) => read_lines(path, reader, range, limits)?,
    };
    let text = to_text(path, bytes, truncated)?;
    Ok(if truncated { text + &texts::truncated(max_bytes) } else { text })
}

/// The bytes of lines `range`, at most `max_bytes` of them, scanning at
/// most `max_scan` bytes of the file.
fn read_lines(
    path: &str,
    reader: BufReader<std::fs::File>,
    range: Range,
    limits: Limits,
) -> Result<(Vec<u8>, bool), ReadError> {
    let io_error = |e: std::io::Error| ReadError::Failed(texts::io(path, &e.to_string()));
    let cap = usize::try_from(limits.max_bytes).unwrap_or(usize::MAX);
    // One byte past the bound tells a file that ends exactly there from
    // one that goes on.
    let mut reader = reader.take(limits.max_scan.saturating_add(1));
    let mut scanned = 0u64;
    let mut kept = Vec::new();
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        // Lines before the range are skipped a buffer at a time, so a long
        // one never sits in memory.
        let read =
            if number + 1 < range.start { skip_line(&mut reader) } else { read_line(&mut reader, &mut line, cap) };
        let read = read.map_err(io_error)?;
        scanned += read as u64;
        if scanned > limits.max_scan {
            return Err(ReadError::Failed(texts::scan_limit(path, limits.max_scan, range.start)));
        }
        if read == 0 {
            break;
        }
        number += 1;
        if number < range.start {
            continue;
        }
        if range.end.is_some_and(|end| number > end) {
            break;
        }
        if kept.len() + line.len() > cap {
            let room = cap - kept.len();
            kept.extend_from_slice(&line[..room]);
            return Ok((kept, true));
        }
        kept.extend_from_slice(&line);
        if range.end == Some(number) {
            break;
        }
    }
    if number < range.start {
        return Err(ReadError::Rejected(texts::start_past_end(path, range.start, number)));
    }
    Ok((kept, false))
}

/// Consume one line; returns how many bytes it had (0 at the end).
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(total);
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(total + at + 1);
            }
            None => {
                let n = buf.len();
                reader.consume(n);
                total += n;
            }
        }
    }
}

/// Read one line, keeping at most `cap + 1` bytes of it (enough to see it
/// overflows the cap); returns how many bytes it had.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>, cap: usize) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(total);
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buf.len(), false),
        };
        let room = (cap + 1).saturating_sub(line.len());
        line.extend_from_slice(&buf[..take.min(room)]);
        reader.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

/// UTF-8 text without NUL, or a binary file; a sequence cut by the cap is
/// dropped. The whole text is checked, not only the file's first bytes: a
/// line range can start anywhere.
fn to_text(path: &str, mut bytes: Vec<u8>, truncated: bool) -> Result<String, ReadError> {
    if bytes.contains(&0) {
        return Err(ReadError::Failed(texts::binary(path)));
    }
    if let Err(e) = std::str::from_utf8(&bytes) {
        if !(truncated && e.error_len().is_none()) {
            return Err(ReadError::Failed(texts::binary(path)));
        }
        bytes.truncate(e.valid_up_to());
    }
    String::from_utf8(bytes).map_err(|_| ReadError::Failed(texts::binary(path)))
}

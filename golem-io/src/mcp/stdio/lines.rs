//! Bounded line reading and the stderr tail (SPEC MCP-05).

use super::latch::Latch;
use std::io::{self, BufRead};
use std::sync::{Arc, Mutex};

/// The longest stdout line accepted, newline excluded.
pub const MAX_LINE: usize = 32 << 20;

/// How much of the server's stderr is kept for error messages.
pub const STDERR_TAIL: usize = 64 << 10;

/// What one read of a line found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// A whole line (without its `\n`) is in the buffer.
    Line,
    /// The stream ended; the buffer holds any unterminated rest.
    Eof,
    /// The line passed the cap; the buffer holds its first bytes.
    TooLong,
}

/// Read one `\n`-terminated line into `buf` (cleared first), never holding
/// more than `cap` bytes.
pub(crate) fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<LineRead> {
    buf.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(LineRead::Eof);
        }
        let (chunk, found) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        if buf.len() + chunk.len() > cap {
            return Ok(LineRead::TooLong);
        }
        buf.extend_from_slice(chunk);
        let used = found.unwrap_or(chunk.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(LineRead::Line);
        }
    }
}

/// The last [`STDERR_TAIL`] bytes of a stream, shared with its reader thread.
#[derive(Clone, Default)]
pub(crate) struct Tail {
    bytes: Arc<Mutex<Vec<u8>>>,
    done: Latch,
}

impl Tail {
    /// Copy `stream` into the tail until it ends.
    pub(crate) fn collect(&self, mut stream: impl io::Read) {
        let mut chunk = [0u8; 8192];
        loop {
            match stream.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => self.push(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        self.done.set();
    }

    fn push(&self, data: &[u8]) {
        let mut bytes = self.bytes.lock().unwrap_or_else(|p| p.into_inner());
        bytes.extend_from_slice(data);
        if bytes.len() > STDERR_TAIL {
            let excess = bytes.len() - STDERR_TAIL;
            bytes.drain(..excess);
        }
    }

    /// Wait up to `limit` for the stream to end, so the tail is complete.
    pub(crate) fn wait_end(&self, limit: std::time::Duration) {
        self.done.wait(limit);
    }

    /// The tail as text (lossy UTF-8).
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_across_reads_and_the_cap_holds() {
        let data = b"{\"a\":1}\nsecond line\nunterminated";
        let mut reader = io::BufReader::with_capacity(3, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut reader, &mut buf, 100).unwrap(), LineRead::Line);
        assert_eq!(buf, b"{\"a\":1}");
        assert_eq!(read_line(&mut reader, &mut buf, 100).unwrap(), LineRead::Line);
        assert_eq!(buf, b"second line");
        assert_eq!(read_line(&mut reader, &mut buf, 100).unwrap(), LineRead::Eof);
        assert_eq!(buf, b"unterminated");
        let mut reader = io::BufReader::with_capacity(4, &b"0123456789\n"[..]);
        assert_eq!(read_line(&mut reader, &mut buf, 8).unwrap(), LineRead::TooLong);
    }

    #[test]
    fn the_tail_keeps_the_last_bytes() {
        let tail = Tail::default();
        let data: Vec<u8> = (0..STDERR_TAIL + 10).map(|i| b'a' + (i % 26) as u8).collect();
        tail.collect(&data[..]);
        assert_eq!(tail.text().len(), STDERR_TAIL);
        assert!(tail.text().ends_with(std::str::from_utf8(&data[data.len() - 5..]).unwrap()));
    }
}

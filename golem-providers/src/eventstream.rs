//! An incremental decoder for AWS event-stream frames
//! (`application/vnd.amazon.eventstream`, SPEC PROV-BR-05, STREAM-06/08).
//!
//! A frame is a 12-byte prelude (big-endian u32 total length, u32 headers
//! length, CRC32 of those eight bytes), the headers (each a u8 name length,
//! the name, a type byte 0–9 and a typed value), the payload and a CRC32 of
//! everything before it. Frames are checked in a fixed order — prelude
//! bounds, prelude CRC, headers, payload, message CRC — and the first
//! failure is the frame's error; the prelude is checked as soon as its 12
//! bytes are in, so a hostile length is refused before anything is
//! buffered for it. The checksums come from `crc32fast` (already a
//! dependency through flate2); `aws-smithy-eventstream` would have added
//! 15 crates (aws-smithy-types, time, http-body, …) for the same framing.
//! This decoder is tested on the vectors that crate ships instead
//! (`tests/bedrock_eventstream.rs`).
//!
//! Like the SSE decoder it follows the feed / next / finish shape of
//! httparse: a partial frame is a normal state, input may be cut anywhere,
//! and the frames come out the same however the bytes were chunked. The
//! end of input is legal only between frames.
//!
//! ```
//! use golem_providers::eventstream::{FrameDecoder, FrameError};
//!
//! // A frame with no headers and the payload "another test payload" (AWS's vector).
//! let frame = b"\x00\x00\x00\x24\x00\x00\x00\x00\x51\x63\x56\xad\x61\x6e\x6f\x74\x68\x65\x72\x20\x74\x65\x73\x74\x20\x70\x61\x79\x6c\x6f\x61\x64\x8d\xf8\x0e\x65";
//! let mut decoder = FrameDecoder::new();
//! decoder.feed(&frame[..10]);
//! assert!(decoder.next_frame().is_none()); // needs more input
//! decoder.feed(&frame[10..]);
//! assert_eq!(&decoder.next_frame().unwrap().unwrap().payload[..], b"another test payload");
//!
//! decoder.feed(&frame[..20]);
//! decoder.finish();
//! assert!(matches!(decoder.next_frame(), Some(Err(FrameError::Truncated { .. }))));
//! ```

use bytes::Bytes;

/// The smallest frame: a prelude and a message CRC, nothing else.
pub const MIN_FRAME: usize = 16;

/// The largest frame accepted (SPEC STREAM-08).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;

const PRELUDE: usize = 12;

/// A typed header value (types 0–9 of the format).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderValue {
    /// Types 0 (true) and 1 (false).
    Bool(bool),
    /// Type 2.
    Byte(i8),
    /// Type 3.
    Short(i16),
    /// Type 4.
    Int(i32),
    /// Type 5.
    Long(i64),
    /// Type 6: at most 65 535 bytes.
    Bytes(Bytes),
    /// Type 7: UTF-8, at most 65 535 bytes.
    String(String),
    /// Type 8: milliseconds since the Unix epoch.
    Timestamp(i64),
    /// Type 9.
    Uuid([u8; 16]),
}

/// One header of a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The name (1–255 bytes of UTF-8).
    pub name: String,
    /// The value.
    pub value: HeaderValue,
}

/// A decoded, checksum-verified frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The headers in wire order.
    pub headers: Vec<Header>,
    /// The payload bytes.
    pub payload: Bytes,
}

impl Frame {
    /// The value of the first header called `name`.
    pub fn header(&self, name: &str) -> Option<&HeaderValue> {
        self.headers.iter().find(|h| h.name == name).map(|h| &h.value)
    }

    /// The first header called `name`, if it is a string.
    pub fn string_header(&self, name: &str) -> Option<&str> {
        match self.header(name) {
            Some(HeaderValue::String(value)) => Some(value),
            _ => None,
        }
    }
}

/// Why the input is not a valid frame sequence. Each names where it went
/// wrong; none carries frame bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The total length is below [`MIN_FRAME`] or above [`MAX_FRAME`].
    #[error("frame length {length} is outside {MIN_FRAME}..={MAX_FRAME} bytes")]
    FrameLength {
        /// The length the prelude declared.
        length: u32,
    },
    /// The headers cannot fit in the declared frame.
    #[error("headers length {headers} does not fit a frame of {length} bytes")]
    HeadersLength {
        /// The headers length the prelude declared.
        headers: u32,
        /// The total length the prelude declared.
        length: u32,
    },
    /// The prelude CRC does not match.
    #[error("prelude checksum mismatch (expected {expected:#010x}, computed {computed:#010x})")]
    PreludeChecksum {
        /// The CRC the frame carries.
        expected: u32,
        /// The CRC of the bytes received.
        computed: u32,
    },
    /// A header is malformed: its name or value runs past the headers, its
    /// name is empty or not UTF-8, or its string value is not UTF-8.
    #[error("malformed header at byte {offset} of the headers: {what}")]
    Header {
        /// Where the header starts, from the start of the headers.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A header has a type byte outside 0–9.
    #[error("unknown header value type {kind} at byte {offset} of the headers")]
    HeaderType {
        /// Where the header starts.
        offset: usize,
        /// The type byte.
        kind: u8,
    },
    /// The message CRC does not match.
    #[error("message checksum mismatch (expected {expected:#010x}, computed {computed:#010x})")]
    MessageChecksum {
        /// The CRC the frame carries.
        expected: u32,
        /// The CRC of the bytes received.
        computed: u32,
    },
    /// The input ended inside a frame.
    #[error("the stream ended inside a frame ({buffered} bytes of it received)")]
    Truncated {
        /// Bytes of the unfinished frame that did arrive.
        buffered: usize,
    },
}

/// The incremental frame decoder: [`feed`](Self::feed) bytes, drain
/// [`next_frame`](Self::next_frame), call [`finish`](Self::finish) at the
/// end of input and drain again. The first error is yielded once and ends
/// the decoding: the bytes after it have no reliable frame boundary.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    start: usize,
    /// The current frame's length, once its prelude was checked.
    checked: Option<usize>,
    ended: bool,
    failed: bool,
}

impl FrameDecoder {
    /// An empty decoder.
    pub fn new() -> Self {
        FrameDecoder::default()
    }

    /// Take more input. Input after an error or after `finish` is ignored.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.failed || self.ended {
            return;
        }
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The input is over: a frame still incomplete is [`FrameError::Truncated`].
    pub fn finish(&mut self) {
        self.ended = true;
    }

    /// Bytes received that no frame has consumed yet.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The next complete frame, `None` when more input is needed (or the
    /// input is over, or decoding failed earlier).
    pub fn next_frame(&mut self) -> Option<Result<Frame, FrameError>> {
        if self.failed {
            return None;
        }
        let result = self.step();
        match result {
            None if self.ended && self.buffered() > 0 => {
                self.failed = true;
                Some(Err(FrameError::Truncated { buffered: self.buffered() }))
            }
            Some(Err(error)) => {
                self.failed = true;
                Some(Err(error))
            }
            other => other,
        }
    }

    fn step(&mut self) -> Option<Result<Frame, FrameError>> {
        let input = &self.buf[self.start..];
        let length = match self.checked {
            Some(length) => length,
            None => {
                let prelude: &[u8; PRELUDE] = input.get(..PRELUDE)?.try_into().ok()?;
                match check_prelude(prelude) {
                    Ok(length) => {
                        self.checked = Some(length);
                        length
                    }
                    Err(error) => return Some(Err(error)),
                }
            }
        };
        let frame = input.get(..length)?;
        let result = decode_frame(frame);
        self.start += length;
        self.checked = None;
        Some(result)
    }
}

/// Steps 1 and 2: the declared lengths, then the prelude CRC. Returns the
/// frame length.
fn check_prelude(prelude: &[u8; PRELUDE]) -> Result<usize, FrameError> {
    let length = be_u32(&prelude[0..4]);
    let headers = be_u32(&prelude[4..8]);
    let total = usize::try_from(length).unwrap_or(usize::MAX);
    if !(MIN_FRAME..=MAX_FRAME).contains(&total) {
        return Err(FrameError::FrameLength { length });
    }
    if usize::try_from(headers).unwrap_or(usize::MAX) > total - MIN_FRAME {
        return Err(FrameError::HeadersLength { headers, length });
    }
    let expected = be_u32(&prelude[8..12]);
    let computed = crc32fast::hash(&prelude[..8]);
    if expected != computed {
        return Err(FrameError::PreludeChecksum { expected, computed });
    }
    Ok(total)
}

/// Steps 3 to 5 on a whole frame whose prelude passed.
fn decode_frame(frame: &[u8]) -> Result<Frame, FrameError> {
    let headers_len = usize::try_from(be_u32(&frame[4..8])).unwrap_or(usize::MAX);
    let headers_end = PRELUDE + headers_len;
    let headers = parse_headers(&frame[PRELUDE..headers_end])?;
    let payload_end = frame.len() - 4;
    let payload = Bytes::copy_from_slice(&frame[headers_end..payload_end]);
    let expected = be_u32(&frame[payload_end..]);
    let computed = crc32fast::hash(&frame[..payload_end]);
    if expected != computed {
        return Err(FrameError::MessageChecksum { expected, computed });
    }
    Ok(Frame { headers, payload })
}

fn parse_headers(mut bytes: &[u8]) -> Result<Vec<Header>, FrameError> {
    let total = bytes.len();
    let mut headers = Vec::new();
    while !bytes.is_empty() {
        let offset = total - bytes.len();
        let bad = |what| FrameError::Header { offset, what };
        let (&name_len, rest) = bytes.split_first().ok_or(bad("missing name length"))?;
        if name_len == 0 {
            return Err(bad("empty name"));
        }
        let (name, rest) = take(rest, usize::from(name_len)).ok_or(bad("name runs past the headers"))?;
        let name = std::str::from_utf8(name).map_err(|_| bad("name is not UTF-8"))?.to_string();
        let (&kind, rest) = rest.split_first().ok_or(bad("missing value type"))?;
        let (value, rest) = match kind {
            0 => Some((HeaderValue::Bool(true), rest)),
            1 => Some((HeaderValue::Bool(false), rest)),
            2 => fixed(rest, 1, |v| HeaderValue::Byte(i8::from_be_bytes([v[0]]))),
            3 => fixed(rest, 2, |v| HeaderValue::Short(i16::from_be_bytes([v[0], v[1]]))),
            4 => fixed(rest, 4, |v| HeaderValue::Int(i32::from_be_bytes([v[0], v[1], v[2], v[3]]))),
            5 => fixed(rest, 8, |v| HeaderValue::Long(be_i64(v))),
            8 => fixed(rest, 8, |v| HeaderValue::Timestamp(be_i64(v))),
            9 => fixed(rest, 16, |v| {
                let mut uuid = [0; 16];
                uuid.copy_from_slice(v);
                HeaderValue::Uuid(uuid)
            }),
            6 | 7 => {
                let (len, rest) = take(rest, 2).ok_or(bad("value length runs past the headers"))?;
                let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
                let (value, rest) = take(rest, len).ok_or(bad("value runs past the headers"))?;
                let value = if kind == 6 {
                    HeaderValue::Bytes(Bytes::copy_from_slice(value))
                } else {
                    let text = std::str::from_utf8(value).map_err(|_| bad("string value is not UTF-8"))?;
                    HeaderValue::String(text.to_string())
                };
                Some((value, rest))
            }
            kind => return Err(FrameError::HeaderType { offset, kind }),
        }
        .ok_or(bad("value runs past the headers"))?;
        headers.push(Header { name, value });
        bytes = rest;
    }
    Ok(headers)
}

fn take(bytes: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    (bytes.len() >= n).then(|| bytes.split_at(n))
}

fn fixed(bytes: &[u8], n: usize, make: impl FnOnce(&[u8]) -> HeaderValue) -> Option<(HeaderValue, &[u8])> {
    take(bytes, n).map(|(value, rest)| (make(value), rest))
}

fn be_u32(bytes: &[u8]) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[..4]);
    u32::from_be_bytes(word)
}

fn be_i64(bytes: &[u8]) -> i64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[..8]);
    i64::from_be_bytes(word)
}

/// Encode a frame (headers in order, then the payload) with both CRCs —
/// for tests and loopback servers that need event-stream bodies. Header
/// names longer than 255 bytes and byte or string values longer than
/// 65 535 bytes are cut to fit.
///
/// ```
/// use golem_providers::eventstream::{encode_frame, FrameDecoder, Header, HeaderValue};
///
/// let headers = vec![Header { name: ":event-type".into(), value: HeaderValue::String("messageStop".into()) }];
/// let bytes = encode_frame(&headers, br#"{"stopReason":"end_turn"}"#);
/// let mut decoder = FrameDecoder::new();
/// decoder.feed(&bytes);
/// let frame = decoder.next_frame().unwrap().unwrap();
/// assert_eq!(frame.string_header(":event-type"), Some("messageStop"));
/// ```
pub fn encode_frame(headers: &[Header], payload: &[u8]) -> Vec<u8> {
    let mut encoded = Vec::new();
    for header in headers {
        let name = &header.name.as_bytes()[..header.name.len().min(255)];
        encoded.push(u8::try_from(name.len()).unwrap_or(u8::MAX));
        encoded.extend_from_slice(name);
        let sized = |out: &mut Vec<u8>, kind: u8, value: &[u8]| {
            let value = &value[..value.len().min(usize::from(u16::MAX))];
            out.push(kind);
            out.extend_from_slice(&u16::try_from(value.len()).unwrap_or(u16::MAX).to_be_bytes());
            out.extend_from_slice(value);
        };
        match &header.value {
            HeaderValue::Bool(true) => encoded.push(0),
            HeaderValue::Bool(false) => encoded.push(1),
            HeaderValue::Byte(v) => encoded.extend([2].iter().chain(&v.to_be_bytes())),
            HeaderValue::Short(v) => encoded.extend([3].iter().chain(&v.to_be_bytes())),
            HeaderValue::Int(v) => encoded.extend([4].iter().chain(&v.to_be_bytes())),
            HeaderValue::Long(v) => encoded.extend([5].iter().chain(&v.to_be_bytes())),
            HeaderValue::Bytes(v) => sized(&mut encoded, 6, v),
            HeaderValue::String(v) => sized(&mut encoded, 7, v.as_bytes()),
            HeaderValue::Timestamp(v) => encoded.extend([8].iter().chain(&v.to_be_bytes())),
            HeaderValue::Uuid(v) => encoded.extend([9].iter().chain(v)),
        }
    }
    let total = PRELUDE + encoded.len() + payload.len() + 4;
    let mut frame = Vec::with_capacity(total);
    frame.extend_from_slice(&u32::try_from(total).unwrap_or(u32::MAX).to_be_bytes());
    frame.extend_from_slice(&u32::try_from(encoded.len()).unwrap_or(u32::MAX).to_be_bytes());
    let prelude_crc = crc32fast::hash(&frame);
    frame.extend_from_slice(&prelude_crc.to_be_bytes());
    frame.extend_from_slice(&encoded);
    frame.extend_from_slice(payload);
    let message_crc = crc32fast::hash(&frame);
    frame.extend_from_slice(&message_crc.to_be_bytes());
    frame
}

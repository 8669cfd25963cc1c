//! The blocking transport's response body, read whole or chunk by chunk as
//! it arrives, and the size cap both transports apply.

use super::error::TransportError;
#[cfg(feature = "blocking")]
use bytes::Bytes;
#[cfg(feature = "blocking")]
use std::fmt;

/// The source of a blocking [`Body`]: yields decoded (decompressed) body
/// bytes in arrival order, `None` at the clean end. An error is final.
#[cfg(feature = "blocking")]
pub trait BodyReader: Send {
    /// The next bytes, waiting for them if none are buffered.
    fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError>;
}

/// A response body for the blocking transport. Dropping it before the end
/// closes the connection instead of returning it to the pool.
#[cfg(feature = "blocking")]
pub struct Body {
    reader: Box<dyn BodyReader>,
}

#[cfg(feature = "blocking")]
impl Body {
    /// A body read from `reader`.
    pub fn new(reader: impl BodyReader + 'static) -> Self {
        Body { reader: Box::new(reader) }
    }

    /// A body already in memory, delivered as the given chunks (for fakes
    /// and tests).
    pub fn from_chunks(chunks: impl IntoIterator<Item = Bytes>) -> Self {
        Body::new(Chunks(chunks.into_iter().collect::<Vec<_>>().into_iter()))
    }

    /// The next bytes of the body; `None` at its end.
    pub fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError> {
        self.reader.next_chunk()
    }

    /// The rest of the body. The transport's size cap applies.
    pub fn read_to_end(mut self) -> Result<Vec<u8>, TransportError> {
        let mut out = Vec::new();
        while let Some(chunk) = self.next_chunk()? {
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }
}

#[cfg(feature = "blocking")]
impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Body")
    }
}

#[cfg(feature = "blocking")]
struct Chunks(std::vec::IntoIter<Bytes>);

#[cfg(feature = "blocking")]
impl BodyReader for Chunks {
    fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError> {
        Ok(self.0.next())
    }
}

/// Counts decoded bytes against the cap (SPEC PROV-COMMON-07).
#[derive(Debug)]
pub(crate) struct Cap {
    limit: u64,
    seen: u64,
}

impl Cap {
    pub(crate) fn new(limit: u64) -> Self {
        Cap { limit, seen: 0 }
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<(), TransportError> {
        self.seen = self.seen.saturating_add(n as u64);
        if self.seen > self.limit {
            return Err(TransportError::BodyTooLarge { limit: self.limit });
        }
        Ok(())
    }
}

//! Response bodies, read whole or chunk by chunk as they arrive.

use super::error::TransportError;
use bytes::Bytes;
use futures_lite::{Stream, StreamExt};
use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The source of a blocking [`Body`]: yields decoded (decompressed) body
/// bytes in arrival order, `None` at the clean end. An error is final.
pub trait BodyReader: Send {
    /// The next bytes, waiting for them if none are buffered.
    fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError>;
}

/// A response body for the blocking transport. Dropping it before the end
/// closes the connection instead of returning it to the pool.
pub struct Body {
    reader: Box<dyn BodyReader>,
}

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

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Body")
    }
}

struct Chunks(std::vec::IntoIter<Bytes>);

impl BodyReader for Chunks {
    fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError> {
        Ok(self.0.next())
    }
}

/// A response body for the async transport: a stream of decoded body
/// bytes, ending cleanly or with an error. Dropping it before the end
/// closes the connection.
pub struct AsyncBody {
    stream: Pin<Box<dyn Stream<Item = Result<Bytes, TransportError>> + Send>>,
}

impl AsyncBody {
    /// A body read from `stream`. The stream is fused, so reading past
    /// its end keeps returning the end.
    pub fn new(stream: impl Stream<Item = Result<Bytes, TransportError>> + Send + 'static) -> Self {
        AsyncBody { stream: Box::pin(stream.fuse()) }
    }

    /// A body already in memory, delivered as the given chunks.
    pub fn from_chunks(chunks: impl IntoIterator<Item = Bytes>) -> Self {
        let chunks: Vec<_> = chunks.into_iter().map(Ok).collect();
        AsyncBody::new(futures_lite::stream::iter(chunks))
    }

    /// The next bytes of the body; `None` at its end.
    pub async fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError> {
        self.stream.next().await.transpose()
    }

    /// The rest of the body. The transport's size cap applies.
    pub async fn read_to_end(mut self) -> Result<Vec<u8>, TransportError> {
        let mut out = Vec::new();
        while let Some(chunk) = self.next_chunk().await? {
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }
}

impl Stream for AsyncBody {
    type Item = Result<Bytes, TransportError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.stream.as_mut().poll_next(cx)
    }
}

impl fmt::Debug for AsyncBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AsyncBody")
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

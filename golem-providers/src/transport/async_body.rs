//! The async transport's response body: a stream of decoded bytes, read
//! whole or chunk by chunk as they arrive.

use super::error::TransportError;
use bytes::Bytes;
use futures_lite::{Stream, StreamExt};
use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

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

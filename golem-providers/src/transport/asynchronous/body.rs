//! Reading a response body through ureq-proto's body decoder (content
//! length, chunked or close-delimited), gunzipping and capping it, and
//! handing the connection back to the pool when the body ended cleanly.

use super::super::async_body::AsyncBody;
use super::super::body::Cap;
use super::super::config::TransportConfig;
use super::super::error::TransportError;
use super::super::gzip::Gunzip;
use super::conn::Conn;
use super::input::Input;
use super::pool::Pool;
use super::target::{Target, READ_CHUNK};
use super::timeout::Deadline;
use bytes::Bytes;
use std::sync::Arc;
use ureq_proto::client::state::RecvBody;
use ureq_proto::client::{Call, RecvBodyResult};
use ureq_proto::BodyMode;

/// Everything a body being read needs; dropped (closing the connection)
/// if the reader stops early or fails.
pub(crate) struct BodyState {
    pub(crate) conn: Conn,
    pub(crate) call: Box<Call<RecvBody>>,
    /// Socket bytes not yet given to the decoder.
    pub(crate) input: Input,
    pub(crate) gunzip: Option<Gunzip>,
    pub(crate) cap: Cap,
    pub(crate) pool: Arc<Pool>,
    pub(crate) target: Target,
    pub(crate) config: TransportConfig,
    pub(crate) host: String,
    /// The request's own deadline, which bounds the body's reads too.
    pub(crate) deadline: Option<Deadline>,
    /// The server closed the connection to end the body.
    pub(crate) closed: bool,
}

/// The body as a stream of chunks.
pub(crate) fn stream(state: BodyState) -> AsyncBody {
    // The decoder's output room: a sized body needs no more than its
    // length (most answers are a few KiB; a zeroed 16 KiB per response
    // was memory written for nothing, issue 37).
    let room = match state.call.body_mode() {
        BodyMode::LengthDelimited(left) => usize::try_from(left).unwrap_or(READ_CHUNK).clamp(1, READ_CHUNK),
        _ => READ_CHUNK,
    };
    let out = vec![0u8; room];
    AsyncBody::new(futures_lite::stream::unfold(Some((state, out)), |slot| async move {
        let (mut state, mut out) = slot?;
        match state.next(&mut out).await {
            Ok(Some(bytes)) => Some((Ok(bytes), Some((state, out)))),
            Ok(None) => match state.finish() {
                Ok(tail) if tail.is_empty() => None,
                Ok(tail) => Some((Ok(tail), None)),
                Err(error) => Some((Err(error), None)),
            },
            Err(error) => Some((Err(error), None)),
        }
    }))
}

impl BodyState {
    /// The next decoded bytes; `None` once the body ended (then call
    /// [`Self::finish`]).
    async fn next(&mut self, out: &mut [u8]) -> Result<Option<Bytes>, TransportError> {
        loop {
            if !self.input.is_empty() {
                let (used, produced) = self.call.read(self.input.bytes(), out).map_err(TransportError::protocol)?;
                self.input.consume(used);
                if produced > 0 {
                    let bytes = self.decoded(&out[..produced])?;
                    if !bytes.is_empty() {
                        return Ok(Some(bytes));
                    }
                    continue;
                }
                if used > 0 {
                    continue;
                }
            }
            let close_delimited = self.call.body_mode() == BodyMode::CloseDelimited;
            if !close_delimited && self.call.can_proceed() {
                return Ok(None);
            }
            let n = self.input.read_more(&mut self.conn, &self.config, &self.host, self.deadline).await?;
            if n == 0 {
                if close_delimited {
                    self.closed = true;
                    return Ok(None);
                }
                return Err(TransportError::reset("the server closed the connection before the body ended"));
            }
        }
    }

    fn decoded(&mut self, bytes: &[u8]) -> Result<Bytes, TransportError> {
        match self.gunzip.as_mut() {
            Some(gunzip) => gunzip.feed(bytes, &mut self.cap),
            None => {
                self.cap.take(bytes.len())?;
                Ok(Bytes::copy_from_slice(bytes))
            }
        }
    }

    /// The body ended: the gzip tail, if any. The connection goes back to
    /// the pool when the server allows it and sent nothing beyond the body.
    fn finish(mut self) -> Result<Bytes, TransportError> {
        let tail = match self.gunzip.as_mut() {
            Some(gunzip) => gunzip.finish(&mut self.cap)?,
            None => Bytes::new(),
        };
        if !self.closed && self.input.is_empty() {
            let reusable = match self.call.proceed() {
                Some(RecvBodyResult::Cleanup(done)) => !done.must_close_connection(),
                Some(RecvBodyResult::Redirect(redirect)) => !redirect.must_close_connection(),
                None => false,
            };
            if reusable {
                self.pool.checkin(self.target, self.conn);
            }
        }
        Ok(tail)
    }
}

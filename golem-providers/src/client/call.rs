//! One model call as a unit (issue 5, SPEC MODEL-04, STREAM-07): encode
//! (and authorize: sign with the wall clock, where the codec needs it),
//! send, read, decode — or, streamed, feed each body chunk to the codec's
//! stream decoder and forward every delta as it is parsed. Any failure
//! fails the whole call; nothing here retries (the run machine does).

use crate::codec::{HttpCodec, StreamDecoder};
use crate::http::{HttpRequest, HttpResponseHead};
use crate::transport::TransportError;
#[cfg(feature = "async")]
use crate::transport::{AsyncBody, AsyncTransport};
#[cfg(feature = "blocking")]
use crate::transport::{Body, Transport};
use golem_core::model::{DeltaSink, ModelError, Request, Response};
use std::time::SystemTime;

/// One model call: the codec and the request it encodes and decodes.
pub(crate) struct Call<'a, C> {
    pub(crate) codec: &'a C,
    pub(crate) request: &'a Request,
}

impl<C: HttpCodec> Call<'_, C> {
    /// A plain call on the blocking transport.
    #[cfg(feature = "blocking")]
    pub(crate) fn generate(&self, transport: &dyn Transport) -> Result<Response, ModelError> {
        let (head, body) = exchange(transport, &self.prepare(false)?)?;
        self.codec.decode(self.request, &head, &body)
    }

    /// A streamed call on the blocking transport.
    #[cfg(feature = "blocking")]
    pub(crate) fn stream(&self, transport: &dyn Transport, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        let response = transport.send(&self.prepare(true)?)?;
        let (head, mut body): (HttpResponseHead, Body) = (response.head, response.body);
        if !head.is_success() {
            return self.codec.decode(self.request, &head, &read_whole(&head, body.read_to_end())?);
        }
        let mut decoder = self.codec.stream_decoder(self.request, &head);
        while let Some(chunk) = body.next_chunk()? {
            take(&mut decoder, &chunk, sink)?;
        }
        close(decoder, sink)
    }

    /// A plain call on the async transport. Takes the call by value so a
    /// client can box this future itself rather than a block awaiting it
    /// (issue 37: one state machine less for every poll to walk).
    #[cfg(feature = "async")]
    pub(crate) async fn generate_async(self, transport: &dyn AsyncTransport) -> Result<Response, ModelError> {
        let (head, body) = exchange_async(transport, &self.prepare(false)?).await?;
        self.codec.decode(self.request, &head, &body)
    }

    /// A streamed call on the async transport.
    #[cfg(feature = "async")]
    pub(crate) async fn stream_async(
        self,
        transport: &dyn AsyncTransport,
        sink: &mut dyn DeltaSink,
    ) -> Result<Response, ModelError> {
        let response = transport.send(&self.prepare(true)?).await?;
        let (head, mut body): (HttpResponseHead, AsyncBody) = (response.head, response.body);
        if !head.is_success() {
            return self.codec.decode(self.request, &head, &read_whole(&head, body.read_to_end().await)?);
        }
        let mut decoder = self.codec.stream_decoder(self.request, &head);
        while let Some(chunk) = body.next_chunk().await? {
            take(&mut decoder, &chunk, sink)?;
        }
        close(decoder, sink)
    }

    /// The request to send: encoded, then authorized with the wall clock
    /// read now (the client side of the codec seam does the I/O the codec
    /// must not, and reading the clock is I/O).
    fn prepare(&self, stream: bool) -> Result<HttpRequest, ModelError> {
        let mut http = self.codec.encode(self.request, stream)?;
        // The caller's deadline bounds the whole exchange (a transport that
        // honours it stops there); it is not part of what gets signed.
        http.timeout = self.request.timeout;
        self.codec.authorize(http, SystemTime::now())
    }
}

/// One chunk of a streamed body into the decoder, its deltas on to the
/// sink.
fn take<D: StreamDecoder>(decoder: &mut D, chunk: &[u8], sink: &mut dyn DeltaSink) -> Result<(), ModelError> {
    decoder.feed(chunk);
    forward(decoder, sink)
}

/// The body ended: the last deltas on to the sink, then the response.
fn close<D: StreamDecoder>(mut decoder: D, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
    decoder.end();
    forward(&mut decoder, sink)?;
    decoder.finish()
}

/// One request sent as it is and its whole response read: a plain model
/// call's exchange, and the calls beside one (token counting), whose
/// codecs decode the pair themselves.
#[cfg(feature = "blocking")]
pub(crate) fn exchange(
    transport: &dyn Transport,
    http: &HttpRequest,
) -> Result<(HttpResponseHead, Vec<u8>), ModelError> {
    let response = transport.send(http)?;
    let body = read_whole(&response.head, response.body.read_to_end())?;
    Ok((response.head, body))
}

/// [`exchange`] on the async transport.
#[cfg(feature = "async")]
pub(crate) async fn exchange_async(
    transport: &dyn AsyncTransport,
    http: &HttpRequest,
) -> Result<(HttpResponseHead, Vec<u8>), ModelError> {
    let response = transport.send(http).await?;
    let body = read_whole(&response.head, response.body.read_to_end().await)?;
    Ok((response.head, body))
}

/// The body of a response. For an error status the status decides the
/// classification, so a body lost on the way is read as empty rather than
/// turning a 429 into a transport fault.
pub(super) fn read_whole(
    head: &HttpResponseHead,
    body: Result<Vec<u8>, TransportError>,
) -> Result<Vec<u8>, ModelError> {
    match body {
        Ok(bytes) => Ok(bytes),
        Err(_) if !head.is_success() => Ok(Vec::new()),
        Err(error) => Err(error.into()),
    }
}

/// Hand every parsed delta to the sink. A decoder error ends the call; so
/// does a sink error, reported as the sink's (SPEC STREAM-02).
fn forward<D: StreamDecoder>(decoder: &mut D, sink: &mut dyn DeltaSink) -> Result<(), ModelError> {
    while let Some(delta) = decoder.next_delta() {
        sink.delta(delta?).map_err(ModelError::sink_aborted)?;
    }
    Ok(())
}

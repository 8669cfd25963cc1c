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

/// A plain call on the blocking transport.
#[cfg(feature = "blocking")]
pub(crate) fn generate<C: HttpCodec>(
    codec: &C,
    transport: &dyn Transport,
    request: &Request,
) -> Result<Response, ModelError> {
    let http = prepare(codec, request, false)?;
    let (head, body) = exchange(transport, &http)?;
    codec.decode(request, &head, &body)
}

/// A streamed call on the blocking transport.
#[cfg(feature = "blocking")]
pub(crate) fn stream<C: HttpCodec>(
    codec: &C,
    transport: &dyn Transport,
    request: &Request,
    sink: &mut dyn DeltaSink,
) -> Result<Response, ModelError> {
    let http = prepare(codec, request, true)?;
    let response = transport.send(&http)?;
    let (head, mut body): (HttpResponseHead, Body) = (response.head, response.body);
    if !head.is_success() {
        let bytes = read_whole(&head, body.read_to_end())?;
        return codec.decode(request, &head, &bytes);
    }
    let mut decoder = codec.stream_decoder(request, &head);
    while let Some(chunk) = body.next_chunk()? {
        decoder.feed(&chunk);
        forward(&mut decoder, sink)?;
    }
    decoder.end();
    forward(&mut decoder, sink)?;
    decoder.finish()
}

/// A plain call on the async transport.
#[cfg(feature = "async")]
pub(crate) async fn generate_async<C: HttpCodec>(
    codec: &C,
    transport: &dyn AsyncTransport,
    request: &Request,
) -> Result<Response, ModelError> {
    let http = prepare(codec, request, false)?;
    let (head, body) = exchange_async(transport, &http).await?;
    codec.decode(request, &head, &body)
}

/// A streamed call on the async transport.
#[cfg(feature = "async")]
pub(crate) async fn stream_async<C: HttpCodec>(
    codec: &C,
    transport: &dyn AsyncTransport,
    request: &Request,
    sink: &mut dyn DeltaSink,
) -> Result<Response, ModelError> {
    let http = prepare(codec, request, true)?;
    let response = transport.send(&http).await?;
    let (head, mut body): (HttpResponseHead, AsyncBody) = (response.head, response.body);
    if !head.is_success() {
        let bytes = read_whole(&head, body.read_to_end().await)?;
        return codec.decode(request, &head, &bytes);
    }
    let mut decoder = codec.stream_decoder(request, &head);
    while let Some(chunk) = body.next_chunk().await? {
        decoder.feed(&chunk);
        forward(&mut decoder, sink)?;
    }
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

/// The request to send: encoded, then authorized with the wall clock
/// read now (the client side of the codec seam does the I/O the codec
/// must not, and reading the clock is I/O).
fn prepare<C: HttpCodec>(codec: &C, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
    let mut http = codec.encode(request, stream)?;
    // The caller's deadline bounds the whole exchange (a transport that
    // honours it stops there); it is not part of what gets signed.
    http.timeout = request.timeout;
    codec.authorize(http, SystemTime::now())
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

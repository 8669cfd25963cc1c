//! Transports: moving an [`HttpRequest`] to the server and the response
//! back (SPEC PROV-COMMON-01, PROV-COMMON-07). Codecs never do I/O; these
//! do nothing else.
//!
//! Two traits, one per driver: [`Transport`] (feature `blocking`) blocks
//! the calling thread, [`AsyncTransport`] (feature `async`) returns `Send`
//! futures that run under any executor. Both hand back the response head once it is in and the body as a reader
//! of chunks in arrival order ([`Body`], [`AsyncBody`]), so a streamed
//! answer reaches the codec's stream decoder as it comes.
//!
//! Two implementations, neither parsing HTTP by hand:
//! - [`UreqTransport`]: ureq 3 (its connection pool, gzip, HTTP/1.1).
//! - [`AsyncIoTransport`]: the sans-IO HTTP/1.1 machine of ureq-proto
//!   driven over async-io sockets and futures-rustls, with its own pool.
//!
//! Both verify TLS against the webpki roots (plus any configured extras),
//! time out connecting (10 s by default) and on silence, accept gzip with
//! the size cap applied after decompression, keep no cookies, follow no
//! redirects, and go through a [`Proxy`] only when one is configured —
//! never because the environment names one. Failures are [`TransportError`]s, which convert into
//! retryable or fatal [`ModelError`](golem_core::ModelError)s; they name
//! hosts, never headers, so they cannot carry a key (SPEC ERR-06).
//!
//! One caveat on logs: ureq-proto, under both transports, dumps the raw
//! bytes it writes and parses at the `log` crate's `trace` level — request
//! headers included. Keep `ureq_proto` below `trace` wherever a key must
//! not reach the logs (ureq's own `debug` output redacts credentials).

#[cfg(feature = "async")]
mod async_body;
#[cfg(feature = "async")]
mod asynchronous;
#[cfg(feature = "blocking")]
mod blocking;
mod body;
#[cfg(feature = "blocking")]
mod coarse;
mod config;
#[cfg(any(feature = "blocking", feature = "async"))]
mod crypto;
mod error;
#[cfg(feature = "async")]
mod gzip;
mod proxy;
#[cfg(feature = "blocking")]
mod resolve;
mod shared;
#[cfg(feature = "async")]
mod tls;

#[cfg(feature = "async")]
pub use async_body::AsyncBody;
#[cfg(feature = "async")]
pub use asynchronous::AsyncIoTransport;
#[cfg(feature = "blocking")]
pub use blocking::UreqTransport;
#[cfg(feature = "blocking")]
pub use body::{Body, BodyReader};
pub use config::{
    TransportConfig, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_IDLE_PER_HOST,
    DEFAULT_READ_TIMEOUT,
};
#[cfg(any(feature = "blocking", feature = "async"))]
pub use crypto::tls_provider;
pub use error::{TimeoutPhase, TransportError};
pub use proxy::{Proxy, ProxyError};
#[cfg(feature = "async")]
pub use shared::shared_async;
#[cfg(feature = "blocking")]
pub use shared::shared_blocking;

use crate::http::{HttpRequest, HttpResponseHead};
#[cfg(feature = "async")]
use golem_core::model::BoxFuture;
use std::io;

/// A response as the blocking transport hands it over: the head, and the
/// body still to be read.
#[cfg(feature = "blocking")]
#[derive(Debug)]
pub struct HttpResponse {
    /// Status and headers, stamped with the wall clock at arrival.
    pub head: HttpResponseHead,
    /// The body, decompressed, read on demand.
    pub body: Body,
}

/// A response as the async transport hands it over.
#[cfg(feature = "async")]
#[derive(Debug)]
pub struct AsyncHttpResponse {
    /// Status and headers, stamped with the wall clock at arrival.
    pub head: HttpResponseHead,
    /// The body, decompressed, read on demand.
    pub body: AsyncBody,
}

/// Sends HTTP requests, blocking the calling thread.
///
/// Any status is a response, not an error: classifying it is the codec's
/// job. Errors are failures to move the bytes.
#[cfg(feature = "blocking")]
pub trait Transport: Send + Sync {
    /// Send `request` and return once the response head is in.
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError>;

    /// Whether the whole exchange — head and body — ends by
    /// [`HttpRequest::timeout`] when one is set, failing with
    /// [`TransportError::Timeout`]. A client on a transport that does
    /// reports [`Capabilities::honours_timeout`](golem_core::model::Capabilities),
    /// so the blocking driver runs its calls on the calling thread. `false`
    /// unless the implementation says otherwise.
    fn honours_timeout(&self) -> bool {
        false
    }
}

/// Sends HTTP requests asynchronously; the futures are `Send` and need no
/// particular executor.
#[cfg(feature = "async")]
pub trait AsyncTransport: Send + Sync {
    /// Send `request`; the future resolves once the response head is in.
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<AsyncHttpResponse, TransportError>>;

    /// Whether the whole exchange — head and body — ends by
    /// [`HttpRequest::timeout`] when one is set, failing with
    /// [`TransportError::Timeout`]. A client on an async transport that
    /// does reports [`Capabilities::honours_timeout`](golem_core::model::Capabilities)
    /// on its async face, so the async driver leaves a model call's
    /// deadline to the transport instead of arming a timer of its own for
    /// it. `false` unless the implementation says otherwise.
    fn honours_timeout(&self) -> bool {
        false
    }
}

#[cfg(feature = "blocking")]
impl<T: Transport + ?Sized> Transport for std::sync::Arc<T> {
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        (**self).send(request)
    }

    fn honours_timeout(&self) -> bool {
        (**self).honours_timeout()
    }
}

#[cfg(feature = "async")]
impl<T: AsyncTransport + ?Sized> AsyncTransport for std::sync::Arc<T> {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<AsyncHttpResponse, TransportError>> {
        (**self).send(request)
    }

    fn honours_timeout(&self) -> bool {
        (**self).honours_timeout()
    }
}

/// `host[:port]` of an absolute URL, for error messages: no scheme, path,
/// query or user info, so nothing secret can ride along.
#[cfg(feature = "blocking")]
pub(crate) fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority.rsplit_once('@').map_or(authority, |(_, host)| host).to_string()
}

/// The wall clock in Unix seconds, for resolving an HTTP-date Retry-After
/// when the response has no `Date` (SPEC RETRY-03).
pub(crate) fn now_unix() -> Option<u64> {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_secs())
}

/// Classify a socket error. TLS failures surface as I/O errors wrapping a
/// rustls error; everything that means "the peer went away" is a reset.
pub(crate) fn classify_io(error: io::Error, host: &str, config: &TransportConfig) -> TransportError {
    if let Some(tls) = error.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) {
        return TransportError::Tls { host: host.into(), detail: tls.to_string() };
    }
    match error.kind() {
        io::ErrorKind::ConnectionRefused | io::ErrorKind::AddrNotAvailable | io::ErrorKind::NotFound => {
            TransportError::Connect { host: host.into(), detail: error.to_string() }
        }
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => {
            TransportError::Timeout { phase: TimeoutPhase::Read, after: config.read_timeout }
        }
        io::ErrorKind::InvalidData => TransportError::protocol(error),
        _ => TransportError::reset(error.to_string()),
    }
}

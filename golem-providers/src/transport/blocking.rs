//! The blocking transport: ureq 3 over rustls (ring) with webpki roots.
//!
//! ureq pools keep-alive connections per agent, decompresses gzip and
//! parses HTTP/1.1; this module configures it to SPEC PROV-COMMON-07 (no
//! cookies, no redirects, a proxy only when configured — ureq's default
//! would read `HTTP_PROXY` —, statuses returned as data), caps bodies after decompression and translates its errors.

use super::body::{Body, BodyReader, Cap};
use super::coarse::CoarseTimeouts;
use super::config::TransportConfig;
use super::error::{TimeoutPhase, TransportError};
use super::resolve::CachingResolver;
use super::{host_of, now_unix, HttpResponse, Transport};
use crate::http::{HttpRequest, HttpResponseHead};
use bytes::Bytes;
use std::io::{self, Read};
use std::time::Duration;
use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};
use ureq::unversioned::transport::DefaultConnector;

/// Bytes read from ureq per chunk: large enough for few syscalls, small
/// enough that a stream is handed on as soon as its bytes arrive (ureq
/// returns what one socket read brought).
const CHUNK: usize = 16 * 1024;

/// A blocking HTTP/1.1 transport with a keep-alive pool. Cheap to share:
/// clone the `Arc` it usually lives in, not the transport.
///
/// ```no_run
/// use golem_providers::http::HttpRequest;
/// use golem_providers::transport::{Transport, TransportConfig, UreqTransport};
///
/// let transport = UreqTransport::new(TransportConfig::new());
/// let response = transport.send(&HttpRequest::post_json("https://example.invalid/v1", b"{}".to_vec(), false))?;
/// println!("{} {:?}", response.head.status, response.body.read_to_end()?.len());
/// # Ok::<(), golem_providers::transport::TransportError>(())
/// ```
#[derive(Debug)]
pub struct UreqTransport {
    agent: ureq::Agent,
    config: TransportConfig,
}

impl UreqTransport {
    /// A transport with `config`.
    pub fn new(config: TransportConfig) -> Self {
        let tls = TlsConfig::builder()
            .provider(TlsProvider::Rustls)
            .unversioned_rustls_crypto_provider(super::crypto::tls_provider())
            .root_certs(roots(&config))
            .build();
        let agent_config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(config.proxy.as_ref().map(super::Proxy::to_ureq))
            .tls_config(tls)
            .user_agent(config.user_agent.as_str())
            .timeout_connect(Some(config.connect_timeout))
            .timeout_resolve(Some(config.connect_timeout))
            .timeout_per_read(Some(config.read_timeout))
            .timeout_per_write(Some(config.read_timeout))
            // ureq also caps idle connections across hosts (10 by
            // default); the per-host bound is the one users set.
            .max_idle_connections(config.max_idle_per_host)
            .max_idle_connections_per_host(config.max_idle_per_host)
            .max_idle_age(config.idle_timeout)
            .build();
        // ureq's own connectors, their connections wrapped so that a
        // deadline re-arms the socket's timeout only when it must (see
        // `coarse`); the name lookup is ours, so that no request starts a
        // thread to resolve (see `resolve`).
        let connector = CoarseTimeouts(DefaultConnector::default());
        let agent = ureq::Agent::with_parts(agent_config, connector, CachingResolver::default());
        UreqTransport { agent, config }
    }

    /// The configuration.
    pub fn config(&self) -> &TransportConfig {
        &self.config
    }
}

impl Default for UreqTransport {
    fn default() -> Self {
        UreqTransport::new(TransportConfig::default())
    }
}

/// The webpki roots, plus the configured extras. ureq takes either its own
/// webpki set or an explicit list, so with extras the list is the webpki
/// certificates and the extras together.
fn roots(config: &TransportConfig) -> RootCerts {
    if config.extra_roots.0.is_empty() {
        return RootCerts::WebPki;
    }
    let webpki = webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter().map(|c| Certificate::from_der(c.as_ref()));
    let extra = config.extra_roots.0.iter().map(|c| Certificate::from_der(c.as_ref()).to_owned());
    RootCerts::from(webpki.chain(extra).collect::<Vec<_>>())
}

impl Transport for UreqTransport {
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let host = host_of(&request.url);
        let mut builder = ureq::http::Request::builder().method(request.method.as_str()).uri(request.url.as_str());
        for (name, value) in &request.headers {
            builder = builder.header(&**name, value.expose());
        }
        // The http crate's error names no header value, but say which
        // header it was ourselves rather than rely on that.
        let mut http = builder.body(request.body.as_ref()).map_err(|_| invalid_request(request))?;
        if let Some(limit) = request.timeout {
            // The caller's deadline bounds the whole exchange, body included.
            http = self.agent.configure_request(http).timeout_global(Some(limit)).build();
        }
        let response = self.agent.run(http).map_err(|e| map_error(e, &host, &self.config, request.timeout))?;
        let (parts, body) = response.into_parts();
        let headers = parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect();
        let mut head = HttpResponseHead::new(parts.status.as_u16(), headers);
        head.now_unix = now_unix();
        let reader = UreqBody {
            reader: Some(body.into_reader()),
            cap: Cap::new(self.config.max_body),
            buf: vec![0; scratch_len(&head)],
            host,
            config: self.config.clone(),
            deadline: request.timeout,
        };
        Ok(HttpResponse { head, body: Body::new(reader) })
    }

    /// A per-request timeout becomes ureq's global timeout for the call.
    fn honours_timeout(&self) -> bool {
        true
    }
}

/// The read buffer's size: a plain body of known, smaller length fits in
/// a buffer of its own size (most answers are a few hundred bytes, and
/// zeroing a 16 KiB buffer for each would cost more than reading them);
/// anything else — streams, chunked or compressed bodies — reads through
/// [`CHUNK`]s.
fn scratch_len(head: &HttpResponseHead) -> usize {
    if head.header("content-encoding").is_some() {
        return CHUNK;
    }
    let length = head.header("content-length").and_then(|l| l.trim().parse::<usize>().ok());
    length.map_or(CHUNK, |length| length.clamp(1, CHUNK))
}

/// Which part of the request the http crate refused, without its value.
fn invalid_request(request: &HttpRequest) -> TransportError {
    let bad_header = request.headers.iter().find(|(name, value)| {
        ureq::http::HeaderName::from_bytes(name.as_bytes()).is_err()
            || ureq::http::HeaderValue::from_str(value.expose()).is_err()
    });
    match bad_header {
        Some((name, _)) => TransportError::invalid(format!("header {name:?} cannot be sent")),
        None => TransportError::invalid("the URL cannot be sent"),
    }
}

struct UreqBody {
    /// `None` once the body ended or failed: later calls return `None`.
    reader: Option<ureq::BodyReader<'static>>,
    cap: Cap,
    buf: Vec<u8>,
    host: String,
    config: TransportConfig,
    /// The request's own timeout, for reporting it when it runs out.
    deadline: Option<Duration>,
}

impl BodyReader for UreqBody {
    fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError> {
        let Some(reader) = self.reader.as_mut() else { return Ok(None) };
        let result = loop {
            match reader.read(&mut self.buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match result {
            Ok(0) => {
                self.reader = None;
                Ok(None)
            }
            Ok(n) => {
                if let Err(e) = self.cap.take(n) {
                    self.reader = None;
                    return Err(e);
                }
                Ok(Some(Bytes::copy_from_slice(&self.buf[..n])))
            }
            Err(e) => {
                self.reader = None;
                Err(map_io(e, &self.host, &self.config, self.deadline))
            }
        }
    }
}

fn map_error(error: ureq::Error, host: &str, config: &TransportConfig, deadline: Option<Duration>) -> TransportError {
    use ureq::Error as E;
    match error {
        E::Timeout(which) => timeout(which, config, deadline),
        E::Io(e) => map_io(e, host, config, deadline),
        E::HostNotFound => TransportError::Connect { host: host.into(), detail: "host not found".into() },
        E::ConnectionFailed => TransportError::Connect { host: host.into(), detail: "connection failed".into() },
        E::Rustls(e) => TransportError::Tls { host: host.into(), detail: e.to_string() },
        E::Tls(detail) => TransportError::Tls { host: host.into(), detail: detail.into() },
        E::ConnectProxyFailed(detail) => {
            TransportError::Connect { host: host.into(), detail: format!("the proxy tunnel failed: {detail}") }
        }
        E::BodyExceedsLimit(limit) => TransportError::BodyTooLarge { limit },
        E::BadUri(_) | E::Http(_) => TransportError::invalid("the URL cannot be sent"),
        E::Decompress(_, e) => TransportError::protocol(format!("bad gzip body: {e}")),
        other => TransportError::protocol(other),
    }
}

fn timeout(which: ureq::Timeout, config: &TransportConfig, deadline: Option<Duration>) -> TransportError {
    match (which, deadline) {
        // ureq reports whichever budget ran out first; the global one is
        // only ever the request's deadline.
        (ureq::Timeout::Global, Some(after)) => TransportError::Timeout { phase: TimeoutPhase::Deadline, after },
        _ => timeout_of(which, config),
    }
}

fn timeout_of(which: ureq::Timeout, config: &TransportConfig) -> TransportError {
    match which {
        ureq::Timeout::Connect | ureq::Timeout::Resolve => {
            TransportError::Timeout { phase: TimeoutPhase::Connect, after: config.connect_timeout }
        }
        _ => TransportError::Timeout { phase: TimeoutPhase::Read, after: config.read_timeout },
    }
}

/// An I/O error from a socket or from ureq's body reader, which wraps its
/// own errors in `io::Error`.
fn map_io(error: io::Error, host: &str, config: &TransportConfig, deadline: Option<Duration>) -> TransportError {
    if error.get_ref().is_some_and(|inner| inner.is::<ureq::Error>()) {
        if let Some(Ok(inner)) = error.into_inner().map(|inner| inner.downcast::<ureq::Error>()) {
            return map_error(*inner, host, config, deadline);
        }
        return TransportError::reset("the connection failed");
    }
    super::classify_io(error, host, config)
}

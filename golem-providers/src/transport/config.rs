//! Transport settings shared by both implementations (SPEC PROV-COMMON-07).

use super::error::TransportError;
use super::proxy::Proxy;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use std::fmt;
use std::time::Duration;

/// The default connect timeout (TCP and TLS together), per SPEC
/// PROV-COMMON-07.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The default longest silence while waiting for the server. It matches
/// the machine's default model-call deadline (SPEC RETRY-07), which
/// governs; this one only bounds a call the driver has stopped waiting for.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(300);

/// The default cap on a response body after decompression: far above any
/// real completion, low enough that a hostile or broken server cannot
/// exhaust memory.
pub const DEFAULT_MAX_BODY: u64 = 64 * 1024 * 1024;

/// How long an idle keep-alive connection stays in the pool. Servers
/// commonly close idle connections after 60–120 s; reusing one they closed
/// costs a retry, so we give up on them a little earlier.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(50);

/// How many idle keep-alive connections are kept per host by default: no
/// count limit, like mainstream HTTP clients — an idle connection is
/// closed after [`DEFAULT_IDLE_TIMEOUT`] instead. A count limit below the
/// number of calls in flight makes every burst open (and the server
/// accept) fresh connections, the costliest part of a call on a fast
/// network. The price is one socket (and, over TLS, its session state) per
/// connection the busiest moment needed, for up to the idle timeout.
pub const DEFAULT_MAX_IDLE_PER_HOST: usize = usize::MAX;

/// How a transport connects, waits and reads.
///
/// TLS is always verified against the webpki (Mozilla) roots; extra roots
/// can be added (a corporate proxy's CA, a test CA) but nothing can be
/// switched off. No cookies are kept, redirects are not followed, and a
/// proxy is used only when set here ([`TransportConfig::proxy`]) — never
/// read from `HTTP_PROXY`, `HTTPS_PROXY` or `ALL_PROXY`.
///
/// ```
/// use golem_providers::transport::TransportConfig;
/// use std::time::Duration;
///
/// let config = TransportConfig::new().read_timeout(Duration::from_secs(60)).max_body(8 << 20);
/// assert_eq!(config.connect_timeout_value(), Duration::from_secs(10));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransportConfig {
    pub(crate) connect_timeout: Duration,
    pub(crate) read_timeout: Duration,
    pub(crate) max_body: u64,
    pub(crate) max_idle_per_host: usize,
    pub(crate) idle_timeout: Duration,
    pub(crate) extra_roots: Roots,
    pub(crate) user_agent: String,
    pub(crate) proxy: Option<Proxy>,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            read_timeout: DEFAULT_READ_TIMEOUT,
            max_body: DEFAULT_MAX_BODY,
            max_idle_per_host: DEFAULT_MAX_IDLE_PER_HOST,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            extra_roots: Roots::default(),
            user_agent: concat!("golem/", env!("CARGO_PKG_VERSION")).to_string(),
            proxy: None,
        }
    }
}

impl TransportConfig {
    /// The defaults.
    pub fn new() -> Self {
        TransportConfig::default()
    }

    crate::macros::setters! {
        /// The longest wait to open a connection, TLS handshake included.
        fn connect_timeout(timeout: Duration) => connect_timeout = timeout;
        /// The longest silence while sending the request or waiting for the
        /// next bytes of the response. It restarts with every read, so a
        /// stream that keeps delivering is never cut.
        fn read_timeout(timeout: Duration) => read_timeout = timeout;
        /// The cap on a response body, counted after decompression.
        fn max_body(bytes: u64) => max_body = bytes;
        /// How many idle connections are kept per host (0 turns keep-alive
        /// reuse off). Unbounded by default ([`DEFAULT_MAX_IDLE_PER_HOST`]):
        /// idle connections are closed after the idle timeout.
        fn max_idle_per_host(n: usize) => max_idle_per_host = n;
        /// How long an idle connection stays reusable.
        fn idle_timeout(timeout: Duration) => idle_timeout = timeout;
        /// The `User-Agent` sent with every request.
        fn user_agent(agent: impl Into<String>) => user_agent = agent.into();
        /// Send every connection through `proxy` (a `CONNECT` tunnel). None
        /// by default, whatever the environment says.
        fn proxy(proxy: Proxy) => proxy = Some(proxy);
    }

    /// Connect directly, without a proxy (the default).
    pub fn no_proxy(mut self) -> Self {
        self.proxy = None;
        self
    }

    /// Trust this root certificate (DER) in addition to the webpki roots.
    pub fn add_root_certificate(mut self, der: impl Into<Vec<u8>>) -> Self {
        self.extra_roots.0.push(CertificateDer::from(der.into()));
        self
    }

    /// Trust every certificate of a PEM bundle in addition to the webpki
    /// roots.
    pub fn add_root_certificates_pem(mut self, pem: &[u8]) -> Result<Self, TransportError> {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| TransportError::invalid(format!("bad PEM root certificate: {e}")))?;
            self.extra_roots.0.push(cert);
            added += 1;
        }
        if added == 0 {
            return Err(TransportError::invalid("no certificate in the PEM bundle"));
        }
        Ok(self)
    }

    /// The connect timeout in force.
    pub fn connect_timeout_value(&self) -> Duration {
        self.connect_timeout
    }

    /// The read timeout in force.
    pub fn read_timeout_value(&self) -> Duration {
        self.read_timeout
    }

    /// The body cap in force.
    pub fn max_body_value(&self) -> u64 {
        self.max_body
    }

    /// The proxy in force, if any.
    pub fn proxy_value(&self) -> Option<&Proxy> {
        self.proxy.as_ref()
    }
}

/// Extra root certificates; `Debug` shows how many.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Roots(pub(crate) Vec<CertificateDer<'static>>);

impl fmt::Debug for Roots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.len())
    }
}

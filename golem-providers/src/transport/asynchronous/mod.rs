//! The async transport: ureq-proto's HTTP/1.1 state machine driven over
//! async-io sockets, TLS by futures-rustls (ring, webpki roots), with a
//! keep-alive pool per (scheme, host, port). Its futures are `Send`, spawn
//! nothing and need no particular executor: timeouts are async-io timers,
//! name lookups run on the `blocking` pool.

mod body;
mod conn;
mod exchange;
mod input;
mod pool;
mod target;
mod timeout;
mod tunnel;

use super::async_body::AsyncBody;
use super::body::Cap;
use super::config::TransportConfig;
use super::error::TransportError;
use super::gzip::Gunzip;
use super::tls::client_config;
use super::{AsyncHttpResponse, AsyncTransport};
use crate::http::HttpRequest;
use body::BodyState;
use conn::connect;
use exchange::{exchange, AfterHead, Failed, Prepared};
use golem_core::model::BoxFuture;
use input::Input;
use pool::Pool;
use rustls::ClientConfig;
use std::fmt;
use std::sync::Arc;
use target::Target;
use timeout::Deadline;
use ureq_proto::http::Uri;

/// An async HTTP/1.1 transport with a keep-alive pool. Share one (in an
/// `Arc`) to share its pool.
///
/// ```no_run
/// use golem_providers::http::HttpRequest;
/// use golem_providers::transport::{AsyncIoTransport, AsyncTransport, TransportConfig};
///
/// let transport = AsyncIoTransport::new(TransportConfig::new());
/// futures_lite::future::block_on(async {
///     let request = HttpRequest::post_json("https://example.invalid/v1", b"{}".to_vec(), false);
///     let response = transport.send(&request).await?;
///     println!("{} {}", response.head.status, response.body.read_to_end().await?.len());
///     Ok::<(), golem_providers::transport::TransportError>(())
/// })?;
/// # Ok::<(), golem_providers::transport::TransportError>(())
/// ```
pub struct AsyncIoTransport {
    config: TransportConfig,
    /// The TLS setup, or why it could not be built (reported when an
    /// https URL is used, so plain-HTTP use is unaffected).
    tls: Result<Arc<ClientConfig>, TransportError>,
    pool: Arc<Pool>,
}

impl AsyncIoTransport {
    /// A transport with `config`.
    pub fn new(config: TransportConfig) -> Self {
        let tls = client_config(&config);
        let pool = Arc::new(Pool::new(config.max_idle_per_host, config.idle_timeout));
        AsyncIoTransport { config, tls, pool }
    }

    /// The configuration.
    pub fn config(&self) -> &TransportConfig {
        &self.config
    }

    /// Send `request`, every wait bounded by `deadline` too when it has one.
    async fn send_inner(
        &self,
        request: &HttpRequest,
        deadline: Option<Deadline>,
    ) -> Result<AsyncHttpResponse, TransportError> {
        let (target, uri) = target_of(&request.url)?;
        // A request that cannot be sent is refused before any connection.
        let mut prepared = Prepared::new(request, uri, &self.config)?;
        let host = target.display();
        let tls = match (&self.tls, target.tls) {
            (_, false) => None,
            (Ok(tls), true) => Some(tls),
            (Err(error), true) => return Err(error.clone()),
        };
        loop {
            let (mut conn, reused) = match self.pool.checkout(&target) {
                Some(conn) => (conn, true),
                // Boxed: opening a connection (the TLS handshake, a proxy's
                // tunnel) would be most of this future's size, which every
                // request's box is given, and a pooled connection needs none
                // of it (issue 37).
                None => (Box::pin(connect(&target, tls, &self.config, deadline)).await?, false),
            };
            let mut input = Input::default();
            match exchange(&mut conn, &mut prepared, request, &self.config, &host, &mut input, deadline).await {
                Ok(response) => match prepared.finish(response)? {
                    (head, AfterHead::Body(call)) => {
                        let gzip = head.header("content-encoding").is_some_and(|v| v.eq_ignore_ascii_case("gzip"));
                        let state = BodyState {
                            conn,
                            call,
                            input,
                            gunzip: gzip.then(Gunzip::new),
                            cap: Cap::new(self.config.max_body),
                            pool: Arc::clone(&self.pool),
                            target,
                            config: self.config.clone(),
                            host,
                            deadline,
                            closed: false,
                        };
                        return Ok(AsyncHttpResponse { head, body: body::stream(state) });
                    }
                    (head, AfterHead::Done { reusable }) => {
                        if reusable && input.is_empty() {
                            self.pool.checkin(target, conn);
                        }
                        return Ok(AsyncHttpResponse { head, body: AsyncBody::from_chunks([]) });
                    }
                },
                // The server had closed this idle connection before the
                // request got through: its siblings are suspect too, and the
                // next round connects afresh with the request made again, so
                // this resends at most once.
                Err(Failed { silent: true, .. }) if reused => {
                    self.pool.clear(&target);
                    prepared = Prepared::new(request, target_of(&request.url)?.1, &self.config)?;
                }
                Err(failed) => return Err(failed.error),
            }
        }
    }
}

impl Default for AsyncIoTransport {
    fn default() -> Self {
        AsyncIoTransport::new(TransportConfig::default())
    }
}

impl fmt::Debug for AsyncIoTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncIoTransport").field("config", &self.config).finish_non_exhaustive()
    }
}

impl AsyncTransport for AsyncIoTransport {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<AsyncHttpResponse, TransportError>> {
        // The request's own timeout bounds the whole exchange, the head
        // here and the body through its reader: each wait's timer is set
        // for the deadline when it comes before the wait's own timeout.
        Box::pin(self.send_inner(request, request.timeout.map(Deadline::after)))
    }

    /// Every wait — connect, write, head, each body read — ends by the
    /// request's deadline.
    fn honours_timeout(&self) -> bool {
        true
    }
}

/// Scheme, host and port of an absolute http(s) URL, and the URL parsed.
fn target_of(url: &str) -> Result<(Target, Uri), TransportError> {
    let uri = Uri::try_from(url).map_err(|_| TransportError::invalid("the URL cannot be sent"))?;
    let tls = match uri.scheme_str() {
        Some(s) if s.eq_ignore_ascii_case("https") => true,
        Some(s) if s.eq_ignore_ascii_case("http") => false,
        _ => return Err(TransportError::invalid("only http and https URLs can be sent")),
    };
    let host = uri.host().filter(|h| !h.is_empty()).ok_or_else(|| TransportError::invalid("the URL has no host"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    Ok((Target { tls, host, port }, uri))
}

//! Opening connections: DNS off the executor, TCP through async-io, the
//! proxy's tunnel when one is configured, TLS through futures-rustls — all
//! within the connect timeout.

use super::super::config::TransportConfig;
use super::super::error::{TimeoutPhase, TransportError};
use super::target::Target;
use super::timeout::{with_timeout, Deadline};
use super::tunnel::open_tunnel;
use async_io::Async;
use futures_lite::io::{AsyncRead, AsyncWrite};
use futures_rustls::client::TlsStream;
use futures_rustls::TlsConnector;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::io;
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// An open connection, plain or TLS.
pub(crate) enum Conn {
    Plain(Async<TcpStream>),
    Tls(Box<TlsStream<Async<TcpStream>>>),
}

impl Conn {
    fn tcp(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s.get_ref(),
            Conn::Tls(s) => s.get_ref().0.get_ref(),
        }
    }

    /// Whether an idle pooled connection still looks usable: the server
    /// has neither closed it nor sent anything unasked (the socket is
    /// non-blocking, so the peek returns at once).
    pub(crate) fn looks_alive(&self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.tcp().peek(&mut byte), Err(e) if e.kind() == io::ErrorKind::WouldBlock)
    }
}

/// Open a connection to `target`.
pub(crate) async fn connect(
    target: &Target,
    tls: Option<&Arc<ClientConfig>>,
    config: &TransportConfig,
    deadline: Option<Deadline>,
) -> Result<Conn, TransportError> {
    with_timeout(config.connect_timeout, TimeoutPhase::Connect, deadline, open(target, tls, config)).await
}

async fn open(
    target: &Target,
    tls: Option<&Arc<ClientConfig>>,
    config: &TransportConfig,
) -> Result<Conn, TransportError> {
    let host = target.display();
    // Through a proxy the socket goes to the proxy, which resolves the
    // target's name itself.
    let dial = match &config.proxy {
        Some(proxy) => Target { tls: false, host: proxy.host().to_string(), port: proxy.port() },
        None => target.clone(),
    };
    let addrs = resolve(&dial).await.map_err(|e| TransportError::Connect { host: dial.display(), detail: e })?;
    let mut last = String::from("no address");
    let mut tcp = None;
    for addr in addrs {
        match Async::<TcpStream>::connect(addr).await {
            Ok(stream) => {
                tcp = Some(stream);
                break;
            }
            Err(e) => last = e.to_string(),
        }
    }
    let mut tcp = tcp.ok_or_else(|| TransportError::Connect { host: dial.display(), detail: last })?;
    if let Some(proxy) = &config.proxy {
        open_tunnel(&mut tcp, target, proxy, config).await?;
    }
    // Small writes (the request head) should leave at once; latency
    // matters more than packet count here.
    let _ = tcp.get_ref().set_nodelay(true);
    let Some(tls) = tls else { return Ok(Conn::Plain(tcp)) };
    let name = ServerName::try_from(target.host.clone())
        .map_err(|_| TransportError::invalid(format!("{} is not a valid TLS server name", target.host)))?;
    match TlsConnector::from(Arc::clone(tls)).connect(name, tcp).await {
        Ok(stream) => Ok(Conn::Tls(Box::new(stream))),
        Err(e) => Err(match super::super::classify_io(e, &host, config) {
            tls @ TransportError::Tls { .. } => tls,
            TransportError::Reset { detail } => {
                TransportError::Tls { host, detail: format!("handshake failed: {detail}") }
            }
            other => other,
        }),
    }
}

/// The addresses of `target`. Name lookups block, so they run on the
/// `blocking` thread pool rather than on the executor.
async fn resolve(target: &Target) -> Result<Vec<SocketAddr>, String> {
    if let Ok(ip) = target.host.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, target.port)]);
    }
    let (host, port) = (target.host.clone(), target.port);
    let addrs = blocking::unblock(move || (host.as_str(), port).to_socket_addrs().map(Iterator::collect::<Vec<_>>))
        .await
        .map_err(|e| e.to_string())?;
    if addrs.is_empty() {
        return Err("host not found".into());
    }
    Ok(addrs)
}

impl AsyncRead for Conn {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_flush(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_close(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_close(cx),
        }
    }
}

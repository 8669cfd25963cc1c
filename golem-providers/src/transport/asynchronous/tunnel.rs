//! A `CONNECT` tunnel through the configured [`Proxy`]: ureq-proto writes
//! the request and parses the answer; once the proxy says 200 the socket
//! carries the bytes to and from the target as if connected directly.

use super::super::config::TransportConfig;
use super::super::error::TransportError;
use super::super::proxy::Proxy;
use super::target::{Target, READ_CHUNK};
use async_io::Async;
use futures_lite::{AsyncReadExt, AsyncWriteExt};
use std::net::TcpStream;
use ureq_proto::client::{Call, RecvResponseResult, SendRequestResult};
use ureq_proto::http::{Method, Request};

/// Proxy answers larger than this are refused (real ones are one line).
const MAX_HEAD: usize = 16 * 1024;

/// Ask the proxy on `tcp` for a tunnel to `target`. The caller bounds the
/// whole exchange by the connect timeout.
pub(crate) async fn open_tunnel(
    tcp: &mut Async<TcpStream>,
    target: &Target,
    proxy: &Proxy,
    config: &TransportConfig,
) -> Result<(), TransportError> {
    let via = proxy.authority();
    let failed = |detail: String| TransportError::Connect { host: target.display(), detail };
    let io = |e: std::io::Error| failed(format!("the proxy {via} connection failed: {e}"));
    let protocol = |e: ureq_proto::Error| failed(format!("the proxy {via} answer is not HTTP: {e}"));

    let mut request = Request::builder()
        .method(Method::CONNECT)
        .uri(format!("http://{}", target.display()))
        .header("user-agent", config.user_agent.as_str());
    if let Some(authorization) = proxy.authorization() {
        request = request.header("proxy-authorization", authorization.expose());
    }
    let request = request.body(()).map_err(|_| TransportError::invalid("the proxy tunnel request cannot be sent"))?;
    let mut call = Call::new(request).map_err(protocol)?.proceed();
    let mut out = vec![0u8; 4096];
    while !call.can_proceed() {
        let n = call.write(&mut out).map_err(protocol)?;
        tcp.write_all(&out[..n]).await.map_err(io)?;
    }
    tcp.flush().await.map_err(io)?;
    let Some(SendRequestResult::RecvResponse(mut call)) = call.proceed().map_err(protocol)? else {
        return Err(failed("unexpected CONNECT request state".into()));
    };

    let mut input = Vec::new();
    let mut buf = vec![0u8; READ_CHUNK];
    let response = loop {
        let (used, response) = call.try_response(&input, false).map_err(protocol)?;
        input.drain(..used.min(input.len()));
        if let Some(response) = response {
            break response;
        }
        if input.len() > MAX_HEAD {
            return Err(failed(format!("the proxy {via} sent an oversized answer")));
        }
        let n = tcp.read(&mut buf).await.map_err(io)?;
        if n == 0 {
            return Err(failed(format!("the proxy {via} closed the connection")));
        }
        input.extend_from_slice(&buf[..n]);
    };
    let status = response.status().as_u16();
    if status != 200 {
        let hint = if status == 407 { " (proxy authentication required)" } else { "" };
        return Err(failed(format!("the proxy {via} refused the tunnel with status {status}{hint}")));
    }
    // The target speaks only after we do; bytes already here mean a
    // proxy that does not tunnel, and would corrupt the exchange.
    if !input.is_empty() || !matches!(call.proceed(), Some(RecvResponseResult::Cleanup(_))) {
        return Err(failed(format!("the proxy {via} sent data before the tunnel opened")));
    }
    Ok(())
}

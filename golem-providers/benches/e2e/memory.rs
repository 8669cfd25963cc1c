//! The scripted server's answers without the network: a transport that
//! answers each request in memory, for both drivers. With it the bench
//! measures what golem's machinery costs over the hand-written loop, free
//! of the loopback's kernel time (which, on a virtual machine, swings with
//! lock contention between the client's and the server's CPUs).
//! `loopback_parts.rs` adds the loopback back one part at a time.

use crate::loopback_parts;
use crate::server::payload;
use bytes::Bytes;
use golem_core::model::BoxFuture;
use golem_providers::http::{HttpRequest, HttpResponseHead};
use golem_providers::transport::{
    AsyncBody, AsyncHttpResponse, AsyncTransport, Body, HttpResponse, Transport, TransportError,
};

/// Answers as the scripted server would, for runs of `turns` tool calls.
pub struct MemoryTransport {
    pub turns: usize,
}

impl MemoryTransport {
    fn answer(&self, request: &HttpRequest) -> (HttpResponseHead, Bytes) {
        let (payload, content_type) = payload(&request.body, self.turns);
        loopback_parts::add(&request.body, payload.as_bytes());
        let headers = vec![
            ("content-type".to_string(), content_type.to_string()),
            ("content-length".to_string(), payload.len().to_string()),
        ];
        (HttpResponseHead::new(200, headers), Bytes::from(payload))
    }
}

impl Transport for MemoryTransport {
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let (head, body) = self.answer(request);
        Ok(HttpResponse { head, body: Body::from_chunks([body]) })
    }

    /// Answers at once, so no deadline can pass during a call.
    fn honours_timeout(&self) -> bool {
        true
    }
}

impl AsyncTransport for MemoryTransport {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<AsyncHttpResponse, TransportError>> {
        let (head, body) = self.answer(request);
        Box::pin(async move {
            if loopback_parts::interleave() {
                futures_lite::future::yield_now().await;
            }
            Ok(AsyncHttpResponse { head, body: AsyncBody::from_chunks([body]) })
        })
    }

    /// Answers at once (after at most a yield), so no deadline can pass
    /// during a call — as on the blocking face.
    fn honours_timeout(&self) -> bool {
        true
    }
}

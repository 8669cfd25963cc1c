//! Both transports behind one blocking test face, so the same cases run
//! against each (the async one under `futures_lite::future::block_on`).
#![allow(dead_code)]

use bytes::Bytes;
use golem_providers::http::{HttpRequest, HttpResponseHead};
use golem_providers::transport::{
    AsyncBody, AsyncIoTransport, AsyncTransport, Body, Transport, TransportConfig, TransportError, UreqTransport,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Blocking,
    Async,
}

pub enum Sender {
    Blocking(UreqTransport),
    Async(AsyncIoTransport),
}

impl Sender {
    pub fn new(kind: Kind, config: TransportConfig) -> Self {
        match kind {
            Kind::Blocking => Sender::Blocking(UreqTransport::new(config)),
            Kind::Async => Sender::Async(AsyncIoTransport::new(config)),
        }
    }

    pub fn send(&self, request: &HttpRequest) -> Result<(HttpResponseHead, Reader), TransportError> {
        match self {
            Sender::Blocking(t) => t.send(request).map(|r| (r.head, Reader::Blocking(r.body))),
            Sender::Async(t) => {
                futures_lite::future::block_on(t.send(request)).map(|r| (r.head, Reader::Async(r.body)))
            }
        }
    }
}

#[derive(Debug)]
pub enum Reader {
    Blocking(Body),
    Async(AsyncBody),
}

impl Reader {
    pub fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError> {
        match self {
            Reader::Blocking(b) => b.next_chunk(),
            Reader::Async(b) => futures_lite::future::block_on(b.next_chunk()),
        }
    }

    pub fn read_to_end(self) -> Result<Vec<u8>, TransportError> {
        match self {
            Reader::Blocking(b) => b.read_to_end(),
            Reader::Async(b) => futures_lite::future::block_on(b.read_to_end()),
        }
    }
}

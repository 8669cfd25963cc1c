//! Provider clients: a codec and a transport pair, ready to serve as a
//! golem model (SPEC PROV-COMMON-01, MODEL-01..04).
//!
//! [`Client`] implements both [`Model`] and [`AsyncModel`], streaming
//! included, and offers each face from the other (`as_async`,
//! `as_blocking`), so either driver calls it natively. [`OpenAi`] (OpenAI
//! and every OpenAI-compatible preset) and [`AzureOpenAi`] are its
//! instances.
//!
//! A call succeeds or fails as a unit. Transport faults, resets, bodies cut
//! after the head, undecodable JSON, malformed SSE lines and streams
//! without their terminal marker are retryable errors; non-2xx responses
//! are classified by the codec with the Retry-After hint from the headers.
//! Clients never retry by themselves: the run machine does, so a retry
//! never re-runs a tool. Every attempt is bounded by the machine's
//! model-call deadline (SPEC RETRY-07) and by the transport's own connect
//! and read timeouts.
//!
//! ```no_run
//! use golem_providers::openai::Preset;
//! use golem_providers::OpenAi;
//! use golem_io::Agent;
//!
//! let model = OpenAi::preset(Preset::groq(), "llama-3.3-70b-versatile")?; // reads GROQ_API_KEY
//! let agent = Agent::<()>::builder(model).instructions("Be brief.").build()?;
//! println!("{}", agent.run((), "Say hi")?.output().unwrap());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod azure;
mod call;
mod openai;

pub use openai::DEFAULT_OPENAI_MODEL;

use crate::codec::HttpCodec;
use crate::transport::UreqTransport;
use crate::transport::{shared_async, shared_blocking, AsyncIoTransport, AsyncTransport, Transport, TransportConfig};
use golem_core::model::{AsyncModel, BoxFuture, Capabilities, DeltaSink, Model, ModelError, Request, Response};
use std::fmt;
use std::sync::Arc;

/// An OpenAI or OpenAI-compatible chat-completions client.
pub type OpenAi = Client<crate::openai::Codec>;

/// An Azure OpenAI deployment client.
pub type AzureOpenAi = Client<crate::azure::Codec>;

/// A provider client: codec `C` over a blocking and an async transport.
///
/// By default both transports are the process-wide shared ones (one
/// keep-alive pool each); [`Client::transport_config`] gives the client
/// its own, and [`Client::transport`] / [`Client::async_transport`] take
/// any implementation.
pub struct Client<C> {
    codec: C,
    blocking: Arc<dyn Transport>,
    asynchronous: Arc<dyn AsyncTransport>,
}

impl<C: HttpCodec> Client<C> {
    /// A client for `codec` on the shared transports.
    pub fn with_codec(codec: C) -> Self {
        Client { codec, blocking: shared_blocking(), asynchronous: shared_async() }
    }

    /// The codec.
    pub fn codec(&self) -> &C {
        &self.codec
    }

    /// Builder-style: own transports built from `config` (timeouts, body
    /// cap, extra root certificates).
    pub fn transport_config(mut self, config: TransportConfig) -> Self {
        self.asynchronous = Arc::new(AsyncIoTransport::new(config.clone()));
        self.blocking = Arc::new(UreqTransport::new(config));
        self
    }

    /// Builder-style: the transport for blocking calls.
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.blocking = transport;
        self
    }

    /// Builder-style: the transport for async calls.
    pub fn async_transport(mut self, transport: Arc<dyn AsyncTransport>) -> Self {
        self.asynchronous = transport;
        self
    }
}

impl<C: Clone> Clone for Client<C> {
    fn clone(&self) -> Self {
        Client {
            codec: self.codec.clone(),
            blocking: Arc::clone(&self.blocking),
            asynchronous: Arc::clone(&self.asynchronous),
        }
    }
}

/// Shows the codec (whose configuration redacts its key) and nothing of
/// the transports.
impl<C: fmt::Debug> fmt::Debug for Client<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("codec", &self.codec).finish_non_exhaustive()
    }
}

impl<C: HttpCodec + 'static> Model for Client<C> {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        call::generate(&self.codec, &*self.blocking, request)
    }

    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        call::stream(&self.codec, &*self.blocking, request, sink)
    }

    fn capabilities(&self) -> Capabilities {
        self.codec.capabilities()
    }

    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

impl<C: HttpCodec + 'static> AsyncModel for Client<C> {
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(call::generate_async(&self.codec, &*self.asynchronous, request))
    }

    fn stream_async<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn DeltaSink,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(call::stream_async(&self.codec, &*self.asynchronous, request, sink))
    }

    fn capabilities(&self) -> Capabilities {
        self.codec.capabilities()
    }

    fn as_blocking(&self) -> Option<&dyn Model> {
        Some(self)
    }
}

/// The process environment as a lookup; empty values count as unset.
pub(crate) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

//! Provider clients: a codec and a transport pair, ready to serve as a
//! golem model (SPEC PROV-COMMON-01, MODEL-01..04).
//!
//! [`Client`] implements golem's `Model` with the `blocking` feature and
//! `AsyncModel` with `async`, streaming included; with both it offers each
//! face from the other (`as_async`, `as_blocking`), so either driver calls
//! it natively. A face whose transport kind is compiled out is simply
//! absent. [`OpenAi`] (OpenAI and every OpenAI-compatible preset, feature
//! `openai`), [`AzureOpenAi`] (feature `azure`), [`Bedrock`] (feature
//! `bedrock`), [`Gemini`] (feature `gemini`) and [`Anthropic`] (feature
//! `anthropic`) are its instances.
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
//! Each client has one builder — [`OpenAi::builder`], [`AzureOpenAi::builder`]
//! — taking the provider's settings and the transport's (timeouts, proxy)
//! alike ([`ClientBuilder`]); `from_env()` and `OpenAi::preset` are the
//! short forms that read the environment.
//!
//! A client is a golem model: hand it to `golem_io::Agent::builder`, or
//! call it directly.
//!
//! ```no_run
//! use golem_core::{Message, Model, Request};
//! use golem_providers::openai::Preset;
//! use golem_providers::OpenAi;
//!
//! let model = OpenAi::preset(Preset::groq(), "llama-3.3-70b-versatile")?; // reads GROQ_API_KEY
//! let reply = model.generate(&Request::new(vec![Message::user("Say hi")]))?;
//! println!("{}", reply.message.content);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(feature = "azure")]
mod azure;
#[cfg(feature = "bedrock")]
mod bedrock;
mod builder;
mod call;
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "bedrock"))]
mod count_tokens;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(feature = "openai")]
mod openai;

#[cfg(feature = "anthropic")]
pub use anthropic::AnthropicBuilder;
#[cfg(feature = "azure")]
pub use azure::AzureOpenAiBuilder;
#[cfg(feature = "bedrock")]
pub use bedrock::BedrockBuilder;
pub use builder::{ClientBuilder, CodecBuilder};
#[cfg(feature = "gemini")]
pub use gemini::GeminiBuilder;
#[cfg(feature = "openai")]
pub use openai::{OpenAiBuilder, DEFAULT_OPENAI_MODEL};

use crate::codec::HttpCodec;
use crate::transport::TransportConfig;
#[cfg(feature = "async")]
use crate::transport::{shared_async, AsyncIoTransport, AsyncTransport};
#[cfg(feature = "blocking")]
use crate::transport::{shared_blocking, Transport, UreqTransport};
#[cfg(feature = "blocking")]
use golem_core::model::StreamingModel;
#[cfg(all(feature = "blocking", feature = "async"))]
use golem_core::model::{AsyncModel, Model};
#[cfg(feature = "async")]
use golem_core::model::{AsyncStreamingModel, BoxFuture};
use golem_core::model::{Capabilities, DeltaSink, ModelError, Request, Response};
use std::fmt;
use std::sync::Arc;

/// An OpenAI or OpenAI-compatible chat-completions client.
#[cfg(feature = "openai")]
pub type OpenAi = Client<crate::openai::Codec>;

/// An Azure OpenAI deployment client.
#[cfg(feature = "azure")]
pub type AzureOpenAi = Client<crate::azure::Codec>;

/// An AWS Bedrock Converse client (SigV4-signed, event-stream streaming).
#[cfg(feature = "bedrock")]
pub type Bedrock = Client<crate::bedrock::Codec>;

/// An Anthropic Messages client (SSE streaming, thinking with signatures).
#[cfg(feature = "anthropic")]
pub type Anthropic = Client<crate::anthropic::Codec>;

/// A Google Gemini client (`generateContent`, SSE streaming).
#[cfg(feature = "gemini")]
pub type Gemini = Client<crate::gemini::Codec>;

/// A provider client: codec `C` over a blocking transport (feature
/// `blocking`) and an async one (feature `async`).
///
/// By default the transports are the process-wide shared ones (one
/// keep-alive pool each); [`Client::transport_config`] gives the client its
/// own, and [`Client::transport`] / [`Client::async_transport`] take any
/// implementation.
pub struct Client<C> {
    codec: C,
    #[cfg(feature = "blocking")]
    blocking: Arc<dyn Transport>,
    #[cfg(feature = "async")]
    asynchronous: Arc<dyn AsyncTransport>,
}

impl<C: HttpCodec> Client<C> {
    /// A client for `codec` on the shared transports.
    pub fn with_codec(codec: C) -> Self {
        Client {
            codec,
            #[cfg(feature = "blocking")]
            blocking: shared_blocking(),
            #[cfg(feature = "async")]
            asynchronous: shared_async(),
        }
    }

    /// The codec.
    pub fn codec(&self) -> &C {
        &self.codec
    }

    /// Builder-style: own transports built from `config` (timeouts, body
    /// cap, extra root certificates).
    pub fn transport_config(mut self, config: TransportConfig) -> Self {
        #[cfg(feature = "async")]
        {
            self.asynchronous = Arc::new(AsyncIoTransport::new(config.clone()));
        }
        #[cfg(feature = "blocking")]
        {
            self.blocking = Arc::new(UreqTransport::new(config));
        }
        self
    }

    /// Builder-style: the transport for blocking calls.
    #[cfg(feature = "blocking")]
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.blocking = transport;
        self
    }

    /// Builder-style: the transport for async calls.
    #[cfg(feature = "async")]
    pub fn async_transport(mut self, transport: Arc<dyn AsyncTransport>) -> Self {
        self.asynchronous = transport;
        self
    }
}

impl<C: HttpCodec> Client<C> {
    /// The codec's capabilities, and whether the blocking transport stops
    /// at a call's deadline ([`Transport::honours_timeout`]); both faces
    /// report the same.
    fn model_capabilities(&self) -> Capabilities {
        #[cfg(feature = "blocking")]
        let honours = self.blocking.honours_timeout();
        #[cfg(not(feature = "blocking"))]
        let honours = false;
        self.codec.capabilities().honours_timeout(honours)
    }
}

impl<C: Clone> Clone for Client<C> {
    fn clone(&self) -> Self {
        Client {
            codec: self.codec.clone(),
            #[cfg(feature = "blocking")]
            blocking: Arc::clone(&self.blocking),
            #[cfg(feature = "async")]
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

// The clients stream, so they implement the streaming traits and are
// `Model` / `AsyncModel` through golem-core's blanket impls.
#[cfg(feature = "blocking")]
impl<C: HttpCodec + 'static> StreamingModel for Client<C> {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        call::generate(&self.codec, &*self.blocking, request)
    }

    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        call::stream(&self.codec, &*self.blocking, request, sink)
    }

    fn capabilities(&self) -> Capabilities {
        self.model_capabilities()
    }

    #[cfg(feature = "async")]
    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

#[cfg(feature = "async")]
impl<C: HttpCodec + 'static> AsyncStreamingModel for Client<C> {
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
        self.model_capabilities()
    }

    #[cfg(feature = "blocking")]
    fn as_blocking(&self) -> Option<&dyn Model> {
        Some(self)
    }
}

/// The process environment as a lookup; empty values count as unset.
#[cfg(any(feature = "openai", feature = "azure", feature = "bedrock", feature = "gemini", feature = "anthropic"))]
pub(crate) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

//! Provider clients: a codec and a transport pair, ready to serve as a
//! golem model (SPEC PROV-COMMON-01, MODEL-01..04).
//!
//! [`Client`] implements golem's `Model` with the `blocking` feature and
//! `AsyncModel` with `async`, streaming included; with both it offers each
//! face from the other (`as_async`, `as_blocking`), so either driver calls
//! it natively. A face whose transport kind is compiled out is simply
//! absent. [`OpenAi`] (OpenAI and every OpenAI-compatible preset, feature
//! `openai`), [`AzureOpenAi`] (feature `azure`), [`Bedrock`] (feature
//! `bedrock`), [`Gemini`] (feature `gemini`), [`Anthropic`] (feature
//! `anthropic`) and [`OpenAiResponses`] (feature `responses`) are its
//! instances. Over a codec that embeds
//! ([`EmbedCodec`](crate::codec::EmbedCodec): OpenAI, Azure, Gemini,
//! Bedrock) it is also a golem `Embedder` and `AsyncEmbedder`.
//!
//! A call succeeds or fails as a unit. Transport faults, resets, bodies cut
//! after the head, undecodable JSON, malformed SSE lines and streams
//! without their terminal marker are retryable errors; non-2xx responses
//! are classified by the codec with the Retry-After hint from the headers.
//! A streamed request answered with a plain JSON body is a decode error
//! that says the server did not stream, and is not retried (another
//! attempt would get the same answer).
//! Model calls are never retried by the client: the run machine does, so a
//! retry never re-runs a tool. (Embedding calls, which have no run around
//! them, are retried by the client by the same kind of policy: see
//! [`Client::embed_retry`].) Every attempt is bounded by the machine's
//! model-call deadline (SPEC RETRY-07) and by the transport's own connect
//! and read timeouts.
//!
//! Each client has one builder — `OpenAi::builder()`, `Anthropic::builder()`,
//! … — taking the provider's settings and the transport's (timeouts, proxy)
//! alike ([`ClientBuilder`]: the family's config builder with the transport
//! settings beside); `from_env()` and `OpenAi::preset` are the short forms
//! that read the environment. `new`, `from_env`, `builder` and `config`
//! are written once for every family (`impl<C: Configured> Client<C>`).
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

#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
mod builder;
mod call;
mod embed;

use call::Call;
pub use embed::default_embed_retry;
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "bedrock"))]
mod count_tokens;
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
mod families;
#[cfg(feature = "openai")]
mod openai;

#[cfg(feature = "openai")]
pub use crate::openai::DEFAULT_OPENAI_MODEL;
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
pub use builder::{ClientBuilder, Transports};
#[cfg(feature = "anthropic")]
pub use families::Anthropic;
#[cfg(feature = "azure")]
pub use families::AzureOpenAi;
#[cfg(feature = "bedrock")]
pub use families::Bedrock;
#[cfg(feature = "gemini")]
pub use families::Gemini;
#[cfg(feature = "openai")]
pub use families::OpenAi;
#[cfg(feature = "responses")]
pub use families::OpenAiResponses;

use crate::codec::HttpCodec;
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
use crate::config::{env, Builder, Config, ConfigError, Configured, Options};
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

/// A provider client: codec `C` over a blocking transport (feature
/// `blocking`) and an async one (feature `async`).
///
/// By default the transports are the process-wide shared ones (one
/// keep-alive pool each); [`Client::transport_config`] gives the client its
/// own, and [`Client::transport`] / [`Client::async_transport`] take any
/// implementation.
pub struct Client<C> {
    codec: C,
    embed_retry: golem_core::RetryPolicy,
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
            embed_retry: embed::default_embed_retry(),
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

/// The constructors of every family's client, written once: `new`,
/// `from_env`, `builder`, and the configuration back.
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
impl<C: Configured> Client<C> {
    /// A client for a validated `config`.
    pub fn new(config: Config<C::Options>) -> Self {
        Client::with_codec(C::with_config(config))
    }

    /// A client from the family's environment variables (see the alias:
    /// [`OpenAi`], [`Anthropic`], …).
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self::new(C::Options::from_env(env)?))
    }

    /// A builder: the family's settings (its config builder's setters) and
    /// the transport settings ([`ClientBuilder`]).
    pub fn builder() -> ClientBuilder<C::Options> {
        Builder::client(C::Options::default())
    }

    /// The configuration.
    pub fn config(&self) -> &Config<C::Options> {
        self.codec.config()
    }
}

impl<C: HttpCodec> Client<C> {
    /// The codec's capabilities, and whether the transport of the face
    /// asking stops at a call's deadline (`honours`:
    /// [`Transport::honours_timeout`] for the blocking face,
    /// [`AsyncTransport::honours_timeout`] for the async one). Everything
    /// else both faces report alike.
    fn model_capabilities(&self, honours: bool) -> Capabilities {
        self.codec.capabilities().honours_timeout(honours)
    }
}

impl<C: Clone> Clone for Client<C> {
    fn clone(&self) -> Self {
        Client {
            codec: self.codec.clone(),
            embed_retry: self.embed_retry.clone(),
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
        Call { codec: &self.codec, request }.generate(&*self.blocking)
    }

    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        Call { codec: &self.codec, request }.stream(&*self.blocking, sink)
    }

    fn capabilities(&self) -> Capabilities {
        self.model_capabilities(self.blocking.honours_timeout())
    }

    #[cfg(feature = "async")]
    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

#[cfg(feature = "async")]
impl<C: HttpCodec + 'static> AsyncStreamingModel for Client<C> {
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(Call { codec: &self.codec, request }.generate_async(&*self.asynchronous))
    }

    fn stream_async<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn DeltaSink,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(Call { codec: &self.codec, request }.stream_async(&*self.asynchronous, sink))
    }

    fn capabilities(&self) -> Capabilities {
        self.model_capabilities(self.asynchronous.honours_timeout())
    }

    #[cfg(feature = "blocking")]
    fn as_blocking(&self) -> Option<&dyn Model> {
        Some(self)
    }
}

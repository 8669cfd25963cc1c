//! One builder per client (issue 11 item 18): the provider's own settings
//! (model, key, base URL, tuning — whatever its config builder takes) and
//! the transport settings every client shares (timeouts, proxy, custom
//! transports), validated together by one `build()`.
//!
//! A provider plugs in by implementing [`CodecBuilder`] for its config
//! builder, adding `Client::<its Codec>::builder()`, and forwarding the
//! config builder's methods in an inherent `impl ClientBuilder<its
//! ConfigBuilder>` block (see `client/openai.rs`); the transport half is
//! written once, here.

use super::Client;
use crate::codec::HttpCodec;
#[cfg(feature = "async")]
use crate::transport::AsyncTransport;
#[cfg(feature = "blocking")]
use crate::transport::Transport;
use crate::transport::{Proxy, TransportConfig};
use std::fmt;
#[cfg(any(feature = "blocking", feature = "async"))]
use std::sync::Arc;
use std::time::Duration;

/// A provider's config builder, as a [`ClientBuilder`] drives it: it
/// validates into the provider's codec.
pub trait CodecBuilder {
    /// The codec a valid configuration makes.
    type Codec: HttpCodec;
    /// Why a configuration is refused.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Validate and make the codec.
    fn build_codec(self) -> Result<Self::Codec, Self::Error>;
}

/// Builds a [`Client`]: the provider's settings `B` plus transport
/// settings. Without transport settings the client shares the
/// process-wide transports (one keep-alive pool each); any of
/// [`transport_config`](Self::transport_config),
/// [`connect_timeout`](Self::connect_timeout),
/// [`read_timeout`](Self::read_timeout) or [`proxy`](Self::proxy) gives
/// it its own.
///
/// ```
/// use golem_providers::transport::Proxy;
/// use golem_providers::OpenAi;
/// use std::time::Duration;
///
/// // A local OpenAI-compatible server: no key needed.
/// let local = OpenAi::builder().model("qwen2.5").base_url("http://localhost:8080/v1").build()?;
/// assert_eq!(local.config().base_url(), "http://localhost:8080/v1");
///
/// // OpenAI through a corporate proxy, with a shorter wait for answers.
/// let openai = OpenAi::builder()
///     .model("gpt-4o-mini")
///     .api_key("sk-test")
///     .read_timeout(Duration::from_secs(60))
///     .proxy(Proxy::new("http://proxy.corp.example:3128")?)
///     .build()?;
/// assert_eq!(openai.config().model(), "gpt-4o-mini");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct ClientBuilder<B> {
    config: B,
    transport: Option<TransportConfig>,
    #[cfg(feature = "blocking")]
    blocking: Option<Arc<dyn Transport>>,
    #[cfg(feature = "async")]
    asynchronous: Option<Arc<dyn AsyncTransport>>,
}

impl<B: CodecBuilder> ClientBuilder<B> {
    /// A builder around a provider's config builder.
    pub fn new(config: B) -> Self {
        ClientBuilder {
            config,
            transport: None,
            #[cfg(feature = "blocking")]
            blocking: None,
            #[cfg(feature = "async")]
            asynchronous: None,
        }
    }

    /// Apply `change` to the provider's config builder — for settings the
    /// client builder does not forward.
    pub fn configure(mut self, change: impl FnOnce(B) -> B) -> Self {
        self.config = change(self.config);
        self
    }

    /// All transport settings at once (replacing any set before).
    pub fn transport_config(mut self, config: TransportConfig) -> Self {
        self.transport = Some(config);
        self
    }

    fn with_transport(mut self, change: impl FnOnce(TransportConfig) -> TransportConfig) -> Self {
        self.transport = Some(change(self.transport.take().unwrap_or_default()));
        self
    }

    /// The longest wait to open a connection, TLS handshake included
    /// (default 10 s).
    pub fn connect_timeout(self, timeout: Duration) -> Self {
        self.with_transport(|t| t.connect_timeout(timeout))
    }

    /// The longest silence while waiting for the server (default 300 s;
    /// the run's model-call deadline governs a call as a whole).
    pub fn read_timeout(self, timeout: Duration) -> Self {
        self.with_transport(|t| t.read_timeout(timeout))
    }

    /// Go through `proxy`. Without this the client connects directly,
    /// whatever `HTTP_PROXY` and friends say.
    pub fn proxy(self, proxy: Proxy) -> Self {
        self.with_transport(|t| t.proxy(proxy))
    }

    /// A transport of your own for blocking calls (it ignores the
    /// transport settings).
    #[cfg(feature = "blocking")]
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.blocking = Some(transport);
        self
    }

    /// A transport of your own for async calls (it ignores the transport
    /// settings).
    #[cfg(feature = "async")]
    pub fn async_transport(mut self, transport: Arc<dyn AsyncTransport>) -> Self {
        self.asynchronous = Some(transport);
        self
    }

    /// Validate the provider's settings and make the client.
    pub fn build(self) -> Result<Client<B::Codec>, B::Error> {
        let mut client = Client::with_codec(self.config.build_codec()?);
        if let Some(config) = self.transport {
            client = client.transport_config(config);
        }
        #[cfg(feature = "blocking")]
        if let Some(transport) = self.blocking {
            client = client.transport(transport);
        }
        #[cfg(feature = "async")]
        if let Some(transport) = self.asynchronous {
            client = client.async_transport(transport);
        }
        Ok(client)
    }
}

/// Shows the provider's settings (whose keys redact themselves) and the
/// transport settings.
impl<B: fmt::Debug> fmt::Debug for ClientBuilder<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("config", &self.config)
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

//! One builder per client (issue 11 item 18, issue 34): the family's
//! config builder ([`crate::config::Builder`]) with the transport
//! settings every client shares (timeouts, proxy, custom transports) as
//! its second half, checked together by one `build()`. A family's own
//! setters (`thinking`, `preset`, `region`, …) are written once, on the
//! config builder, and serve the client builder as they are.

use super::Client;
use crate::config::{Builder, Config, ConfigError, Configured, Options};
#[cfg(feature = "async")]
use crate::transport::AsyncTransport;
#[cfg(feature = "blocking")]
use crate::transport::Transport;
use crate::transport::{Proxy, TransportConfig};
use std::fmt;
#[cfg(any(feature = "blocking", feature = "async"))]
use std::sync::Arc;
use std::time::Duration;

/// Builds a [`Client`] of family `O`: the family's settings plus
/// transport settings. Without transport settings the client shares the
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
pub type ClientBuilder<O> = Builder<O, Transports>;

/// The transport half of a [`ClientBuilder`].
#[derive(Clone, Default)]
pub struct Transports {
    config: Option<TransportConfig>,
    #[cfg(feature = "blocking")]
    blocking: Option<Arc<dyn Transport>>,
    #[cfg(feature = "async")]
    asynchronous: Option<Arc<dyn AsyncTransport>>,
}

/// Shows the transport settings, and whether custom transports are set.
impl fmt::Debug for Transports {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transports").field("config", &self.config).finish_non_exhaustive()
    }
}

impl<O: Options> Builder<O, Transports> {
    /// A client builder with no settings yet (`Anthropic::builder()`, …).
    pub(crate) fn client(options: O) -> Self {
        Builder::new("", options).with_rest(Transports::default()).0
    }

    /// All transport settings at once (replacing any set before).
    pub fn transport_config(mut self, config: TransportConfig) -> Self {
        self.rest.config = Some(config);
        self
    }

    fn with_transport(mut self, change: impl FnOnce(TransportConfig) -> TransportConfig) -> Self {
        self.rest.config = Some(change(self.rest.config.take().unwrap_or_default()));
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
        self.rest.blocking = Some(transport);
        self
    }

    /// A transport of your own for async calls (it ignores the transport
    /// settings).
    #[cfg(feature = "async")]
    pub fn async_transport(mut self, transport: Arc<dyn AsyncTransport>) -> Self {
        self.rest.asynchronous = Some(transport);
        self
    }

    /// Validate the provider's settings and make the client.
    pub fn build(self) -> Result<Client<O::Codec>, ConfigError> {
        let (config, transports) = self.with_rest(());
        let config: Config<O> = config.build()?;
        let mut client = Client::with_codec(<O::Codec as Configured>::with_config(config));
        if let Some(config) = transports.config {
            client = client.transport_config(config);
        }
        #[cfg(feature = "blocking")]
        if let Some(transport) = transports.blocking {
            client = client.transport(transport);
        }
        #[cfg(feature = "async")]
        if let Some(transport) = transports.asynchronous {
            client = client.async_transport(transport);
        }
        Ok(client)
    }
}

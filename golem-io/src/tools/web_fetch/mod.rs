//! The `web_fetch` tool (SPEC WEB): GET an http or https URL and return
//! its body as text.
//!
//! - **Public addresses only, by default.** Every address the host resolves
//!   to — and a literal IP in any notation the URL parser normalises
//!   (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) — is checked, and the
//!   connection goes to the address that was checked: there is no second
//!   lookup for DNS rebinding to answer differently. Loopback, private,
//!   link-local (cloud metadata), CGNAT, multicast, broadcast, reserved and
//!   documentation ranges, and their IPv4-mapped, NAT64 and 6to4 forms, are
//!   refused. [`allow_private_networks`](WebFetchBuilder::allow_private_networks),
//!   [`allow_host`](WebFetchBuilder::allow_host) and
//!   [`allow_range`](WebFetchBuilder::allow_range) open them.
//! - **Redirects** are followed by hand, at most 5 by default, each hop
//!   re-checked; a result moved by a redirect names its final URL.
//! - **Bounded:** 30 s for the whole fetch, 1 MiB of body (cut on a UTF-8
//!   boundary, then a marker).
//! - **Text only:** `text/*`, JSON, XML, YAML, XHTML, `+json`, `+xml`; HTML
//!   is reduced to its visible text (scripts, styles and navigation
//!   dropped; headings and links kept). A body so labelled that holds a
//!   NUL or many control bytes is binary whatever its label, and a failed
//!   result. No cookies, no credentials, no proxy from the environment.
//! - **Short errors:** a failed result quotes at most 200 bytes of a URL,
//!   host or header value.
//!
//! Malformed URLs are correctable rejections; refused addresses, non-2xx
//! statuses, network errors and timeouts are failed results the model reads
//! (their texts are in [`texts`]).
//!
//! ```no_run
//! use golem_io::tools::web_fetch::WebFetch;
//!
//! let fetch = WebFetch::builder().build()?;
//! let page = fetch.fetch("https://example.com/")?;
//! println!("{}", page.model_text());
//! let tool: golem_io::Tool<()> = fetch.tool();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod body;
mod fetch;
pub(crate) mod html;
mod policy;
mod resolve;
pub mod texts;

pub use fetch::{FetchError, Fetched};
pub use policy::{classify, AddressClass, InvalidRange, IpRange};

use crate::{CancellationToken, Tool, ToolContext, ToolError, ToolResult};
use policy::Policy;
use resolve::VettingResolver;
use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use ureq::unversioned::transport::DefaultConnector;

/// The whole-fetch timeout unless configured (SPEC WEB-01).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The body cap unless configured (SPEC WEB-01).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 20;
/// The redirect limit unless configured (SPEC WEB-04).
pub const DEFAULT_MAX_REDIRECTS: u32 = 5;

/// The user agent sent unless configured: `golem-webfetch/<version>`.
pub fn default_user_agent() -> String {
    format!("golem-webfetch/{}", env!("CARGO_PKG_VERSION"))
}

/// A configured fetcher: cheap to clone, shared by every tool made from it.
#[derive(Clone)]
pub struct WebFetch {
    inner: Arc<Fetcher>,
}

pub(crate) struct Fetcher {
    agent: ureq::Agent,
    policy: Arc<Policy>,
    timeout: Duration,
    max_bytes: u64,
    max_redirects: u32,
    user_agent: String,
}

impl WebFetch {
    /// A builder with the defaults: public addresses only, 30 s, 1 MiB,
    /// 5 redirects.
    pub fn builder() -> WebFetchBuilder {
        WebFetchBuilder::default()
    }

    /// The `web_fetch` tool, for an agent with any deps.
    pub fn tool<Deps: Send + Sync + 'static>(&self) -> Tool<Deps> {
        let fetcher = self.clone();
        Tool::new(texts::TOOL_NAME, texts::DESCRIPTION, texts::schema(), move |ctx: ToolContext<Deps>, args| {
            fetcher.call(ctx.cancellation(), args)
        })
        .idempotent()
    }

    /// Fetch `url` as the tool would, without a model.
    pub fn fetch(&self, url: &str) -> Result<Fetched, FetchError> {
        self.inner.run(url, None)
    }

    /// [`fetch`](Self::fetch), giving up between redirects once `cancel`
    /// is canceled.
    pub fn fetch_with_cancellation(&self, url: &str, cancel: &CancellationToken) -> Result<Fetched, FetchError> {
        self.inner.run(url, Some(cancel))
    }

    fn call(&self, cancel: &CancellationToken, args: Value) -> Result<ToolResult, ToolError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Args {
            url: String,
        }
        let args: Args =
            serde_json::from_value(args).map_err(|e| ToolError::Reject(texts::bad_args(&e.to_string())))?;
        let fetched = self.inner.run(&args.url, Some(cancel)).map_err(FetchError::into_tool_error)?;
        Ok(ToolResult::text(fetched.model_text()))
    }
}

impl fmt::Debug for WebFetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.debug_struct("WebFetch")
            .field("policy", &inner.policy)
            .field("timeout", &inner.timeout)
            .field("max_bytes", &inner.max_bytes)
            .field("max_redirects", &inner.max_redirects)
            .field("user_agent", &inner.user_agent)
            .finish()
    }
}

/// Configuration for [`WebFetch`].
#[derive(Clone, Debug)]
pub struct WebFetchBuilder {
    timeout: Duration,
    max_bytes: u64,
    max_redirects: u32,
    user_agent: String,
    allow_private_networks: bool,
    allowed_hosts: Vec<String>,
    allowed_ranges: Vec<String>,
}

impl Default for WebFetchBuilder {
    fn default() -> Self {
        WebFetchBuilder {
            timeout: DEFAULT_TIMEOUT,
            max_bytes: DEFAULT_MAX_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            user_agent: default_user_agent(),
            allow_private_networks: false,
            allowed_hosts: Vec::new(),
            allowed_ranges: Vec::new(),
        }
    }
}

impl WebFetchBuilder {
    /// The time for the whole fetch, redirects included (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The body cap in bytes (default 1 MiB).
    pub fn max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The most redirects followed (default 5; 0 refuses every redirect).
    pub fn max_redirects(mut self, max_redirects: u32) -> Self {
        self.max_redirects = max_redirects;
        self
    }

    /// The `User-Agent` header (default `golem-webfetch/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// Also reach loopback, private (RFC 1918, fc00::/7), link-local and
    /// CGNAT addresses — for intranet tools and tests. Unspecified,
    /// multicast, broadcast, reserved and documentation addresses stay
    /// refused unless allowed by [`allow_range`](Self::allow_range).
    pub fn allow_private_networks(mut self, allow: bool) -> Self {
        self.allow_private_networks = allow;
        self
    }

    /// Reach `host` (exact name, case-insensitive) whatever it resolves to.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into().trim_end_matches('.').to_string());
        self
    }

    /// Reach addresses in `range` (`10.1.0.0/16`, `fd00::/8` or one
    /// address); checked at [`build`](Self::build).
    pub fn allow_range(mut self, range: impl Into<String>) -> Self {
        self.allowed_ranges.push(range.into());
        self
    }

    /// Check the configuration and build the fetcher.
    pub fn build(self) -> Result<WebFetch, BuildError> {
        if self.timeout.is_zero() {
            return Err(BuildError::ZeroTimeout);
        }
        if self.max_bytes == 0 {
            return Err(BuildError::ZeroMaxBytes);
        }
        if self.user_agent.trim().is_empty() || self.user_agent.chars().any(char::is_control) {
            return Err(BuildError::InvalidUserAgent(self.user_agent));
        }
        let allowed_ranges = self.allowed_ranges.iter().map(|r| r.parse()).collect::<Result<Vec<IpRange>, _>>()?;
        let policy = Arc::new(Policy {
            allow_private_networks: self.allow_private_networks,
            allowed_hosts: self.allowed_hosts,
            allowed_ranges,
        });
        let config = ureq::Agent::config_builder()
            .max_redirects(0)
            .http_status_as_error(false)
            .proxy(None)
            .max_idle_connections(0)
            .user_agent(self.user_agent.as_str())
            .build();
        let agent =
            ureq::Agent::with_parts(config, DefaultConnector::new(), VettingResolver { policy: Arc::clone(&policy) });
        let fetcher = Fetcher {
            agent,
            policy,
            timeout: self.timeout,
            max_bytes: self.max_bytes,
            max_redirects: self.max_redirects,
            user_agent: self.user_agent,
        };
        Ok(WebFetch { inner: Arc::new(fetcher) })
    }
}

/// A [`WebFetchBuilder`] configuration that cannot work.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The timeout is zero.
    #[error("web_fetch: the timeout must be greater than zero")]
    ZeroTimeout,
    /// The body cap is zero.
    #[error("web_fetch: max bytes must be greater than zero")]
    ZeroMaxBytes,
    /// The user agent is empty or has control characters.
    #[error("web_fetch: invalid user agent {0:?}")]
    InvalidUserAgent(String),
    /// An allowed range does not parse.
    #[error("web_fetch: {0}")]
    InvalidRange(#[from] InvalidRange),
}

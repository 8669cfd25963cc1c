//! Streamable HTTP settings, with header values kept out of `Debug`
//! (SPEC MCP-06, ERR-06).

use crate::mcp::auth::OAuth;
pub(crate) use crate::mcp::redact::shown_url;
use std::fmt;

/// A header value that never shows in `Debug` or `Display`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(pub(crate) String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"[redacted]\"")
    }
}

/// Where a streamable HTTP MCP server listens and what every request
/// carries.
///
/// Connections go direct unless [`proxy`](Self::proxy) names one: the
/// `HTTP_PROXY`-style variables are never read (ureq's default would).
///
/// ```
/// use golem_io::mcp::HttpConfig;
///
/// let config = HttpConfig::new("http://127.0.0.1:8000/mcp")
///     .bearer_token("s3cret")
///     .header("X-Team", "blue")
///     .proxy("http://user:pr0xy-pass@proxy.corp.example:3128");
/// let shown = format!("{config:?}");
/// assert!(!shown.contains("s3cret") && !shown.contains("pr0xy-pass"));
/// ```
#[derive(Clone)]
pub struct HttpConfig {
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, Secret)>,
    pub(crate) bearer: Option<Secret>,
    pub(crate) listen: bool,
    /// The proxy URL, which may hold credentials.
    pub(crate) proxy: Option<Secret>,
    pub(crate) oauth: Option<OAuth>,
}

impl HttpConfig {
    /// The MCP endpoint URL.
    pub fn new(url: impl Into<String>) -> Self {
        HttpConfig { url: url.into(), headers: Vec::new(), bearer: None, listen: true, proxy: None, oauth: None }
    }

    /// Builder-style: go through the HTTP proxy at `url`
    /// (`http://[user:password@]host[:port]`, or `https://…` for TLS to the
    /// proxy), tunnelling with `CONNECT`. A URL the client cannot use fails
    /// [`McpClient::http`](crate::mcp::McpClient::http). Without this the
    /// client connects directly, whatever the environment says.
    pub fn proxy(mut self, url: impl Into<String>) -> Self {
        self.proxy = Some(Secret(url.into()));
        self
    }

    /// The proxy ureq takes, or why `url` is refused (without its
    /// credentials).
    pub(crate) fn ureq_proxy(&self) -> Result<Option<ureq::Proxy>, String> {
        let Some(Secret(url)) = &self.proxy else { return Ok(None) };
        let shown = shown_url(url);
        let scheme = url.split_once("://").map(|(scheme, _)| scheme.to_ascii_lowercase());
        if !matches!(scheme.as_deref(), Some("http" | "https")) {
            return Err(format!("invalid proxy {shown}: only http:// and https:// proxies are supported"));
        }
        ureq::Proxy::new(url).map(Some).map_err(|_| format!("invalid proxy {shown}: not a usable proxy URL"))
    }

    /// Builder-style: a header sent with every request (its value is
    /// redacted in `Debug`).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), Secret(value.into())));
        self
    }

    /// Builder-style: `Authorization: Bearer <token>` on every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(Secret(token.into()));
        self
    }

    /// Builder-style: authorize with OAuth when the server asks (SPEC
    /// MCP-15): on a 401 the client runs the flow `oauth` describes and
    /// sends the request again with the token; it replaces any
    /// [`bearer_token`](Self::bearer_token).
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Builder-style: open the standalone GET stream after the handshake,
    /// to hear what the server says outside any request — tool-list
    /// changes, logs, pings (on by default). A server that offers none
    /// answers 405, which is fine. See
    /// [`McpClient::listen_state`](crate::mcp::McpClient::listen_state).
    ///
    /// **What turning it off loses.** Everything a server sends on that
    /// stream never arrives: tool-list changes (bridges are not marked
    /// stale), logs, resource updates, and server *requests* sent there.
    /// Servers on the TypeScript SDK send their requests — elicitation,
    /// sampling, `roots/list` — on that stream even in the middle of a tool
    /// call, so with it off such a tool call waits for an answer that never
    /// comes, until its timeout: elicitation and sampling silently stop
    /// working with those servers. A server that forgot the session is also
    /// noticed only by the next request (which, for `tools/call`, then
    /// fails with [`McpError::SessionLost`](crate::mcp::McpError::SessionLost)).
    /// Turn it off only for servers that send nothing outside requests.
    pub fn listen(mut self, listen: bool) -> Self {
        self.listen = listen;
        self
    }

    /// The endpoint as shown in errors: no credentials, query or fragment.
    pub fn shown_url(&self) -> String {
        shown_url(&self.url)
    }
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &Secret)> = self.headers.iter().map(|(k, v)| (k.as_str(), v)).collect();
        f.debug_struct("HttpConfig")
            .field("url", &self.shown_url())
            .field("headers", &headers)
            .field("bearer", &self.bearer)
            .field("listen", &self.listen)
            .field("proxy", &self.proxy.as_ref().map(|Secret(url)| shown_url(url)))
            .field("oauth", &self.oauth)
            .finish()
    }
}

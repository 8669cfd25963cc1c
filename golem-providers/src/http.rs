//! HTTP as plain data: what a codec hands a transport and what a transport
//! hands back (DESIGN "Codecs are pure").
//!
//! A codec builds an [`HttpRequest`]; the transport sends it, reads the
//! status line and headers into an [`HttpResponseHead`], and gives the codec
//! the body — whole, or chunk by chunk to a stream decoder. Nothing here does
//! I/O, so codecs are tested on recorded traffic with no network.

use crate::retry_after;
use crate::secret::Secret;
use bytes::Bytes;
use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `DELETE`.
    Delete,
}

impl Method {
    /// The method's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request header value: plain text, or a [`Secret`] that formats as
/// `[redacted]` (SPEC ERR-06) — so a logged request never shows a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderValue {
    /// An ordinary value; a constant costs no allocation per request.
    Plain(Cow<'static, str>),
    /// A value carrying a credential.
    Secret(Secret),
}

impl HeaderValue {
    /// The text to write on the wire. Transports call this; nothing else
    /// should.
    pub fn expose(&self) -> &str {
        match self {
            HeaderValue::Plain(v) => v,
            HeaderValue::Secret(s) => s.expose(),
        }
    }

    /// True for a credential.
    pub fn is_secret(&self) -> bool {
        matches!(self, HeaderValue::Secret(_))
    }
}

impl fmt::Display for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderValue::Plain(v) => f.write_str(v),
            HeaderValue::Secret(s) => fmt::Display::fmt(s, f),
        }
    }
}

/// An HTTP request, built by a codec and sent by a transport.
///
/// ```
/// use golem_providers::http::{HeaderValue, HttpRequest, Method};
/// use golem_providers::Secret;
///
/// let request = HttpRequest::new(Method::Post, "https://example.invalid/v1/chat/completions")
///     .with_header("authorization", HeaderValue::Secret(Secret::new("Bearer sk-1")))
///     .with_body(b"{}".to_vec());
/// assert_eq!(request.header("Authorization").map(|v| v.expose()), Some("Bearer sk-1"));
/// assert!(!format!("{request:?}").contains("sk-1"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The method.
    pub method: Method,
    /// The absolute URL (keys never go here, SPEC PROV-COMMON-07).
    pub url: String,
    /// Header names (lowercase) and values, in sending order. Names are
    /// mostly constants, borrowed rather than copied per request.
    pub headers: Vec<(Cow<'static, str>, HeaderValue)>,
    /// The body bytes.
    pub body: Bytes,
    /// The longest the whole exchange may take — connecting, sending, the
    /// head and the body — when the caller has a deadline (a model call's
    /// [`Request::timeout`](golem_core::Request::timeout)). `None`: only
    /// the transport's own connect and read timeouts apply.
    pub timeout: Option<std::time::Duration>,
}

impl HttpRequest {
    /// A request with no headers and an empty body.
    pub fn new(method: Method, url: impl Into<String>) -> Self {
        HttpRequest { method, url: url.into(), headers: Vec::new(), body: Bytes::new(), timeout: None }
    }

    /// Builder-style: the longest the whole exchange may take.
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// A `POST` of a JSON body, accepting JSON — or an event stream when
    /// `stream` is set, since some servers pick the response format from
    /// `Accept`.
    pub fn post_json(url: impl Into<String>, body: impl Into<Bytes>, stream: bool) -> Self {
        let accept = if stream { "text/event-stream" } else { "application/json" };
        HttpRequest::new(Method::Post, url)
            .with_header("content-type", HeaderValue::Plain(Cow::Borrowed("application/json")))
            .with_header("accept", HeaderValue::Plain(Cow::Borrowed(accept)))
            .with_body(body)
    }

    /// Builder-style: append a header.
    pub fn with_header(mut self, name: impl Into<Cow<'static, str>>, value: HeaderValue) -> Self {
        self.headers.push((name.into(), value));
        self
    }

    /// Builder-style: a secret header `name` when there is a `value` (a
    /// configured key), nothing when there is none.
    pub fn with_secret(self, name: &'static str, value: Option<&Secret>) -> Self {
        match value {
            Some(value) => self.with_header(name, HeaderValue::Secret(value.clone())),
            None => self,
        }
    }

    /// Builder-style: add each of `headers` (a config's extra headers),
    /// names in lowercase like every name the codecs write.
    pub fn with_headers(mut self, headers: &[(String, HeaderValue)]) -> Self {
        self.headers.extend(headers.iter().map(|(name, value)| (Cow::Owned(name.to_ascii_lowercase()), value.clone())));
        self
    }

    /// Builder-style: set the body.
    pub fn with_body(mut self, body: impl Into<Bytes>) -> Self {
        self.body = body.into();
        self
    }

    /// The first header called `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&HeaderValue> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v)
    }
}

/// The body is summarised by its length: requests hold whole conversations,
/// which belong in event logs, not in every debug line.
impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &self.headers)
            .field("body", &format_args!("<{} bytes>", self.body.len()))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The status and headers of a response, as the transport read them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpResponseHead {
    /// The status code.
    pub status: u16,
    /// Header names and values in arrival order (names in any case).
    pub headers: Vec<(String, String)>,
    /// The caller's wall clock (Unix seconds) when the head arrived. Used
    /// only to resolve an HTTP-date `Retry-After` when the response has no
    /// usable `Date` header; codecs never read a clock themselves.
    pub now_unix: Option<u64>,
}

/// Header names that carry a provider's request id, in order of preference
/// (SPEC PROV-COMMON-04). `apim-request-id` is what Azure's gateway sends
/// when it omits the others (seen in recorded Azure traffic).
pub const REQUEST_ID_HEADERS: [&str; 4] = ["x-request-id", "request-id", "x-amzn-requestid", "apim-request-id"];

/// Request ids longer than this are cut: the value is only for support
/// tickets, and an unbounded header must not bloat errors and logs.
const MAX_REQUEST_ID: usize = 256;

impl HttpResponseHead {
    /// A head with the given status and headers and no clock reading.
    pub fn new(status: u16, headers: Vec<(String, String)>) -> Self {
        HttpResponseHead { status, headers, now_unix: None }
    }

    /// Builder-style: record the wall clock (Unix seconds) at arrival.
    pub fn with_now_unix(mut self, now_unix: u64) -> Self {
        self.now_unix = Some(now_unix);
        self
    }

    /// True for a 2xx status.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The first header called `name` (ASCII case-insensitive), trimmed.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
    }

    /// The provider's request id, from the first of [`REQUEST_ID_HEADERS`]
    /// present and non-empty.
    pub fn request_id(&self) -> Option<&str> {
        REQUEST_ID_HEADERS.iter().filter_map(|name| self.header(name)).find(|v| !v.is_empty()).map(|v| {
            let mut end = v.len().min(MAX_REQUEST_ID);
            while !v.is_char_boundary(end) {
                end -= 1;
            }
            &v[..end]
        })
    }

    /// The provider's Retry-After hint (SPEC RETRY-03); see
    /// [`retry_after::from_headers`].
    pub fn retry_after(&self) -> Option<Duration> {
        retry_after::from_headers(|name| self.header(name), self.now_unix)
    }
}

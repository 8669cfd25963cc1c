//! One fetch: argument checks, hand-followed redirects, the body read
//! under the cap and turned into text (SPEC WEB-02..08).

use super::body::{self, Kind};
use super::html::html_to_text;
use super::policy::AddressClass;
use super::resolve::Blocked;
use super::texts;
use super::Fetcher;
use crate::run::cancel::CancellationToken;
use std::io::Read;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use ureq::http::{header, Response, StatusCode};
use ureq::Body;
use url::{Host, Url};

/// A successful fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetched {
    /// The URL as the model gave it.
    pub requested: String,
    /// The URL the body came from, after redirects.
    pub url: String,
    /// How many redirects were followed.
    pub redirects: u32,
    /// The response status (2xx).
    pub status: u16,
    /// The media type, lowercased, without parameters; `None` when the
    /// response had none.
    pub content_type: Option<String>,
    /// The body as text (HTML reduced to its visible text), without any
    /// marker.
    pub text: String,
    /// True when the body was longer than the cap and was cut.
    pub truncated: bool,
    /// The cap the body was cut at, in bytes.
    pub max_bytes: u64,
}

impl Fetched {
    /// What the model reads: the text, the truncation marker when cut, and
    /// a first line naming the final URL when redirects were followed.
    pub fn model_text(&self) -> String {
        let mut out = String::new();
        if self.redirects > 0 {
            out.push_str(&texts::redirected(&self.url));
        }
        out.push_str(&self.text);
        if self.truncated {
            out.push_str(&texts::truncated(self.max_bytes));
        }
        out
    }
}

/// Why a fetch produced no text. Its `Display` is the text the model reads.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The arguments need fixing (correctable rejection, SPEC WEB-02).
    #[error("{0}")]
    Rejected(String),
    /// The host or one of its addresses is not public (SPEC WEB-03).
    #[error("{}", texts::blocked(url, host, &addr.to_string(), class.label()))]
    Blocked {
        /// The URL refused.
        url: String,
        /// Its host.
        host: String,
        /// The denied address.
        addr: IpAddr,
        /// Why it is denied.
        class: AddressClass,
    },
    /// The server answered outside 2xx (SPEC WEB-08).
    #[error("{}", texts::status(url, *status, StatusCode::from_u16(*status).ok().and_then(|s| s.canonical_reason()).unwrap_or("")))]
    Status {
        /// The final URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// More redirects than allowed (SPEC WEB-04).
    #[error("{}", texts::too_many_redirects(url, *max))]
    TooManyRedirects {
        /// The URL whose redirect was not followed.
        url: String,
        /// The limit.
        max: u32,
    },
    /// A redirect to a location this tool does not go to.
    #[error("{}", texts::bad_redirect(url, location, reason))]
    BadRedirect {
        /// The redirecting URL.
        url: String,
        /// Its `Location`.
        location: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// A content type that is not read (SPEC WEB-05).
    #[error("{}", texts::unsupported_type(url, content_type))]
    UnsupportedType {
        /// The final URL.
        url: String,
        /// The media type.
        content_type: String,
    },
    /// A body labelled as text that is binary (issue 15).
    #[error("{}", texts::binary_body(url, content_type))]
    Binary {
        /// The final URL.
        url: String,
        /// The media type it claimed.
        content_type: String,
    },
    /// No content type, and the body is not UTF-8 text.
    #[error("{}", texts::untyped_binary(url))]
    NotText {
        /// The final URL.
        url: String,
    },
    /// The whole fetch overran its timeout.
    #[error("{}", texts::timed_out(url, after.as_secs_f64()))]
    Timeout {
        /// The URL being fetched when time ran out.
        url: String,
        /// The timeout.
        after: Duration,
    },
    /// The host name does not resolve.
    #[error("{}", texts::host_not_found(url, host))]
    HostNotFound {
        /// The URL.
        url: String,
        /// Its host.
        host: String,
    },
    /// A connection, TLS or protocol failure.
    #[error("{}", texts::network(url, message))]
    Network {
        /// The URL.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The run canceled the call.
    #[error("{}", texts::canceled(url))]
    Canceled {
        /// The URL.
        url: String,
    },
}

impl FetchError {
    /// True for the correctable rejections (the model fixes its call).
    pub fn is_rejection(&self) -> bool {
        matches!(self, FetchError::Rejected(_))
    }
}

impl FetchError {
    /// The tool's verdict: a rejection of the URL stays correctable,
    /// anything else is a failed result. (`?` on a `FetchError` in a tool
    /// of your own gives a failed result for both, like any error.)
    pub fn into_tool_error(self) -> crate::ToolError {
        if self.is_rejection() {
            crate::ToolError::Reject(self.to_string())
        } else {
            crate::ToolError::Failed(self.to_string())
        }
    }
}

/// The model's URL, checked: http or https, a host, no credentials.
pub(crate) fn parse_url(raw: &str) -> Result<Url, FetchError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(FetchError::Rejected(texts::URL_REQUIRED.into()));
    }
    let url = Url::parse(raw).map_err(|e| FetchError::Rejected(texts::invalid_url(&e.to_string())))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(FetchError::Rejected(texts::not_http(raw)));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(FetchError::Rejected(texts::CREDENTIALS.into()));
    }
    Ok(url)
}

impl Fetcher {
    /// Fetch `raw`, following redirects by hand.
    pub(crate) fn run(&self, raw: &str, cancel: Option<&CancellationToken>) -> Result<Fetched, FetchError> {
        let deadline = Instant::now() + self.timeout;
        let mut url = parse_url(raw)?;
        let mut redirects = 0;
        loop {
            self.vet_literal(&url)?;
            if cancel.is_some_and(CancellationToken::is_canceled) {
                return Err(FetchError::Canceled { url: url.to_string() });
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(FetchError::Timeout { url: url.to_string(), after: self.timeout });
            }
            // The fragment stays on this side; the request line never has one.
            let mut target = url.clone();
            target.set_fragment(None);
            let response = self
                .agent
                .get(target.as_str())
                .config()
                .timeout_global(Some(remaining))
                .build()
                .call()
                .map_err(|e| self.call_error(&url, e))?;
            let status = response.status();
            if status.is_redirection() {
                if let Some(location) = response.headers().get(header::LOCATION) {
                    let location = String::from_utf8_lossy(location.as_bytes()).into_owned();
                    if redirects == self.max_redirects {
                        return Err(FetchError::TooManyRedirects { url: url.to_string(), max: self.max_redirects });
                    }
                    redirects += 1;
                    url = redirect_target(&url, &location)?;
                    continue;
                }
            }
            if !status.is_success() {
                return Err(FetchError::Status { url: url.to_string(), status: status.as_u16() });
            }
            return self.read(raw, url, redirects, response);
        }
    }

    /// A literal IP host is judged before any connection, for a clear
    /// answer; the resolver judges it again with every resolved name.
    fn vet_literal(&self, url: &Url) -> Result<(), FetchError> {
        let ip = match url.host() {
            Some(Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(Host::Ipv6(ip)) => IpAddr::V6(ip),
            _ => return Ok(()),
        };
        let host = url.host_str().unwrap_or_default();
        match self.policy.deny(host, ip) {
            Some(class) => Err(FetchError::Blocked { url: url.to_string(), host: ip.to_string(), addr: ip, class }),
            None => Ok(()),
        }
    }

    fn call_error(&self, url: &Url, error: ureq::Error) -> FetchError {
        let url_s = url.to_string();
        match error {
            ureq::Error::Other(inner) => match inner.downcast::<Blocked>() {
                Ok(b) => FetchError::Blocked { url: url_s, host: b.host, addr: b.addr, class: b.class },
                Err(other) => FetchError::Network { url: url_s, message: other.to_string() },
            },
            ureq::Error::Timeout(_) => FetchError::Timeout { url: url_s, after: self.timeout },
            ureq::Error::HostNotFound => {
                FetchError::HostNotFound { url: url_s, host: url.host_str().unwrap_or_default().to_string() }
            }
            ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                FetchError::Timeout { url: url_s, after: self.timeout }
            }
            other => FetchError::Network { url: url_s, message: other.to_string() },
        }
    }

    /// Read the body: at most `max_bytes + 1` bytes, typed, decoded.
    fn read(
        &self,
        requested: &str,
        url: Url,
        redirects: u32,
        mut response: Response<Body>,
    ) -> Result<Fetched, FetchError> {
        let header =
            response.headers().get(header::CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let (media, charset) = match header.as_deref().map(body::parse_content_type) {
            Some((media, charset)) if !media.is_empty() => (Some(media), charset),
            _ => (None, None),
        };
        let kind = match &media {
            Some(media) => Some(
                body::kind_of(media)
                    .ok_or_else(|| FetchError::UnsupportedType { url: url.to_string(), content_type: media.clone() })?,
            ),
            None => None,
        };
        let mut bytes = Vec::new();
        let limit = self.max_bytes.saturating_add(1);
        response.body_mut().as_reader().take(limit).read_to_end(&mut bytes).map_err(|e| self.read_error(&url, e))?;
        let truncated = bytes.len() as u64 > self.max_bytes;
        if truncated {
            bytes.truncate(usize::try_from(self.max_bytes).unwrap_or(usize::MAX));
        }
        if kind.is_none() && !body::looks_like_text(&bytes, truncated) {
            return Err(FetchError::NotText { url: url.to_string() });
        }
        if let (Some(media), true) = (&media, body::looks_binary(&bytes)) {
            return Err(FetchError::Binary { url: url.to_string(), content_type: media.clone() });
        }
        let decoded = body::decode(&bytes, charset.as_deref(), truncated);
        let text = match kind {
            Some(Kind::Html) => html_to_text(&decoded, Some(&url)),
            _ => decoded,
        };
        Ok(Fetched {
            requested: requested.trim().to_string(),
            url: url.to_string(),
            redirects,
            status: response.status().as_u16(),
            content_type: media,
            text,
            truncated,
            max_bytes: self.max_bytes,
        })
    }

    fn read_error(&self, url: &Url, error: std::io::Error) -> FetchError {
        let timed_out = error.kind() == std::io::ErrorKind::TimedOut
            || error
                .get_ref()
                .and_then(|e| e.downcast_ref::<ureq::Error>())
                .is_some_and(|e| matches!(e, ureq::Error::Timeout(_)));
        if timed_out {
            FetchError::Timeout { url: url.to_string(), after: self.timeout }
        } else {
            FetchError::Network { url: url.to_string(), message: error.to_string() }
        }
    }
}

/// The next hop of a redirect, re-checked like the model's URL.
fn redirect_target(from: &Url, location: &str) -> Result<Url, FetchError> {
    let refuse = |reason| FetchError::BadRedirect { url: from.to_string(), location: location.to_string(), reason };
    let next = from.join(location.trim()).map_err(|_| refuse(texts::REDIRECT_INVALID))?;
    if !matches!(next.scheme(), "http" | "https") || next.host().is_none() {
        return Err(refuse(texts::REDIRECT_NOT_HTTP));
    }
    if !next.username().is_empty() || next.password().is_some() {
        return Err(refuse(texts::REDIRECT_CREDENTIALS));
    }
    Ok(next)
}

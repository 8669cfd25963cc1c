//! An explicit HTTP proxy (issue 11 item 17): the transports use one only
//! when it is configured, never because `HTTP_PROXY` or `HTTPS_PROXY`
//! happens to be set.

use crate::secret::Secret;
use base64::Engine;
use std::fmt;

#[cfg(feature = "blocking")]
use ureq::http::Uri;
#[cfg(all(feature = "async", not(feature = "blocking")))]
use ureq_proto::http::Uri;

/// Why a proxy URL was refused. Never holds the URL's credentials.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid proxy {shown}: {reason}")]
pub struct ProxyError {
    shown: String,
    reason: &'static str,
}

impl ProxyError {
    fn new(shown: impl Into<String>, reason: &'static str) -> Self {
        ProxyError { shown: shown.into(), reason }
    }

    /// What is wrong with the URL.
    pub fn reason(&self) -> &'static str {
        self.reason
    }
}

/// An HTTP proxy that every connection of a transport goes through. Both
/// transports open a `CONNECT host:port` tunnel through it — for `https`
/// and plain `http` URLs alike — and speak to the server inside it, TLS
/// verified end to end as without a proxy.
///
/// The URL is `http://[user:password@]host[:port]` (port 80 when absent;
/// user info percent-decoded), sent as `Proxy-Authorization: Basic`.
/// Credentials never appear in `Debug`, `Display` or errors.
///
/// ```
/// use golem_providers::transport::{Proxy, TransportConfig};
///
/// let proxy = Proxy::new("http://alice:s3cret@proxy.corp.example:3128")?;
/// assert_eq!((proxy.host(), proxy.port()), ("proxy.corp.example", 3128));
/// assert!(!format!("{proxy:?}").contains("s3cret"));
/// let config = TransportConfig::new().proxy(proxy);
/// assert!(config.proxy_value().is_some());
/// # Ok::<(), golem_providers::transport::ProxyError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    host: String,
    port: u16,
    /// The `Proxy-Authorization` value, when credentials were given.
    authorization: Option<Secret>,
    /// The same proxy as ureq takes it, built once so a proxy ureq would
    /// refuse is refused here, not silently skipped later.
    #[cfg(feature = "blocking")]
    ureq: ureq::Proxy,
}

impl Proxy {
    /// A proxy from its URL, `http://[user:password@]host[:port]`. Other
    /// schemes (`https`, `socks5`) are refused, as are paths and queries.
    pub fn new(url: &str) -> Result<Proxy, ProxyError> {
        let uri: Uri = url.parse().map_err(|_| ProxyError::new(shown(url), "not a URL"))?;
        let shown = shown(url);
        if !uri.scheme_str().is_some_and(|s| s.eq_ignore_ascii_case("http")) {
            return Err(ProxyError::new(shown, "only http:// proxies are supported"));
        }
        if uri.path_and_query().is_some_and(|p| p.as_str() != "/" && !p.as_str().is_empty()) {
            return Err(ProxyError::new(shown, "a proxy URL has no path or query"));
        }
        let authority = uri.authority().ok_or_else(|| ProxyError::new(shown.clone(), "no host"))?;
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_string();
        if host.is_empty() {
            return Err(ProxyError::new(shown, "no host"));
        }
        let port = authority.port_u16().unwrap_or(80);
        if port == 0 {
            return Err(ProxyError::new(shown, "port 0"));
        }
        let credentials = match authority.as_str().rsplit_once('@') {
            None => None,
            Some((info, _)) => {
                let (user, password) = info.split_once(':').unwrap_or((info, ""));
                let decode =
                    |part| crate::percent::decode(part).ok_or_else(|| ProxyError::new(&shown, "bad user info"));
                Some((decode(user)?, decode(password)?))
            }
        };
        Proxy::from_parts(host, port, credentials, &shown)
    }

    /// Builder-style: authenticate with `user` and `password` (Basic),
    /// replacing credentials from the URL.
    pub fn basic_auth(self, user: &str, password: &str) -> Result<Proxy, ProxyError> {
        let shown = format!("http://{}", self.authority());
        Proxy::from_parts(self.host, self.port, Some((user.to_string(), password.to_string())), &shown)
    }

    fn from_parts(
        host: String,
        port: u16,
        credentials: Option<(String, String)>,
        shown: &str,
    ) -> Result<Proxy, ProxyError> {
        if credentials.as_ref().is_some_and(|(user, password)| {
            user.contains(':') || [user, password].iter().any(|s| s.chars().any(char::is_control))
        }) {
            return Err(ProxyError::new(shown, "a user name holds ':' or a credential a control character"));
        }
        #[cfg(feature = "blocking")]
        let ureq = {
            let bracketed = if host.contains(':') { format!("[{host}]") } else { host.clone() };
            let mut builder = ureq::Proxy::builder(ureq::ProxyProtocol::Http).host(&bracketed).port(port);
            if let Some((user, password)) = &credentials {
                builder = builder.username(user).password(password);
            }
            builder.build().map_err(|_| ProxyError::new(shown, "refused by the HTTP client"))?
        };
        let authorization = credentials.map(|(user, password)| {
            let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            Secret::new(format!("Basic {token}"))
        });
        Ok(Proxy {
            host,
            port,
            authorization,
            #[cfg(feature = "blocking")]
            ureq,
        })
    }

    /// The proxy's host (an IPv6 address without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// True when credentials are configured.
    pub fn has_credentials(&self) -> bool {
        self.authorization.is_some()
    }

    /// `host:port`, for messages.
    pub(crate) fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The `Proxy-Authorization` header value.
    #[cfg(feature = "async")]
    pub(crate) fn authorization(&self) -> Option<&Secret> {
        self.authorization.as_ref()
    }

    /// The proxy as ureq takes it.
    #[cfg(feature = "blocking")]
    pub(crate) fn to_ureq(&self) -> ureq::Proxy {
        self.ureq.clone()
    }
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proxy")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("authorization", &self.authorization)
            .finish()
    }
}

/// `url` as errors show it: no user info, path or query.
fn shown(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    if scheme.is_empty() {
        host.to_string()
    } else {
        format!("{scheme}://{host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_to_host_port_and_credentials() {
        let proxy = Proxy::new("http://proxy.example").unwrap();
        assert_eq!((proxy.host(), proxy.port(), proxy.has_credentials()), ("proxy.example", 80, false));
        let proxy = Proxy::new("HTTP://[::1]:3128/").unwrap();
        assert_eq!((proxy.host(), proxy.port(), proxy.authority().as_str()), ("::1", 3128, "[::1]:3128"));
        let proxy = Proxy::new("http://al%40ce:p%3Ass@127.0.0.1:8080").unwrap();
        // base64("al@ce:p:ss")
        assert_eq!(proxy.authorization.as_ref().map(Secret::expose), Some("Basic YWxAY2U6cDpzcw=="));
        let renamed = proxy.basic_auth("bob", "pw").unwrap();
        assert_eq!(renamed.authorization.as_ref().map(Secret::expose), Some("Basic Ym9iOnB3"));
    }

    #[test]
    fn bad_urls_are_refused_without_their_credentials() {
        for (url, reason) in [
            ("https://user:SECRET@proxy:443", "only http:// proxies are supported"),
            ("socks5://user:SECRET@proxy:1080", "only http:// proxies are supported"),
            ("http://user:SECRET@proxy:3128/path", "a proxy URL has no path or query"),
            ("http://user:SECRET%zz@proxy:3128", "bad user info"),
            ("http://proxy:0", "port 0"),
        ] {
            let error = Proxy::new(url).unwrap_err();
            assert_eq!(error.reason(), reason, "{url}");
            assert!(!format!("{error} {error:?}").contains("SECRET"), "{error}");
        }
        assert!(Proxy::new("not a url with SECRET").is_err());
        assert!(Proxy::new("http://proxy:3128").unwrap().basic_auth("a:b", "c").is_err());
    }
}

//! Name lookup for the blocking transport without a thread per request.
//!
//! ureq asks its resolver for addresses before every request — even one
//! that goes out on a pooled keep-alive connection — and its default
//! resolver, given a resolve timeout, runs each lookup on a fresh thread so
//! it can stop waiting. This one never looks up an IP literal, and keeps a
//! host's addresses for a short while, so a busy client starts a lookup
//! thread at most once per host per [`FRESH_FOR`] instead of once per
//! request. A lookup that does run still honours the connect timeout.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// How long looked-up addresses are reused. Short next to the TTLs
/// provider endpoints publish (minutes), so a moved endpoint is followed
/// promptly; long enough that lookups are rare under load.
pub(super) const FRESH_FOR: Duration = Duration::from_secs(30);

/// Hosts remembered at most; past this the memory starts over (a client
/// talks to a handful of hosts, so this only bounds a pathological one).
const MAX_HOSTS: usize = 256;

/// ureq's resolver with IP literals passed through and recent lookups
/// reused.
#[derive(Debug, Default)]
pub(super) struct CachingResolver {
    lookup: DefaultResolver,
    recent: Mutex<HashMap<String, (ResolvedSocketAddrs, Instant)>>,
}

impl Resolver for CachingResolver {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        // Anything unusual (no host, an unknown scheme) is the default
        // resolver's to refuse in its own words.
        let Some((host, port)) = host_and_port(uri) else { return self.lookup.resolve(uri, config, timeout) };
        if let Ok(ip) = host.parse::<IpAddr>() {
            let mut addrs = self.lookup.empty();
            addrs.push(SocketAddr::new(ip, port));
            return Ok(addrs);
        }
        let key = format!("{host}:{port}");
        if let Some(addrs) = self.fresh(&key) {
            return Ok(addrs);
        }
        let addrs = self.lookup.resolve(uri, config, timeout)?;
        let mut recent = self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if recent.len() >= MAX_HOSTS {
            recent.clear();
        }
        recent.insert(key, (addrs.clone(), Instant::now()));
        Ok(addrs)
    }
}

impl CachingResolver {
    fn fresh(&self, key: &str) -> Option<ResolvedSocketAddrs> {
        let recent = self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        recent.get(key).filter(|(_, at)| at.elapsed() < FRESH_FOR).map(|(addrs, _)| addrs.clone())
    }
}

/// The host (brackets stripped from an IPv6 literal) and port of an http
/// or https URL.
fn host_and_port(uri: &Uri) -> Option<(&str, u16)> {
    let default_port = match uri.scheme_str()? {
        s if s.eq_ignore_ascii_case("http") => 80,
        s if s.eq_ignore_ascii_case("https") => 443,
        _ => return None,
    };
    let host = uri.host().filter(|h| !h.is_empty())?;
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    Some((host, uri.port_u16().unwrap_or(default_port)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(resolver: &CachingResolver, url: &str) -> Result<Vec<SocketAddr>, ureq::Error> {
        let uri: Uri = url.parse().expect("test URL");
        // A timeout is set, as the transport sets one: the default
        // resolver would start a thread for this lookup.
        let timeout = NextTimeout { after: Duration::from_secs(5).into(), ..NextTimeout::default() };
        resolver.resolve(&uri, &Config::default(), timeout).map(|addrs| addrs.to_vec())
    }

    #[test]
    fn ip_literals_are_never_looked_up() {
        let resolver = CachingResolver::default();
        assert_eq!(resolve(&resolver, "http://127.0.0.1:8080/v1").unwrap(), ["127.0.0.1:8080".parse().unwrap()]);
        assert_eq!(resolve(&resolver, "https://[::1]/v1").unwrap(), ["[::1]:443".parse().unwrap()]);
        assert!(resolver.recent.lock().unwrap().is_empty(), "literals are not remembered either");
    }

    #[test]
    fn a_host_is_looked_up_once_and_then_reused() {
        let resolver = CachingResolver::default();
        let first = resolve(&resolver, "http://localhost:9/").unwrap();
        assert!(!first.is_empty());
        let at = resolver.recent.lock().unwrap()["localhost:9"].1;
        assert_eq!(resolve(&resolver, "http://localhost:9/other").unwrap(), first);
        assert_eq!(resolver.recent.lock().unwrap()["localhost:9"].1, at, "the second request reused the lookup");
    }

    #[test]
    fn a_stale_lookup_is_repeated() {
        let resolver = CachingResolver::default();
        resolve(&resolver, "http://localhost:9/").unwrap();
        let long_ago = Instant::now().checked_sub(FRESH_FOR * 2).expect("the clock is past its epoch by a minute");
        resolver.recent.lock().unwrap().get_mut("localhost:9").unwrap().1 = long_ago;
        resolve(&resolver, "http://localhost:9/").unwrap();
        assert!(resolver.recent.lock().unwrap()["localhost:9"].1 > long_ago);
    }

    #[test]
    fn unknown_schemes_are_refused_as_ureq_refuses_them() {
        assert!(resolve(&CachingResolver::default(), "ftp://127.0.0.1/").is_err());
    }
}

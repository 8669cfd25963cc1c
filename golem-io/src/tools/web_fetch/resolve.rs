//! The one name lookup of each request (SPEC WEB-03): ureq asks this
//! resolver for addresses and connects to exactly what it returns, so the
//! addresses vetted here are the ones connected to — a second, rebound
//! answer never reaches the socket.

use super::policy::{AddressClass, Policy};
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// A request refused because its host has a non-public address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{host} resolves to {addr}, a {class} address")]
pub(crate) struct Blocked {
    pub(crate) host: String,
    pub(crate) addr: std::net::IpAddr,
    pub(crate) class: AddressClass,
}

/// Resolves with the system resolver, then refuses the request when any
/// address is denied by the policy.
pub(crate) struct VettingResolver {
    pub(crate) policy: Arc<Policy>,
}

impl fmt::Debug for VettingResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VettingResolver").field("policy", &self.policy).finish()
    }
}

impl Resolver for VettingResolver {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = DefaultResolver::default().resolve(uri, config, timeout)?;
        let host = uri.host().unwrap_or_default();
        vet(&self.policy, host, &addrs).map_err(|blocked| ureq::Error::Other(Box::new(blocked)))?;
        Ok(addrs)
    }
}

/// Every address must pass: one denied address refuses the request, so a
/// name with mixed answers cannot be raced onto the private one.
pub(crate) fn vet(policy: &Policy, host: &str, addrs: &[SocketAddr]) -> Result<(), Blocked> {
    for addr in addrs {
        if let Some(class) = policy.deny(host, addr.ip()) {
            return Err(Blocked { host: host.to_string(), addr: addr.ip(), class });
        }
    }
    Ok(())
}

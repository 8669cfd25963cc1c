//! Which addresses a fetch may reach (SPEC WEB-03): every non-public range
//! is denied unless the configuration opts in.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// Why an address is not public.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddressClass {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// 10/8, 172.16/12, 192.168/16, fc00::/7 (and the deprecated fec0::/10).
    Private,
    /// 169.254/16 (cloud metadata lives here), fe80::/10.
    LinkLocal,
    /// 100.64/10, carrier-grade NAT.
    SharedAddressSpace,
    /// 0.0.0.0/8, ::.
    Unspecified,
    /// 224/4, ff00::/8.
    Multicast,
    /// 255.255.255.255.
    Broadcast,
    /// 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20.
    Documentation,
    /// 198.18/15, 2001:2::/48.
    Benchmarking,
    /// Everything else outside the public unicast space: 192.0.0/24,
    /// 192.88.99/24, 240/4, ::/96, 100::/64, 2001::/23, 64:ff9b:1::/48, and
    /// IPv6 outside 2000::/3.
    Reserved,
}

impl AddressClass {
    /// True for the ranges [`allow_private_networks`](super::WebFetchBuilder::allow_private_networks)
    /// opens: loopback, private, link-local and shared address space.
    pub fn is_private_network(self) -> bool {
        matches!(
            self,
            AddressClass::Loopback | AddressClass::Private | AddressClass::LinkLocal | AddressClass::SharedAddressSpace
        )
    }

    /// The words a failed result uses ("a {label} address").
    pub fn label(self) -> &'static str {
        match self {
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::LinkLocal => "link-local",
            AddressClass::SharedAddressSpace => "shared (carrier-grade NAT)",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Multicast => "multicast",
            AddressClass::Broadcast => "broadcast",
            AddressClass::Documentation => "documentation",
            AddressClass::Benchmarking => "benchmarking",
            AddressClass::Reserved => "reserved",
        }
    }
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The class of a non-public address, or `None` for a public one.
/// IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) and 6to4
/// (`2002:aabb:ccdd::`) addresses are judged by the IPv4 address they carry.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let [a, b, c, _] = ip.octets();
    let class = match (a, b, c) {
        _ if ip == Ipv4Addr::BROADCAST => Broadcast,
        (0, _, _) => Unspecified,
        (10, _, _) => Private,
        (100, 64..=127, _) => SharedAddressSpace,
        (127, _, _) => Loopback,
        (169, 254, _) => LinkLocal,
        (172, 16..=31, _) => Private,
        (192, 0, 0) => Reserved,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => Documentation,
        (192, 88, 99) => Reserved,
        (192, 168, _) => Private,
        (198, 18..=19, _) => Benchmarking,
        (224..=239, _, _) => Multicast,
        (240..=255, _, _) => Reserved,
        _ => return None,
    };
    Some(class)
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return classify_v4(embedded_v4(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return classify_v4(embedded_v4(s[1], s[2]));
    }
    let class = match s {
        [0, 0, 0, 0, 0, 0, 0, 0] => Unspecified,
        [0, 0, 0, 0, 0, 0, 0, 1] => Loopback,
        [0x2001, 0xdb8, ..] => Documentation,
        [0x2001, 0x2, 0, ..] => Benchmarking,
        [0x2001, 0..=0x1ff, ..] => Reserved,
        [0x3fff, 0..=0x0fff, ..] => Documentation,
        [x, ..] if (0x2000..=0x3fff).contains(&x) => return None,
        [x, ..] if x & 0xfe00 == 0xfc00 => Private,
        [x, ..] if x & 0xffc0 == 0xfe80 => LinkLocal,
        [x, ..] if x & 0xffc0 == 0xfec0 => Private,
        [x, ..] if x & 0xff00 == 0xff00 => Multicast,
        _ => Reserved,
    };
    Some(class)
}

fn embedded_v4(high: u16, low: u16) -> Ipv4Addr {
    let [a, b] = high.to_be_bytes();
    let [c, d] = low.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`) or a
/// single address (`192.168.1.20`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpRange {
    network: IpAddr,
    prefix: u8,
}

impl IpRange {
    /// True when `ip` lies in the range. An IPv4-mapped IPv6 address is
    /// matched as the IPv4 address it carries.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = unmap(ip);
        match (self.network, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => prefix_eq(&net.octets(), &ip.octets(), self.prefix),
            (IpAddr::V6(net), IpAddr::V6(ip)) => prefix_eq(&net.octets(), &ip.octets(), self.prefix),
            _ => false,
        }
    }
}

fn unmap(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

fn prefix_eq(a: &[u8], b: &[u8], prefix: u8) -> bool {
    let full = usize::from(prefix / 8);
    let rest = prefix % 8;
    if a[..full] != b[..full] {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    a[full] & mask == b[full] & mask
}

/// An [`IpRange`] that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an IP address or CIDR range")]
pub struct InvalidRange(pub String);

impl FromStr for IpRange {
    type Err = InvalidRange;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidRange(s.to_string());
        let (addr, prefix) = match s.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (s, None),
        };
        let network = unmap(addr.trim().parse::<IpAddr>().map_err(|_| invalid())?);
        let max = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p.trim().parse::<u8>().ok().filter(|p| *p <= max).ok_or_else(invalid)?,
            None => max,
        };
        Ok(IpRange { network, prefix })
    }
}

impl fmt::Display for IpRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

/// The address policy of one fetcher.
#[derive(Clone, Debug, Default)]
pub(crate) struct Policy {
    pub(crate) allow_private_networks: bool,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_ranges: Vec<IpRange>,
}

impl Policy {
    /// Why `host` may not be reached at `ip`, if it may not.
    pub(crate) fn deny(&self, host: &str, ip: IpAddr) -> Option<AddressClass> {
        let class = classify(ip)?;
        let host = host.trim_start_matches('[').trim_end_matches(']').trim_end_matches('.');
        let allowed = (self.allow_private_networks && class.is_private_network())
            || self.allowed_hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
            || self.allowed_ranges.iter().any(|r| r.contains(ip));
        (!allowed).then_some(class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> Option<AddressClass> {
        classify(s.parse().unwrap())
    }

    #[test]
    fn public_addresses_pass() {
        for ip in ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::1", "172.32.0.1"] {
            assert_eq!(class(ip), None, "{ip}");
        }
    }

    #[test]
    fn embedded_forms_are_judged_by_their_ipv4() {
        assert_eq!(class("::ffff:127.0.0.1"), Some(AddressClass::Loopback));
        assert_eq!(class("64:ff9b::a9fe:a9fe"), Some(AddressClass::LinkLocal));
        assert_eq!(class("2002:0a00:0001::"), Some(AddressClass::Private));
        assert_eq!(class("64:ff9b:1::1"), Some(AddressClass::Reserved));
    }

    #[test]
    fn ranges_parse_and_match() {
        let r: IpRange = "10.0.0.0/8".parse().unwrap();
        assert!(r.contains("10.1.2.3".parse().unwrap()));
        assert!(r.contains("::ffff:10.1.2.3".parse().unwrap()));
        assert!(!r.contains("11.0.0.1".parse().unwrap()));
        let r: IpRange = "fd00::/9".parse().unwrap();
        assert!(r.contains("fd7f::1".parse().unwrap()));
        assert!(!r.contains("fd80::1".parse().unwrap()));
        assert!("10.0.0.0/33".parse::<IpRange>().is_err());
        assert!("example.com".parse::<IpRange>().is_err());
        assert_eq!("127.0.0.1".parse::<IpRange>().unwrap().to_string(), "127.0.0.1/32");
    }
}

//! The blocking transport (ureq) against loopback servers.

use crate::server;
use crate::transports;

const KIND: transports::Kind = transports::Kind::Blocking;

include!("support/transport_cases.rs");

#[test]
fn the_blocking_transport_says_it_honours_a_requests_timeout() {
    use golem_providers::transport::{Transport, UreqTransport};
    assert!(UreqTransport::default().honours_timeout());
}

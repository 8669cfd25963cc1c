//! The blocking transport (ureq) against loopback servers.

#[path = "support/server.rs"]
mod server;
#[path = "support/transports.rs"]
mod transports;

const KIND: transports::Kind = transports::Kind::Blocking;

include!("support/transport_cases.rs");

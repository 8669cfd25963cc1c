//! The async transport (ureq-proto over async-io) against loopback servers.

#[path = "support/server.rs"]
mod server;
#[path = "support/transports.rs"]
mod transports;

const KIND: transports::Kind = transports::Kind::Async;

include!("support/transport_cases.rs");

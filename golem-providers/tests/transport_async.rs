//! The async transport (ureq-proto over async-io) against loopback servers.

use crate::server;
use crate::transports;

const KIND: transports::Kind = transports::Kind::Async;

include!("support/transport_cases.rs");

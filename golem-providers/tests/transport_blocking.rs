//! The blocking transport (ureq) against loopback servers.

use crate::server;
use crate::transports;

const KIND: transports::Kind = transports::Kind::Blocking;

include!("support/transport_cases.rs");

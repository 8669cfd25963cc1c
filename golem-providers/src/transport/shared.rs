//! Process-wide default transports, so every client built without an
//! explicit transport shares one connection pool per kind.

use super::TransportConfig;
#[cfg(feature = "async")]
use super::{AsyncIoTransport, AsyncTransport};
#[cfg(feature = "blocking")]
use super::{Transport, UreqTransport};
use std::sync::{Arc, OnceLock};

/// The shared blocking transport with the default [`TransportConfig`].
#[cfg(feature = "blocking")]
pub fn shared_blocking() -> Arc<dyn Transport> {
    static SHARED: OnceLock<Arc<UreqTransport>> = OnceLock::new();
    SHARED.get_or_init(|| Arc::new(UreqTransport::new(TransportConfig::default()))).clone()
}

/// The shared async transport with the default [`TransportConfig`].
#[cfg(feature = "async")]
pub fn shared_async() -> Arc<dyn AsyncTransport> {
    static SHARED: OnceLock<Arc<AsyncIoTransport>> = OnceLock::new();
    SHARED.get_or_init(|| Arc::new(AsyncIoTransport::new(TransportConfig::default()))).clone()
}

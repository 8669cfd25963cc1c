//! What the pieces of the async transport share without importing each
//! other: where a connection goes, and how much is read from it at a time.

/// Bytes asked of the socket per read.
pub(crate) const READ_CHUNK: usize = 16 * 1024;

/// Where a connection goes; also the pool's key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Target {
    pub(crate) tls: bool,
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl Target {
    /// `host:port`, for error messages.
    pub(crate) fn display(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

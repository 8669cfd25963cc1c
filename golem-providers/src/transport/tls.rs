//! The rustls client configuration of the async transport: ring, the
//! webpki roots plus any configured extras, HTTP/1.1 by ALPN.

use super::config::TransportConfig;
use super::error::TransportError;
use rustls::{ClientConfig, RootCertStore};
use std::sync::Arc;

/// Build the client configuration. Extra roots that do not parse are
/// skipped, as ureq does, so both transports trust the same set; a server
/// presenting such a certificate then fails verification.
pub(crate) fn client_config(config: &TransportConfig) -> Result<Arc<ClientConfig>, TransportError> {
    let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    roots.add_parsable_certificates(config.extra_roots.0.iter().cloned());
    let provider = super::crypto::tls_provider();
    let mut tls = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TransportError::Tls { host: String::new(), detail: e.to_string() })?
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(tls))
}

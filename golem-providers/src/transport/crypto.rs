//! The rustls `CryptoProvider` both transports use: the one the application
//! installed as its process default (`CryptoProvider::install_default`,
//! e.g. aws-lc-rs for FIPS or post-quantum key exchange), or else one built
//! on *ring*.
//!
//! The *ring* provider is assembled here from rustls' public *ring* pieces —
//! cipher suites, key-exchange groups, signing keys — and webpki's *ring*
//! verification algorithms, because rustls 0.23.48 deprecated its
//! ready-made `ring::default_provider()` (it offers no post-quantum key
//! exchange). golem keeps *ring* for its builds: aws-lc-rs compiles C for
//! minutes. Nothing here is cryptography; it only names which *ring*
//! implementations rustls may use. Installing nothing process-wide: an
//! application's later `install_default` still wins.

use rustls::crypto::ring::{sign, DEFAULT_CIPHER_SUITES, DEFAULT_KX_GROUPS};
use rustls::crypto::{CryptoProvider, GetRandomFailed, KeyProvider, SecureRandom, WebPkiSupportedAlgorithms};
use rustls::pki_types::PrivateKeyDer;
use rustls::sign::SigningKey;
use rustls::SignatureScheme;
use std::sync::{Arc, OnceLock};
use webpki::ring as alg;

/// The provider for a new TLS configuration.
pub fn tls_provider() -> Arc<CryptoProvider> {
    if let Some(installed) = CryptoProvider::get_default() {
        return Arc::clone(installed);
    }
    static RING: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    Arc::clone(RING.get_or_init(|| Arc::new(ring_provider())))
}

fn ring_provider() -> CryptoProvider {
    CryptoProvider {
        cipher_suites: DEFAULT_CIPHER_SUITES.to_vec(),
        kx_groups: DEFAULT_KX_GROUPS.to_vec(),
        signature_verification_algorithms: VERIFY,
        secure_random: &Ring,
        key_provider: &Ring,
    }
}

/// Randomness and private keys from *ring*.
#[derive(Debug)]
struct Ring;

impl SecureRandom for Ring {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        use ring::rand::SecureRandom as _;
        ring::rand::SystemRandom::new().fill(buf).map_err(|_| GetRandomFailed)
    }
}

impl KeyProvider for Ring {
    fn load_private_key(&self, key_der: PrivateKeyDer<'static>) -> Result<Arc<dyn SigningKey>, rustls::Error> {
        sign::any_supported_type(&key_der)
    }
}

/// The certificate signature algorithms webpki verifies with *ring*, and
/// which of them each TLS signature scheme may use (for TLS 1.2 the curve is
/// not fixed by the scheme, so ECDSA schemes accept either curve).
static VERIFY: WebPkiSupportedAlgorithms = WebPkiSupportedAlgorithms {
    all: &[
        alg::ECDSA_P256_SHA256,
        alg::ECDSA_P256_SHA384,
        alg::ECDSA_P384_SHA256,
        alg::ECDSA_P384_SHA384,
        alg::ED25519,
        alg::RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
        alg::RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
        alg::RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
        alg::RSA_PKCS1_2048_8192_SHA256,
        alg::RSA_PKCS1_2048_8192_SHA384,
        alg::RSA_PKCS1_2048_8192_SHA512,
        alg::RSA_PKCS1_2048_8192_SHA256_ABSENT_PARAMS,
        alg::RSA_PKCS1_2048_8192_SHA384_ABSENT_PARAMS,
        alg::RSA_PKCS1_2048_8192_SHA512_ABSENT_PARAMS,
    ],
    mapping: &[
        (SignatureScheme::ECDSA_NISTP384_SHA384, &[alg::ECDSA_P384_SHA384, alg::ECDSA_P256_SHA384]),
        (SignatureScheme::ECDSA_NISTP256_SHA256, &[alg::ECDSA_P256_SHA256, alg::ECDSA_P384_SHA256]),
        (SignatureScheme::ED25519, &[alg::ED25519]),
        (SignatureScheme::RSA_PSS_SHA512, &[alg::RSA_PSS_2048_8192_SHA512_LEGACY_KEY]),
        (SignatureScheme::RSA_PSS_SHA384, &[alg::RSA_PSS_2048_8192_SHA384_LEGACY_KEY]),
        (SignatureScheme::RSA_PSS_SHA256, &[alg::RSA_PSS_2048_8192_SHA256_LEGACY_KEY]),
        (SignatureScheme::RSA_PKCS1_SHA512, &[alg::RSA_PKCS1_2048_8192_SHA512]),
        (SignatureScheme::RSA_PKCS1_SHA384, &[alg::RSA_PKCS1_2048_8192_SHA384]),
        (SignatureScheme::RSA_PKCS1_SHA256, &[alg::RSA_PKCS1_2048_8192_SHA256]),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_provider_offers_what_rustls_ring_offered() {
        let provider = ring_provider();
        assert!(!provider.cipher_suites.is_empty() && !provider.kx_groups.is_empty());
        assert_eq!(provider.signature_verification_algorithms.mapping.len(), 9);
        // Its randomness works and its config builds.
        let mut bytes = [0u8; 32];
        provider.secure_random.fill(&mut bytes).unwrap();
        assert_ne!(bytes, [0u8; 32]);
        assert!(rustls::ClientConfig::builder_with_provider(Arc::new(provider))
            .with_safe_default_protocol_versions()
            .is_ok());
    }
}

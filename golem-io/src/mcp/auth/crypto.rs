//! The few cryptographic pieces of the flow, all from ring (already built
//! for rustls): random state and PKCE verifiers, the S256 challenge
//! (RFC 7636), and ES256-signed client assertions (RFC 7523) for
//! `private_key_jwt`. Nothing here is written by hand but the JWS framing.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::PrivatePkcs8KeyDer;
use serde_json::{json, Value};
use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// `n` random bytes, base64url: 32 give a 43-character PKCE verifier.
pub(crate) fn random_token(n: usize) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    SystemRandom::new().fill(&mut bytes).map_err(|_| "the system random source failed".to_string())?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// The S256 code challenge of a PKCE verifier.
pub(crate) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes()))
}

/// A private key for `private_key_jwt` client authentication. `Debug`
/// shows only the algorithm.
///
/// ```
/// use golem_io::mcp::SigningKey;
///
/// assert!(SigningKey::es256_pem("not a key").is_err());
/// ```
#[derive(Clone)]
pub struct SigningKey {
    pair: Arc<EcdsaKeyPair>,
}

impl SigningKey {
    /// An ES256 (P-256) key from a PKCS#8 PEM document (`-----BEGIN
    /// PRIVATE KEY-----`). The error says why, never what the key holds.
    pub fn es256_pem(pem: &str) -> Result<SigningKey, String> {
        let der = PrivatePkcs8KeyDer::from_pem_slice(pem.as_bytes())
            .map_err(|_| "not a PKCS#8 PEM private key".to_string())?;
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der.secret_pkcs8_der(), &SystemRandom::new())
                .map_err(|_| "not a P-256 private key usable for ES256".to_string())?;
        Ok(SigningKey { pair: Arc::new(pair) })
    }

    /// A signed client assertion (RFC 7523 §3): issuer and subject the
    /// client, audience the authorization server, valid five minutes.
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<String, String> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
        let claims = json!({
            "iss": client_id, "sub": client_id, "aud": audience,
            "iat": now, "exp": now + 300, "jti": random_token(16)?,
        });
        self.sign(&json!({"alg": "ES256", "typ": "JWT"}), &claims)
    }

    fn sign(&self, header: &Value, claims: &Value) -> Result<String, String> {
        let input =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| "signing the client assertion failed".to_string())?;
        Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())))
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(ES256, [redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{KeyPair, UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    #[test]
    fn the_s256_challenge_is_rfc_7636s_example() {
        // RFC 7636 appendix B.
        assert_eq!(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        let verifier = random_token(32).unwrap();
        assert_eq!(verifier.len(), 43);
        assert_ne!(verifier, random_token(32).unwrap());
    }

    #[test]
    fn assertions_verify_with_the_public_key() {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            base64::engine::general_purpose::STANDARD.encode(pkcs8.as_ref())
        );
        let key = SigningKey::es256_pem(&pem).unwrap();
        let jwt = key.assertion("client-1", "https://as.example.com").unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(
            (claims["iss"].as_str(), claims["aud"].as_str()),
            (Some("client-1"), Some("https://as.example.com"))
        );
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, key.pair.public_key().as_ref().to_vec());
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        public.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature).unwrap();
        assert!(!format!("{key:?}").contains(&pem[30..60]));
    }
}

//! Request identity (SPEC DUR-05): a service that holds Restate's public
//! keys answers only requests Restate signed with the matching private key.
//!
//! Restate signs every request it sends a deployment — discovery and
//! invocations alike — with a short-lived JWT (ed25519) when the server is
//! given a private key (`request-identity-private-key-pem-file` in its
//! `[worker.invoker]` section). The SDK verifies it against the public
//! keys the endpoint holds (`publickeyv1_…`, base58) and refuses an
//! unsigned or badly signed request with 401. Without a key the service
//! answers anything that reaches its port — start runs, approve calls —
//! so a service reachable beyond its host must have one.

use restate_sdk::endpoint::Endpoint;

/// A request-identity public key the service refused: not a
/// `publickeyv1_` key of 32 base58-encoded bytes.
#[derive(Debug, thiserror::Error)]
#[error("not a Restate request-identity public key: {0}")]
pub struct IdentityKeyError(String);

/// `key`, checked the way the SDK will read it.
pub(crate) fn checked(key: &str) -> Result<String, IdentityKeyError> {
    match Endpoint::builder().identity_key(key) {
        Ok(_) => Ok(key.to_string()),
        Err(error) => Err(IdentityKeyError(error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_when_given() {
        // 32 zero bytes, base58: a well-formed key.
        let key = format!("publickeyv1_{}", "1".repeat(32));
        assert_eq!(checked(&key).unwrap(), key);
        for bad in
            ["", "publickeyv1_", "ChjENKeMvCtRnqG2mrBK1HmPKufgFUc98K8B3ononQvp", "publickeyv1_0OIl", "publickeyv1_abc"]
        {
            let error = checked(bad).unwrap_err();
            assert!(error.to_string().starts_with("not a Restate request-identity public key"), "{bad:?}: {error}");
        }
    }
}

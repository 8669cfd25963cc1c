//! Where the signing credentials come from (SPEC PROV-BR-01, ERR-06).
//!
//! The codec signs with whatever a [`CredentialsProvider`] hands it, once
//! per request, so credentials that rotate (an STS session, an instance
//! role refreshed by the application) are picked up without rebuilding the
//! client. golem itself reads only explicit values and, in `from_env`, the
//! three `AWS_*` variables — no profile files, SSO or metadata service: a
//! provider is where an application plugs those in.

use crate::sigv4::Credentials;
use std::fmt;
use std::sync::Arc;

/// A source of AWS credentials, asked once per request.
///
/// It is called on the request path, under the blocking and the async
/// driver alike, so it must answer quickly: hand out cached credentials and
/// refresh them ahead of expiry (on your own thread or timer), rather than
/// fetching on every call. Fixed [`Credentials`] are a provider, and so is
/// any `Fn() -> Result<Credentials, CredentialsError>`.
///
/// ```
/// use golem_providers::bedrock::{CredentialsError, CredentialsProvider};
/// use golem_providers::sigv4::Credentials;
/// use std::sync::{Arc, RwLock};
///
/// // An application-owned cache its refresher thread writes to.
/// let cache = Arc::new(RwLock::new(Some(Credentials::new("AKIDEXAMPLE", "secret"))));
/// let reader = Arc::clone(&cache);
/// let provider = move || {
///     reader.read().ok().and_then(|c| c.clone()).ok_or_else(|| CredentialsError::new("not refreshed yet").retryable(true))
/// };
/// assert!(provider.credentials().is_ok());
/// ```
pub trait CredentialsProvider: Send + Sync {
    /// The credentials to sign the next request with.
    fn credentials(&self) -> Result<Credentials, CredentialsError>;
}

impl CredentialsProvider for Credentials {
    fn credentials(&self) -> Result<Credentials, CredentialsError> {
        Ok(self.clone())
    }
}

impl<F> CredentialsProvider for F
where
    F: Fn() -> Result<Credentials, CredentialsError> + Send + Sync,
{
    fn credentials(&self) -> Result<Credentials, CredentialsError> {
        self()
    }
}

impl<P: CredentialsProvider + ?Sized> CredentialsProvider for Arc<P> {
    fn credentials(&self) -> Result<Credentials, CredentialsError> {
        (**self).credentials()
    }
}

/// Why a provider has no credentials to give. It becomes the call's
/// error (kind `Auth`), retryable when the provider says a later attempt
/// may find fresh ones. Its message must not contain secrets.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no AWS credentials: {message}")]
pub struct CredentialsError {
    message: String,
    retryable: bool,
}

impl CredentialsError {
    /// A failure described by `message` (not retryable).
    pub fn new(message: impl Into<String>) -> Self {
        CredentialsError { message: message.into(), retryable: false }
    }

    /// Builder-style: whether another attempt may succeed (a refresh in
    /// flight, a transient failure of the credential source).
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether another attempt may succeed.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }
}

/// A shared provider, as configs hold it; formats as a placeholder so no
/// debug output can reach into what it holds.
#[derive(Clone)]
pub(crate) struct SharedProvider(pub(crate) Arc<dyn CredentialsProvider>);

/// Until credentials are set: a provider with none to give.
impl Default for SharedProvider {
    fn default() -> Self {
        SharedProvider(Arc::new(|| Err(CredentialsError::new("no credentials are configured"))))
    }
}

impl fmt::Debug for SharedProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CredentialsProvider([redacted])")
    }
}

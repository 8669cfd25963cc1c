//! Where an Azure deployment's requests go (SPEC PROV-AZ-01):
//! `POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version={version}`
//! with deployment and version percent-encoded, the body without `model`
//! (the deployment names it), and `api-key` or a bearer token as a secret
//! header.

use super::config::{Auth, AzureOptions, Config};
use crate::chat_completions::{ChatFamily, Dialect, Endpoint};
use crate::percent;
use crate::secret::Secret;

/// The chat-completions URL of the configured deployment.
pub fn url(config: &Config) -> String {
    format!(
        "{}/openai/deployments/{}/chat/completions?api-version={}",
        config.endpoint(),
        percent::encode(config.deployment()),
        percent::encode(config.api_version())
    )
}

impl ChatFamily for AzureOptions {
    fn endpoint(config: &Config) -> Endpoint {
        let auth = match config.auth() {
            Some(Auth::ApiKey(key)) => Some(("api-key", key)),
            Some(Auth::Bearer(token)) => Some(("authorization", Secret::new(format!("Bearer {}", token.expose())))),
            None => None,
        };
        Endpoint::new(url(config), auth)
    }

    fn names_model() -> bool {
        false
    }

    fn dialect(config: &Config) -> &Dialect {
        config.dialect()
    }
}

//! Where an Azure deployment's requests go (SPEC PROV-AZ-01):
//! `POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version={version}`
//! with deployment and version percent-encoded, the body without `model`
//! (the deployment names it), and `api-key` or a bearer token as a secret
//! header.

use super::config::{Auth, AzureOptions, Config};
use crate::chat_completions::{ChatFamily, Dialect, EmbedRoute, Endpoint};
use crate::percent;
use crate::secret::Secret;
use golem_core::model::ModelError;

/// The chat-completions URL of the configured deployment.
pub fn url(config: &Config) -> String {
    deployment_url(config, "chat/completions")
}

/// The URL of `operation` on the configured deployment.
fn deployment_url(config: &Config, operation: &str) -> String {
    format!(
        "{}/openai/deployments/{}/{operation}?api-version={}",
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

    /// The deployment's `embeddings` (the deployment names the model), or
    /// with api-version `v1` the v1 API of Azure AI Foundry:
    /// `{endpoint}/openai/v1/embeddings` with the model (the deployment
    /// setting) in the body.
    fn embed_route(config: &Config) -> Result<EmbedRoute, ModelError> {
        Ok(if config.api_version() == "v1" {
            EmbedRoute::new(
                format!("{}/openai/v1/embeddings", config.endpoint()),
                Some(config.deployment().to_string()),
            )
        } else {
            EmbedRoute::new(deployment_url(config, "embeddings"), None)
        })
    }
}

//! Where an OpenAI-compatible service's requests go (SPEC PROV-OAI-01):
//! `POST {base}/chat/completions`, `Authorization: Bearer <key>` as a
//! secret header, none when a local preset has no key.

use super::config::{Config, OpenAiOptions};
use super::Preset;
use crate::chat_completions::{ChatFamily, Dialect, EmbedRoute, Endpoint};
use crate::secret::Secret;
use golem_core::model::{ModelError, ModelErrorKind};

impl ChatFamily for OpenAiOptions {
    fn endpoint(config: &Config) -> Endpoint {
        let bearer = config.api_key().map(|key| ("authorization", Secret::new(format!("Bearer {}", key.expose()))));
        Endpoint::new(format!("{}/chat/completions", config.base_url()), bearer)
    }

    fn names_model() -> bool {
        true
    }

    fn dialect(config: &Config) -> &Dialect {
        config.dialect()
    }

    /// `{base}/embeddings` with the model in the body; base64 vectors from
    /// OpenAI itself, floats from compatible servers (not all of them
    /// decode the base64 option).
    fn embed_route(config: &Config) -> Result<EmbedRoute, ModelError> {
        let preset = config.preset();
        if !preset.serves_embeddings() {
            return Err(ModelError::new(
                ModelErrorKind::Unsupported,
                format!("the {} preset has no embeddings endpoint", preset.name),
            ));
        }
        let base64 = config.base_url() == Preset::openai().base_url;
        Ok(EmbedRoute::new(format!("{}/embeddings", config.base_url()), Some(config.model().to_string()))
            .with_base64(base64))
    }
}

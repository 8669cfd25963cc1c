//! Where an OpenAI-compatible service's requests go (SPEC PROV-OAI-01):
//! `POST {base}/chat/completions`, `Authorization: Bearer <key>` as a
//! secret header, none when a local preset has no key.

use super::config::{Config, OpenAiOptions};
use crate::chat_completions::{ChatFamily, Dialect, Endpoint};
use crate::secret::Secret;

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
}

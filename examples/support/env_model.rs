//! Shared by the examples that run offline unless a real endpoint is
//! configured: `OPENAI_API_KEY` (OpenAI) or `OPENAI_BASE_URL` (any
//! OpenAI-compatible server, key optional there; `OPENAI_MODEL` picks the
//! model, default gpt-4o-mini).

use golem_io::Model;
use golem_providers::OpenAi;
use std::sync::Arc;

/// A model, and a line naming it for the user.
pub type NamedModel = (Arc<dyn Model>, String);

/// The configured endpoint, or `None` when the environment names none (the
/// caller then uses its offline model).
pub fn configured() -> Result<Option<NamedModel>, Box<dyn std::error::Error>> {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    if !set("OPENAI_API_KEY") && !set("OPENAI_BASE_URL") {
        return Ok(None);
    }
    let client = OpenAi::from_env()?;
    let label = format!("{} at {}", client.config().model(), client.config().base_url());
    Ok(Some((Arc::new(client), label)))
}

//! Fallback (SPEC EX-18): a primary and a fallback model, retries with
//! backoff (and Retry-After honoured), and a bound on the requests a run
//! may make. A retryable failure of the primary moves the attempt to the
//! fallback; a run that would exceed the bound stops at the usage stage.
//!
//! Needs `OPENAI_API_KEY`, `OPENAI_MODEL` (the primary) and
//! `OPENAI_FALLBACK_MODEL`; `OPENAI_BASE_URL` optionally.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_io::{EventKind, RetryPolicy, UsageLimits};
use golem_providers::openai::{Config, ConfigError, Preset};
use golem_providers::OpenAi;

/// An OpenAI client for `model`; `OPENAI_BASE_URL` points both models at
/// another compatible endpoint.
fn client(model: &str) -> Result<OpenAi, ConfigError> {
    let mut config = Config::builder(Preset::openai(), model).key_from_env(credentials::var);
    if let Some(url) = credentials::var("OPENAI_BASE_URL") {
        config = config.base_url(url);
    }
    Ok(OpenAi::new(config.build()?))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let needs = ["OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_FALLBACK_MODEL"];
    if !credentials::present("fallback", &needs) {
        return Ok(());
    }
    let primary = credentials::var("OPENAI_MODEL").unwrap_or_default();
    let secondary = credentials::var("OPENAI_FALLBACK_MODEL").unwrap_or_default();
    let agent = Agent::<()>::builder(client(&primary)?)
        .fallback(client(&secondary)?)
        .retry_policy(RetryPolicy::recommended())
        .usage_limits(UsageLimits::new().requests(6))
        .observer(|event| {
            if let EventKind::Retrying { attempt, delay, cause, .. } = &event.kind {
                println!("attempt {attempt} failed ({cause}); retrying in {delay:?}");
            }
        })
        .build()?;
    println!("primary {primary}, fallback {secondary}, at most 6 requests");

    let result = agent.run((), "Name the three primary colours, comma-separated.")?;
    println!("output: {}", result.output);
    println!("requests: {}", result.requests);
    Ok(())
}

//! Structured output, native mode (SPEC EX-10): the answer is a typed
//! value whose JSON schema is derived from the type and sent as OpenAI's
//! `response_format` (the provider supports a schema alongside tools, so
//! `output::<T>()` picks native mode).
//!
//! Needs `OPENAI_API_KEY`; `OPENAI_MODEL` picks the model.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_io::OutputMode;
use golem_providers::OpenAi;

/// A city profile, as the model must return it.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // read through Debug
struct CityProfile {
    /// The city's name.
    city: String,
    /// The country it is in.
    country: String,
    /// Its population, roughly.
    population: u64,
    /// Three landmarks.
    landmarks: Vec<String>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("structured-output", &["OPENAI_API_KEY"]) {
        return Ok(());
    }
    let agent = Agent::<()>::builder(OpenAi::from_env()?).output::<CityProfile>().build()?;
    let mode = if matches!(agent.config().output, OutputMode::Native { .. }) { "native" } else { "tool" };
    println!("output mode: {mode}");

    let result = agent.run((), "Give me a profile of Lagos.")?;
    println!("{:#?}", result.output);
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

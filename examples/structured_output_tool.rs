//! Structured output, tool mode (SPEC EX-11): the same typed answer as
//! `structured-output`, requested through an output tool whose parameters
//! are the type's derived schema; the model's call to it ends the run.
//!
//! Needs `OPENAI_API_KEY`; `OPENAI_MODEL` picks the model.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::{Agent, OUTPUT_TOOL_DESCRIPTION, OUTPUT_TOOL_NAME};
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
    if !credentials::present("structured-output-tool", &["OPENAI_API_KEY"]) {
        return Ok(());
    }
    let schema = serde_json::to_value(schemars::schema_for!(CityProfile))?;
    let agent = Agent::<()>::builder(OpenAi::from_env()?)
        .output::<CityProfile>()
        .output_tool(OUTPUT_TOOL_NAME, OUTPUT_TOOL_DESCRIPTION, schema)
        .build()?;
    println!("output mode: tool ({OUTPUT_TOOL_NAME})");

    let result = agent.run((), "Give me a profile of Lagos.")?;
    println!("{:#?}", result.output);
    println!("{} messages, {} requests", result.messages.len(), result.requests);
    Ok(())
}

//! Quickstart: an agent with a typed tool reading a run dependency,
//! printing the output, message count and usage.
//!
//! With `OPENAI_API_KEY` or `OPENAI_BASE_URL` set it talks to a real
//! OpenAI-compatible endpoint (model from `OPENAI_MODEL`, default
//! gpt-4o-mini; `OPENAI_BASE_URL` for a local or self-hosted server, key
//! optional there). Without either it runs on golem's offline `TestModel`,
//! which calls every tool with schema-valid arguments, then answers.

use golem_io::testing::TestModel;
use golem_io::{Agent, Model, Tool, ToolContext, ToolError};
use std::sync::Arc;

#[path = "support/env_model.rs"]
mod env_model;

/// The run's dependencies, shared by every tool call of the run.
struct Settings {
    units: &'static str,
}

/// The tool's arguments; the schema the model sees is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ForecastArgs {
    /// The city to forecast.
    city: String,
}

fn forecast(ctx: ToolContext<Settings>, args: ForecastArgs) -> Result<String, ToolError> {
    Ok(format!("{}: sunny, 31 {}", args.city, ctx.deps().units))
}

/// A real endpoint when the environment names one, else the offline fake.
fn model() -> Result<(Arc<dyn Model>, String), Box<dyn std::error::Error>> {
    if let Some(configured) = env_model::configured()? {
        return Ok(configured);
    }
    let fake = TestModel::new().answer_text("Pack sunglasses.");
    Ok((Arc::new(fake), "the offline TestModel (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)".into()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (model, label) = model()?;
    println!("model: {label}");
    let agent = Agent::builder(model)
        .instructions("You are a concise weather assistant.")
        .tool(Tool::typed("forecast", "Today's forecast for a city.", forecast))
        .build()?;

    let result = agent.run(Settings { units: "°C" }, "What should I pack for Lagos?")?;

    println!("output: {}", result.output);
    println!("messages: {}", result.messages.len());
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

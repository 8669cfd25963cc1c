//! Quickstart: an agent with a typed tool reading a run dependency, run on
//! golem's offline `TestModel` (which calls every tool with schema-valid
//! arguments, then answers), printing the output, message count and usage.
//!
//! Swap `TestModel` for a provider from `golem-providers` to talk to a real
//! model; nothing else changes.

use golem_core::testing::TestModel;
use golem_io::{Agent, Tool, ToolContext, ToolError};

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

fn forecast(ctx: &ToolContext<Settings>, args: ForecastArgs) -> Result<String, ToolError> {
    Ok(format!("{}: sunny, 31 {}", args.city, ctx.deps().units))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let agent = Agent::builder(TestModel::new().answer_text("Pack sunglasses."))
        .instructions("You are a concise weather assistant.")
        .tool(Tool::typed("forecast", "Today's forecast for a city.", forecast))
        .build()?;

    let result = agent.run(Settings { units: "°C" }, "What should I pack for Lagos?")?;

    println!("output: {}", result.output().map(String::as_str).unwrap_or("(paused)"));
    println!("messages: {}", result.messages.len());
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

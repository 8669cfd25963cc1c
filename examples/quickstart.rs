//! Quickstart: an agent with a typed tool reading a run dependency, run on
//! golem's offline `TestModel` (which calls every tool with schema-valid
//! arguments, then answers), printing the output, message count and usage.
//!
//! Swap `TestModel` for a provider from `golem-providers` to talk to a real
//! model; nothing else changes.

use golem_core::testing::TestModel;
use golem_io::{Agent, Tool, ToolContext, ToolError};
use std::collections::BTreeMap;

/// The run's dependencies: forecasts by city.
struct Weather {
    forecasts: BTreeMap<String, String>,
}

/// The tool's arguments; the schema the model sees is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ForecastArgs {
    /// The city to forecast.
    city: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let forecast =
        Tool::typed("forecast", "Today's forecast for a city.", |ctx: &ToolContext<Weather>, args: ForecastArgs| {
            let known = ctx.deps().forecasts.get(&args.city);
            Ok::<_, ToolError>(known.cloned().unwrap_or_else(|| format!("no forecast for {}", args.city)))
        });

    let agent = Agent::builder(TestModel::new().answer_text("Pack sunglasses."))
        .instructions("You are a concise weather assistant.")
        .tool(forecast)
        .build()?;

    let deps = Weather { forecasts: BTreeMap::from([("a".to_string(), "sunny, 31°C".to_string())]) };
    let result = agent.run(deps, "What should I pack for Lagos?")?;

    println!("output: {}", result.output().map(String::as_str).unwrap_or("(paused)"));
    println!("messages: {}", result.messages.len());
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

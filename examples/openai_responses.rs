//! OpenAI's Responses API: a reasoning model on a tool loop, its reasoning
//! carried from turn to turn. The reasoning summaries print as thinking;
//! each reasoning item goes back in the next request as it came (its
//! encrypted content byte for byte), so the model does not think the
//! problem over again after each tool result.
//!
//! Needs `OPENAI_API_KEY`; `OPENAI_MODEL` picks the model (default
//! `gpt-5-mini`), `OPENAI_BASE_URL` another server that serves
//! `/v1/responses`. Moving this agent to Chat Completions is one line:
//! `OpenAi::from_env()?` in place of `OpenAiResponses::from_env()?`.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::{Agent, Tool, ToolContext};
use golem_providers::responses::{Tuning, DEFAULT_MODEL};
use golem_providers::OpenAiResponses;
use serde_json::{json, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("openai-responses", &["OPENAI_API_KEY"]) {
        return Ok(());
    }
    let mut builder = OpenAiResponses::builder()
        .model(credentials::var("OPENAI_MODEL").unwrap_or_else(|| DEFAULT_MODEL.into()))
        .api_key(credentials::var("OPENAI_API_KEY").unwrap_or_default())
        .tuning(Tuning::new().reasoning_effort("low").reasoning_summary("auto"));
    if let Some(url) = credentials::var("OPENAI_BASE_URL") {
        builder = builder.base_url(url);
    }
    let model = builder.build()?;
    println!("model {} at {}", model.config().model(), model.config().url());

    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
        "additionalProperties": false});
    let square = Tool::new("square", "Square a whole number.", schema, |_: ToolContext<()>, args: Value| {
        let n = args["n"].as_i64().unwrap_or_default();
        Ok((n * n).to_string())
    });
    let agent =
        Agent::<()>::builder(model).instructions("Use the tool for every multiplication.").tool(square).build()?;

    let result = agent.run((), "What is the square of the square of 7?")?;
    for message in &result.messages {
        for block in &message.thinking {
            if !block.text.is_empty() {
                println!("thinking: {}", block.text.lines().next().unwrap_or_default());
            }
        }
    }
    let carried =
        result.messages.iter().flat_map(|m| &m.thinking).filter(|b| !b.signature.is_empty() || !b.redacted.is_empty());
    println!("reasoning items carried between turns: {}", carried.count());
    println!("output: {}", result.output);
    println!("requests: {}, finish: {:?}", result.requests, result.finish_reason);
    println!(
        "usage: {} input tokens ({} cached), {} output tokens ({} reasoning)",
        result.usage.input_tokens,
        result.usage.cache_read_tokens,
        result.usage.output_tokens,
        result.usage.reasoning_tokens
    );
    Ok(())
}

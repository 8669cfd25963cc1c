//! Anthropic Messages: an agent on Claude with one tool, its answer
//! streamed over SSE as it arrives.
//!
//! Needs `ANTHROPIC_API_KEY`; `ANTHROPIC_MODEL` picks the model (default
//! `claude-sonnet-4-5`), `ANTHROPIC_BASE_URL` an Anthropic-compatible
//! endpoint. The key goes in the `x-api-key` header and nowhere else.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::{Agent, Tool, ToolContext};
use golem_providers::Anthropic;
use serde_json::{json, Value};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("anthropic", &["ANTHROPIC_API_KEY"]) {
        return Ok(());
    }
    let model = Anthropic::from_env()?;
    println!("model {} at {}", model.config().model(), model.config().base_url());

    let schema = json!({"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]});
    let letters =
        Tool::new("count_letters", "Count the letters of a word.", schema, |_: ToolContext<()>, args: Value| {
            let word = args["word"].as_str().unwrap_or_default();
            Ok(word.chars().filter(|c| c.is_alphabetic()).count().to_string())
        });
    let agent = Agent::<()>::builder(model).instructions("Be concise. Use the tool to count.").tool(letters).build()?;

    let mut stdout = std::io::stdout();
    let result = agent.run_stream((), "How many letters are in the word 'strawberry'?", |delta| {
        if let Some(text) = delta.text() {
            write!(stdout, "{text}")?;
            stdout.flush()?;
        }
        Ok(())
    })?;
    println!();
    println!("--");
    println!("output: {}", result.output);
    println!("requests: {}, finish: {:?}", result.requests, result.finish_reason);
    println!(
        "usage: {} input tokens ({} read from the prompt cache), {} output tokens",
        result.usage.input_tokens, result.usage.cache_read_tokens, result.usage.output_tokens
    );
    Ok(())
}

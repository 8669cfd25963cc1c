//! Google Gemini: an agent on `generateContent`, its answer streamed over
//! `streamGenerateContent?alt=sse`, thought summaries shown as they come.
//!
//! Needs `GEMINI_API_KEY` (or `GOOGLE_API_KEY`); `GEMINI_MODEL` picks the
//! model (default `gemini-2.5-flash`), `GEMINI_BASE_URL` another endpoint.
//! The key goes in the `x-goog-api-key` header, never in the URL.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_providers::gemini::Thinking;
use golem_providers::Gemini;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let key_var = if credentials::var("GEMINI_API_KEY").is_none() && credentials::var("GOOGLE_API_KEY").is_some() {
        "GOOGLE_API_KEY"
    } else {
        "GEMINI_API_KEY"
    };
    if !credentials::present("gemini", &[key_var]) {
        return Ok(());
    }
    let from_env = Gemini::from_env()?;
    let config = from_env.config().clone();
    println!("model {} at {}", config.model(), config.base_url());
    // The same settings, plus thought summaries in the answer.
    let mut builder = Gemini::builder().model(config.model()).base_url(config.base_url());
    if let Some(key) = config.api_key() {
        builder = builder.api_key(key.clone());
    }
    let model = builder.thinking(Thinking::new().include_thoughts(true)).build()?;
    let agent = Agent::<()>::builder(model).instructions("Be concise.").build()?;

    let mut stdout = std::io::stdout();
    let result = agent.run_stream((), "In one sentence: why do language models need tokenizers?", |delta| {
        if let Some(text) = delta.text() {
            write!(stdout, "{text}")?;
            stdout.flush()?;
        }
        Ok(())
    })?;
    println!();
    println!("--");
    for block in result.messages.last().map(|m| m.thinking.as_slice()).unwrap_or_default() {
        if !block.text.is_empty() {
            println!("thought: {}", block.text);
        }
    }
    println!("output: {}", result.output);
    println!("finish: {:?}", result.finish_reason);
    println!(
        "usage: {} input tokens, {} output tokens ({} of them thinking)",
        result.usage.input_tokens, result.usage.output_tokens, result.usage.reasoning_tokens
    );
    Ok(())
}

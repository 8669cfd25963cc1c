//! Minimal (SPEC EX-01): the smallest agent on the OpenAI-compatible
//! client — one prompt, then the output, the message count and the usage.
//!
//! Needs `OPENAI_API_KEY`; `OPENAI_MODEL` picks the model (default
//! gpt-4o-mini) and `OPENAI_BASE_URL` another compatible endpoint.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_providers::OpenAi;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("minimal", &["OPENAI_API_KEY"]) {
        return Ok(());
    }
    let agent = Agent::<()>::builder(OpenAi::from_env()?).instructions("Be concise: one sentence.").build()?;
    let result = agent.run((), "Where does \"hello world\" come from?")?;

    println!("output: {}", result.output);
    println!("messages: {}", result.messages.len());
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

//! Local models (SPEC EX-23): one agent against a local OpenAI-compatible
//! server — Ollama, LM Studio or vLLM — with no API key.
//!
//! Needs `GOLEM_LOCAL_BASE_URL`, e.g. `http://localhost:11434/v1` (Ollama)
//! or `http://localhost:1234/v1` (LM Studio); `GOLEM_LOCAL_MODEL` picks the
//! model (default llama3.2).

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_providers::openai::{Config, Preset};
use golem_providers::OpenAi;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("local-models", &["GOLEM_LOCAL_BASE_URL"]) {
        println!("(start Ollama or LM Studio first; e.g. GOLEM_LOCAL_BASE_URL=http://localhost:11434/v1)");
        return Ok(());
    }
    let base_url = credentials::var("GOLEM_LOCAL_BASE_URL").unwrap_or_default();
    let model = credentials::var("GOLEM_LOCAL_MODEL").unwrap_or_else(|| "llama3.2".to_string());
    // LM Studio and Ollama speak the same dialect; the preset only fixes
    // defaults, and the base URL given here wins.
    let preset = if base_url.contains(":1234") { Preset::lm_studio() } else { Preset::ollama() };
    let config = Config::builder(preset, &model).base_url(&base_url).build()?;
    let agent = Agent::<()>::builder(OpenAi::new(config)).instructions("Answer in one short sentence.").build()?;

    let result = agent.run((), "Name one advantage of running a language model locally.")?;
    println!("{model} at {base_url}:");
    println!("output: {}", result.output);
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

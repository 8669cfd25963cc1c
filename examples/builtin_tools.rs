//! Built-in tools: the provider searches the web inside the model's turn,
//! and the agent keeps what it did — the search call, its results and the
//! cited answer — as provider parts of the assistant message.
//!
//! Picks the first provider with a key: `ANTHROPIC_API_KEY` (Claude's
//! `web_search`, at most three searches, limited to two domains) or
//! `GEMINI_API_KEY`/`GOOGLE_API_KEY` (Google Search grounding, which takes
//! no options, so the domain list is left off there) or `OPENAI_API_KEY`
//! (the Responses API's `web_search`, limited to the two domains; it has no
//! per-tool search limit, so `max_uses` would be refused there).
//! `ANTHROPIC_BASE_URL`, `GEMINI_BASE_URL` and `OPENAI_BASE_URL` point at
//! another endpoint. Without a key it says what to set and exits 0; nothing
//! is sent.

// Only `var` of the shared credentials module: this example takes any one
// of several keys, which `present` (all of a list) does not express.
#[path = "support/credentials.rs"]
#[allow(dead_code)]
mod credentials;

use golem_io::builtin::{BuiltinTool, ProviderPartKind, WebSearch};
use golem_io::{Agent, Model};
use golem_providers::{Anthropic, Gemini, OpenAiResponses};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (model, search): (Arc<dyn Model>, WebSearch) = if credentials::var("ANTHROPIC_API_KEY").is_some() {
        let search = WebSearch::new().allowed_domains(["docs.rs", "crates.io"]).max_uses(3);
        (Arc::new(Anthropic::from_env()?), search)
    } else if credentials::var("GEMINI_API_KEY").or_else(|| credentials::var("GOOGLE_API_KEY")).is_some() {
        (Arc::new(Gemini::from_env()?), WebSearch::new())
    } else if credentials::var("OPENAI_API_KEY").is_some() {
        let search = WebSearch::new().allowed_domains(["docs.rs", "crates.io"]);
        (Arc::new(OpenAiResponses::from_env()?), search)
    } else {
        println!(
            "The builtin-tools example needs one of ANTHROPIC_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY) or OPENAI_API_KEY."
        );
        println!("Set one and run it again; nothing was sent.");
        return Ok(());
    };

    // A built-in the model cannot run would fail here, at build, with
    // BuildError::UnsupportedBuiltin — never halfway through a run.
    let agent = Agent::<()>::builder(model)
        .instructions("Answer in two sentences and say where the facts come from.")
        .builtin_tool(BuiltinTool::WebSearch(search))
        .build()?;
    let result = agent.run((), "What is the latest released version of the serde crate?")?;

    for message in &result.messages {
        for part in &message.provider_parts {
            let what = match part.kind {
                ProviderPartKind::Call => "call",
                ProviderPartKind::Result => "result",
                _ => "metadata",
            };
            let id = if part.id.is_empty() { String::new() } else { format!(" {}", part.id) };
            println!("{} {what}: {}{id} ({} bytes kept)", part.provider, part.name, part.raw.as_str().len());
        }
    }
    println!("output: {}", result.output);
    println!(
        "requests: {}, usage: {} input tokens, {} output tokens",
        result.requests, result.usage.input_tokens, result.usage.output_tokens
    );
    Ok(())
}

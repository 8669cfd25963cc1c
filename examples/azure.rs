//! Azure OpenAI (SPEC EX-21): an agent on an Azure deployment.
//!
//! Needs `AZURE_OPENAI_API_KEY`, `AZURE_OPENAI_ENDPOINT` (e.g.
//! `https://my-resource.openai.azure.com`), `AZURE_OPENAI_DEPLOYMENT` and
//! `AZURE_OPENAI_API_VERSION` (e.g. `2024-12-01-preview`).

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_providers::azure::ENV_VARS;
use golem_providers::AzureOpenAi;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("azure", &ENV_VARS) {
        return Ok(());
    }
    let model = AzureOpenAi::from_env()?;
    println!("deployment {} at {}", model.config().deployment(), model.config().endpoint());
    let agent = Agent::<()>::builder(model).instructions("Be concise.").build()?;
    let result = agent.run((), "In one sentence: what is a model deployment?")?;

    println!("output: {}", result.output);
    println!("messages: {}", result.messages.len());
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

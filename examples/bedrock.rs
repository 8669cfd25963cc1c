//! AWS Bedrock (SPEC EX-22): an agent on the Converse API, signed with
//! SigV4, its answer streamed over ConverseStream's event stream.
//!
//! Needs `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION` (or
//! `AWS_DEFAULT_REGION`) and `BEDROCK_MODEL` (e.g.
//! `us.amazon.nova-micro-v1:0`); `AWS_SESSION_TOKEN` for temporary
//! credentials, `BEDROCK_BASE_URL` for another endpoint.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_providers::Bedrock;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let region_var = if credentials::var("AWS_REGION").is_none() && credentials::var("AWS_DEFAULT_REGION").is_some() {
        "AWS_DEFAULT_REGION"
    } else {
        "AWS_REGION"
    };
    if !credentials::present("bedrock", &["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", region_var, "BEDROCK_MODEL"]) {
        return Ok(());
    }
    let model = Bedrock::from_env()?;
    println!("model {} in {} at {}", model.config().model(), model.config().region(), model.config().base_url());
    let agent = Agent::<()>::builder(model).instructions("Be concise.").build()?;

    let mut stdout = std::io::stdout();
    let result = agent.run_stream((), "In one sentence: what does a request signature prove?", |delta| {
        if let Some(text) = delta.text() {
            write!(stdout, "{text}")?;
            stdout.flush()?;
        }
        Ok(())
    })?;
    println!();
    println!("--");
    println!("output: {}", result.output);
    println!("finish: {:?}", result.finish_reason);
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

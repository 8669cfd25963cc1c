//! Streaming (SPEC EX-12): the answer's fragments are printed as they
//! arrive from the provider, then the result — the same result a plain run
//! gives (SPEC STREAM-01).
//!
//! Needs `OPENAI_API_KEY`; `OPENAI_MODEL` picks the model.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::Agent;
use golem_providers::OpenAi;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("streaming", &["OPENAI_API_KEY"]) {
        return Ok(());
    }
    let agent = Agent::<()>::builder(OpenAi::from_env()?).build()?;

    let mut stdout = std::io::stdout();
    let mut fragments = 0;
    let result = agent.run_stream((), "Write a four-line poem about rivers.", |d| {
        if let Some(text) = d.text() {
            fragments += 1;
            write!(stdout, "{text}")?;
            stdout.flush()?;
        }
        Ok(())
    })?;
    println!();
    println!("--");
    println!("{fragments} text fragments");
    println!("output: {} characters", result.output.chars().count());
    println!("usage: {} input tokens, {} output tokens", result.usage.input_tokens, result.usage.output_tokens);
    Ok(())
}

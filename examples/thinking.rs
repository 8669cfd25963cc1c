//! Extended thinking, carried end to end (SPEC THINK-01..04): Claude
//! thinks before it calls a tool; the thinking block comes back with its
//! signature, stays on the assistant message, survives the history's
//! durable JSON, and is replayed unchanged on the next turn — which the
//! API requires to continue a tool loop with thinking on.
//!
//! Needs `ANTHROPIC_API_KEY`; `ANTHROPIC_MODEL` and `ANTHROPIC_BASE_URL`
//! as in the `anthropic` example.

#[path = "support/credentials.rs"]
mod credentials;

use golem_io::{Agent, Tool, ToolContext};
use golem_io::{Delta, Message};
use golem_providers::anthropic::{Thinking, Tuning};
use golem_providers::Anthropic;
use serde_json::{json, Value};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !credentials::present("thinking", &["ANTHROPIC_API_KEY"]) {
        return Ok(());
    }
    let env = Anthropic::from_env()?;
    let config = env.config();
    // Thinking needs a budget of at least 1024 tokens, below max_tokens;
    // the builder refuses anything else before a request is made.
    let mut builder = Anthropic::builder()
        .model(config.model())
        .base_url(config.base_url())
        .tuning(Tuning::new().max_tokens(4096))
        .thinking(Thinking::Enabled { budget_tokens: 2048 });
    if let Some(key) = config.api_key() {
        builder = builder.api_key(key.clone());
    }
    let model = builder.build()?;

    let schema = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]});
    let multiply = Tool::new("multiply", "Multiply two numbers.", schema, |_: ToolContext<()>, args: Value| {
        let product = args["a"].as_f64().unwrap_or_default() * args["b"].as_f64().unwrap_or_default();
        Ok(product.to_string())
    });
    let agent = Agent::<()>::builder(model).tool(multiply).build()?;

    let mut stdout = std::io::stdout();
    let mut thinking = false;
    let result = agent.run_stream((), "What is 1234 times 5678? Use the tool.", |delta| {
        match delta.delta {
            Delta::Thinking { text, .. } if !text.is_empty() => {
                if !thinking {
                    write!(stdout, "[thinking] ")?;
                    thinking = true;
                }
                write!(stdout, "{text}")?;
            }
            Delta::Text { text } => {
                if thinking {
                    writeln!(stdout)?;
                    thinking = false;
                }
                write!(stdout, "{text}")?;
            }
            _ => {}
        }
        stdout.flush()?;
        Ok(())
    })?;
    println!();
    println!("--");
    println!("output: {}", result.output);
    for (n, message) in result.messages.iter().enumerate() {
        for block in &message.thinking {
            let kind = if block.redacted.is_empty() { "thinking" } else { "redacted" };
            let signature: String = block.signature.chars().take(16).collect();
            println!("message {n}: {kind} block from {}, signature {signature}…", block.provider);
        }
    }
    // The history as durable JSON and back: every block and signature is
    // still there, so a later run (or another process) can continue it.
    let json = serde_json::to_string(&result.messages)?;
    let back: Vec<Message> = serde_json::from_str(&json)?;
    let kept = back.iter().zip(&result.messages).all(|(a, b)| a.thinking == b.thinking);
    println!("history JSON round trip keeps every thinking block and signature: {kept}");
    Ok(())
}

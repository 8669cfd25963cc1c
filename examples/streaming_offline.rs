//! Streaming, offline (SPEC STREAM-01, STREAM-02): every fragment of every
//! model turn — text and tool-call arguments — reaches the callback as it
//! arrives, across a tool turn; the result is the same as without
//! streaming. The model is golem's `ScriptedModel`, which streams its
//! scripted answers in small pieces.

use golem_io::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext};
use golem_io::{Delta, Response, ToolCall};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new()
        .chunk_size(6)
        .respond(Response::tool_calls(vec![ToolCall::new("c1", "forecast", r#"{"city":"Lagos"}"#)]))
        .text("Lagos will be sunny and 31°C tomorrow.");
    let forecast = Tool::new(
        "forecast",
        "Tomorrow's weather.",
        serde_json::json!({"type": "object"}),
        |_: ToolContext<()>, args| Ok(format!("{}: sunny, 31°C", args["city"].as_str().unwrap_or("?"))),
    );
    let agent = Agent::builder(model).tool(forecast).build()?;

    let mut stdout = std::io::stdout();
    // Each turn gets a heading (what a model writes before calling tools is
    // not its answer), and a fragment of another kind than the last starts
    // a new line.
    let (mut turn, mut last_kind) = (None, "");
    let result = agent.run_stream((), "Weather in Lagos tomorrow?", |d| {
        if turn != Some(d.turn) {
            let gap = if turn.is_some() { "\n" } else { "" };
            writeln!(stdout, "{gap}-- turn {}", d.turn + 1)?;
            (turn, last_kind) = (Some(d.turn), "");
        }
        let (kind, piece) = match d.delta {
            Delta::Text { text } => ("text", text.clone()),
            Delta::ToolCall { name, args, .. } if !name.is_empty() => ("call", format!("call {name} {args}")),
            Delta::ToolCall { args, .. } => ("call", args.clone()),
            Delta::Thinking { text, .. } => ("thinking", text.clone()),
            _ => return Ok(()),
        };
        if kind != last_kind && !last_kind.is_empty() {
            writeln!(stdout)?;
        }
        last_kind = kind;
        write!(stdout, "{piece}")?;
        stdout.flush()?;
        Ok(())
    })?;
    println!();
    println!("output: {}", result.output);
    println!("{} messages, {} requests", result.messages.len(), result.requests);
    Ok(())
}

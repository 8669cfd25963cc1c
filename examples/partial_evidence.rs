//! Partial evidence (EX-14): a run fails at the usage stage after a tool
//! exchange; its partial evidence is printed and then resumed with a new
//! run that continues the conversation. Offline: a scripted model.

use golem_io::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext};
use golem_io::{Response, Usage, UsageLimits};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let search = Tool::new("search", "Search the notes.", json!({"type": "object"}), |_: ToolContext<()>, _| {
        Ok("three notes mention the launch")
    });
    let model = ScriptedModel::new()
        .respond(
            Response::tool_calls(vec![golem_io::ToolCall::new("s1", "search", "{}")]).with_usage(Usage::new(40, 5)),
        )
        .respond(Response::text("Three notes mention the launch.").with_usage(Usage::new(900, 300)))
        .text("Summary: the launch is on track.");
    let strict = Agent::builder(model.clone())
        .tool(search.clone())
        .usage_limits(UsageLimits::new().total_tokens(500))
        .build()?;

    let err = match strict.run((), "What do my notes say about the launch?") {
        Ok(_) => return Err("the run should have crossed its token limit".into()),
        Err(err) => err.into_run().ok_or("expected a run failure")?,
    };
    println!("failed: {err}");
    let partial = err.partial.ok_or("a failed run after a turn keeps its evidence")?;
    println!(
        "evidence: {} messages, {} requests, {} tool calls",
        partial.messages.len(),
        partial.requests,
        partial.tool_calls
    );

    let relaxed = Agent::builder(model).tool(search).build()?;
    let resumed = relaxed.run_with_history((), partial.messages, "Summarise in one line.")?;
    println!("resumed: {}", resumed.output);
    Ok(())
}

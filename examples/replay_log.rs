//! Record a scripted run to an event log, replay the log with no model and
//! no tools, and show that the replay reaches the identical outcome
//! (SPEC LOG-02). Offline.

use golem_io::log::{replay, EventLog};
use golem_io::machine::{Outcome, Output};
use golem_io::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext};
use golem_io::{Response, ToolCall, Usage};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new()
        .respond(
            Response::tool_calls(vec![ToolCall::new("c1", "add", r#"{"a":2,"b":3}"#)]).with_usage(Usage::new(30, 8)),
        )
        .respond(Response::text("2 + 3 = 5").with_usage(Usage::new(42, 6)));
    let add = Tool::new(
        "add",
        "Add two integers.",
        serde_json::json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        |_: ToolContext<()>, args| Ok((args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)).to_string()),
    );
    let agent = Agent::builder(model).tool(add).build()?;

    // 1. Record.
    let mut bytes = Vec::new();
    let live = agent.run_with(()).prompt("what is 2 + 3?").record(&mut bytes).call()?;
    let text = String::from_utf8(bytes)?;
    println!("recorded {} log lines ({} bytes)", text.lines().count(), text.len());

    // 2. Replay: the log's inputs stand in for the model and the tool.
    let log = EventLog::parse(&text)?;
    let replayed = replay(&log)?;
    let events = replayed.outputs.iter().flatten().filter(|o| matches!(o, Output::Event(_))).count();
    let Some(Outcome::Completed { summary, .. }) = replayed.machine.outcome() else {
        return Err("the replay did not complete".into());
    };
    println!("replayed {events} events without a model or tools");
    println!("live:     {:?}, {} messages, usage {:?}", live.output, live.messages.len(), live.usage);
    println!(
        "replayed: {:?}, {} messages, usage {:?}",
        summary.messages.last().map(|m| m.content.as_str()),
        summary.messages.len(),
        summary.usage
    );
    let identical =
        summary.messages == live.messages && summary.usage == live.usage && summary.requests == live.requests;
    println!("identical outcome: {identical}");
    if !identical {
        return Err("the replay differs from the live run".into());
    }
    Ok(())
}

//! Run events (EX-13): the event sequence of a run with one tool exchange,
//! printed as JSON lines as the run happens. Offline: a scripted model.

use golem_io::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TimeArgs {
    /// An IANA time zone, e.g. `Europe/Paris`.
    zone: String,
}

fn local_time(_: ToolContext<()>, args: TimeArgs) -> Result<String, ToolError> {
    Ok(format!("12:00 in {}", args.zone))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new().tool_call("local_time", r#"{"zone":"Europe/Paris"}"#).text("It is noon in Paris.");
    let agent = Agent::builder(model)
        .tool(Tool::typed("local_time", "The local time in a time zone.", local_time))
        .observer(|event| match serde_json::to_string(event) {
            Ok(line) => println!("{line}"),
            Err(e) => eprintln!("unprintable event: {e}"),
        })
        .build()?;

    let result = agent.run((), "What time is it in Paris?")?;
    println!("output: {}", result.output);
    Ok(())
}

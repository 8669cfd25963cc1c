//! Self-correction (SPEC EX-17): a tool rejecting correctable arguments and
//! the model fixing them — the reference's `WithToolRetries` example,
//! offline. The model first rolls `n = 0`; the tool rejects it with a
//! reason, the run hands the rejection back as the call's result (budget:
//! `tool_retries(2)`), and the model calls again with `n = 4`.

use golem_io::testing::FnModel;
use golem_io::{Agent, Tool, ToolContext, ToolError};
use golem_io::{ModelError, Request, Response, Role, ToolCall};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct RollArgs {
    /// The number to roll; must be positive.
    n: i64,
}

fn roll(_: ToolContext<()>, args: RollArgs) -> Result<String, ToolError> {
    if args.n <= 0 {
        // Correctable: the model reads the reason and may try again.
        return Err(ToolError::reject(format!("n must be positive, got {}", args.n)));
    }
    Ok(format!("rolled {}", args.n))
}

/// Rolls 0 first and 4 once it has read a rejection; answers from an
/// accepted result.
fn learning_model(request: &Request) -> Result<Response, ModelError> {
    let last = request.messages.last();
    if let Some(result) = last.filter(|m| m.role == Role::Tool && !m.content.contains("rejected")) {
        return Ok(Response::text(format!("the die {}", result.content)));
    }
    let calls_so_far = request.messages.iter().filter(|m| !m.tool_calls.is_empty()).count();
    let n = if calls_so_far == 0 { 0 } else { 4 };
    let call = ToolCall::new(format!("call-{}", calls_so_far + 1), "roll", format!(r#"{{"n":{n}}}"#));
    Ok(Response::tool_calls(vec![call]))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let agent = Agent::builder(FnModel::new(learning_model))
        .tool(Tool::typed("roll", "Roll a die; n must be positive.", roll))
        .tool_retries(2)
        .build()?;

    let result = agent.run((), "roll a 4")?;

    println!("{}", result.output);
    println!("{} messages in the corrected run", result.messages.len());
    Ok(())
}

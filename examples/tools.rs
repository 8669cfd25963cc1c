//! Tools (SPEC EX-02): a typed tool reading the run's dependency — the
//! reference's `Agent` example, offline. A function over the request stands
//! in for the provider: it asks for the player's name, then names the
//! winner from the tool's result. Prints the output, the message count and
//! the output tokens.

use golem_io::testing::FnModel;
use golem_io::{Agent, Tool, ToolContext, ToolError};
use golem_io::{ModelError, Request, Response, Role, ToolCall, Usage};

/// The run's dependency: every tool call of the run reads the same one.
struct Player {
    name: String,
}

/// `get_player_name` takes no arguments; its schema is an empty object.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

fn get_player_name(ctx: ToolContext<Player>, _: NoArgs) -> Result<String, ToolError> {
    Ok(ctx.deps().name.clone())
}

/// Calls `get_player_name` once, then answers from its result; every turn
/// reports the same usage.
fn dice_model(request: &Request) -> Result<Response, ModelError> {
    let usage = Usage::new(54, 2);
    let response = match request.messages.iter().find(|m| m.role == Role::Tool) {
        Some(result) => Response::text(format!("winner: {}", result.content)),
        None => Response::tool_calls(vec![ToolCall::new("call-1", "get_player_name", "{}")]),
    };
    Ok(response.with_usage(usage))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let agent = Agent::builder(FnModel::new(dice_model))
        .tool(Tool::typed("get_player_name", "Get the player's name.", get_player_name))
        .build()?;

    let result = agent.run(Player { name: "Anne".into() }, "My guess is 4")?;

    println!("{}", result.output);
    println!("{} messages, {} output tokens", result.messages.len(), result.usage.output_tokens);
    Ok(())
}

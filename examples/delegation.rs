//! Delegation (SPEC EX-09): a specialist agent used as a tool by a planner
//! — the reference's `AsTool` example, offline. The planner's model hands
//! the question to the `researcher` tool and answers from its result; the
//! researcher is a whole agent, whose own model sees only the prompt the
//! planner wrote for it.

use golem_io::testing::{FnModel, ScriptedModel};
use golem_io::Agent;
use golem_io::{ModelError, Request, Response, Role, ToolCall};

/// Stands in for the planner's provider: delegates once, then reports.
fn planner_model(request: &Request) -> Result<Response, ModelError> {
    if let Some(result) = request.messages.iter().find(|m| m.role == Role::Tool) {
        return Ok(Response::text(format!("the researcher says: {}", result.content)));
    }
    let call = ToolCall::new("call-1", "researcher", r#"{"prompt":"capital of France?"}"#);
    Ok(Response::tool_calls(vec![call]))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The specialist's provider: one run, one fact.
    let fact_model = ScriptedModel::new().text("Paris");
    let specialist = Agent::<()>::builder(fact_model.clone()).build()?;
    let research = specialist.as_tool("researcher", "Answers one geography question.");
    let planner = Agent::builder(FnModel::new(planner_model)).tool(research).build()?;

    let result = planner.run((), "I need the capital of France.")?;

    // The sub-run saw the delegated prompt and nothing of the planner's conversation.
    let seen: Vec<String> =
        fact_model.requests().iter().flat_map(|r| r.messages.iter().map(|m| m.content.clone())).collect();
    assert_eq!(seen, ["capital of France?"]);
    println!("{}", result.output);
    Ok(())
}

//! Testing without a provider (EX-24): a scripted fake model makes one tool
//! call, then answers; the test asserts on the requests the agent sent.

use golem_io::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Lookup {
    /// The customer id.
    id: u32,
}

/// The run's dependencies: a tiny customer table.
struct Customers(Vec<&'static str>);

fn lookup(ctx: ToolContext<Customers>, args: Lookup) -> Result<String, ToolError> {
    let index = usize::try_from(args.id).map_err(|e| ToolError::reject(e.to_string()))?;
    ctx.deps().0.get(index).map(|name| name.to_string()).ok_or_else(|| ToolError::reject("no such customer"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new().tool_call("lookup", r#"{"id":1}"#).text("Customer 1 is Grace.");
    let agent = Agent::builder(model.clone()).tool(Tool::typed("lookup", "Find a customer by id.", lookup)).build()?;

    let result = agent.run(Customers(vec!["Ada", "Grace"]), "Who is customer 1?")?;

    let requests = model.requests();
    assert_eq!(requests.len(), 2, "one tool turn, one answer turn");
    assert_eq!(requests[0].tools[0].name, "lookup");
    let tool_result = requests[1].messages.last().ok_or("no messages")?;
    assert_eq!(tool_result.content, "Grace");
    println!("requests: {}", requests.len());
    println!("tool result seen by the model: {}", tool_result.content);
    println!("output: {}", result.output);
    Ok(())
}

//! One agent, three ways to run it (SPEC DRV-02, DRV-03): the blocking
//! driver on the calling thread, the async driver under smol, and the async
//! driver inside a tokio runtime. golem brings no runtime of its own: the
//! async run is one future that any executor can poll, and the results are
//! identical. Offline: the model is golem's `TestModel`, which calls every
//! tool with schema-valid arguments and then answers.

use golem_io::testing::TestModel;
use golem_io::{Agent, RunBuilder, Tool, ToolContext};
use std::time::Duration;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Item {
    /// The product name.
    name: String,
}

/// The run's dependencies: what is on the shelf.
struct Shop {
    shelf: Vec<&'static str>,
}

fn agent() -> Result<Agent<Shop>, Box<dyn std::error::Error>> {
    // An async tool: awaited in place under the async driver, driven by a
    // minimal block_on under the blocking one.
    let stock = Tool::typed_async("stock", "Is an item in stock?", |ctx: ToolContext<Shop>, item: Item| async move {
        async_io::Timer::after(Duration::from_millis(5)).await;
        Ok(format!("{}: {}", item.name, ctx.deps().shelf.contains(&item.name.as_str())))
    });
    // A blocking tool: on the calling thread (blocking driver) or the
    // blocking thread pool (async driver), never on an executor thread.
    let count =
        Tool::new("count", "How many products?", serde_json::json!({"type": "object"}), |ctx: ToolContext<Shop>, _| {
            Ok(ctx.deps().shelf.len().to_string())
        });
    Ok(Agent::builder(TestModel::new().answer_text("stock checked"))
        .tools([stock, count])
        .parallel_tools(true)
        .build()?)
}

fn shop() -> Shop {
    Shop { shelf: vec!["a", "tea"] }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let agent = agent()?;

    // Every run mints its own run and conversation ids; giving all three
    // the same ones makes their results comparable byte for byte.
    fn run(agent: &Agent<Shop>) -> RunBuilder<'_, Shop, String> {
        agent.run_with(shop()).prompt("Check the stock.").run_id("check-1").conversation_id("shop-1")
    }

    let blocking = run(&agent).call()?;

    let under_smol = smol::block_on(run(&agent).call_async())?;

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build()?;
    let spawned = agent.clone();
    let inside_tokio =
        runtime.block_on(async move { tokio::spawn(async move { run(&spawned).call_async().await }).await })??;

    for (name, result) in [("blocking", &blocking), ("smol", &under_smol), ("tokio", &inside_tokio)] {
        let tools: Vec<&str> =
            result.messages.iter().filter(|m| m.role == golem_io::Role::Tool).map(|m| m.content.as_str()).collect();
        println!("{name:>8}: {} after tools {tools:?}", result.output);
    }
    let json = serde_json::to_string(&blocking)?;
    assert_eq!(serde_json::to_string(&under_smol)?, json);
    assert_eq!(serde_json::to_string(&inside_tokio)?, json);
    println!("all three results serialise identically");
    Ok(())
}

//! Deferred tools (EX-25): a gated tool pauses the run for approval; the
//! operator approves one call and denies the other, and the run resumes.
//! Offline: a scripted model.

use golem_io::testing::ScriptedModel;
use golem_io::{Agent, RunOutcome, Tool, ToolContext, ToolError};
use golem_io::{Approval, DeferredResults, Response, ToolCall};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Refund {
    /// The order to refund.
    order: String,
    /// The amount, in cents.
    cents: u64,
}

/// Refunds need a human's approval; the approved re-run does the work.
fn refund(ctx: ToolContext<()>, args: Refund) -> Result<String, ToolError> {
    if !ctx.is_approved() {
        return Err(ToolError::approval(format!("refund {} cents on order {}?", args.cents, args.order)));
    }
    Ok(format!("refunded {} cents on order {}", args.cents, args.order))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new()
        .respond(Response::tool_calls(vec![
            ToolCall::new("r1", "refund", r#"{"order":"A-17","cents":1200}"#),
            ToolCall::new("r2", "refund", r#"{"order":"B-42","cents":990000}"#),
        ]))
        .text("One refund went through; the large one was declined.");
    let agent = Agent::builder(model).tool(Tool::typed("refund", "Refund an order.", refund)).build()?;

    // Runs whose tools defer are run with `call_pausable`: a pause is an
    // outcome of its own, never a completed run.
    let RunOutcome::Paused(paused) = agent.run_with(()).prompt("Refund both orders.").call_pausable()? else {
        return Err("the run should have paused".into());
    };
    for pending in &paused.deferred.approvals {
        println!("approval needed for {}: {}", pending.call_id, pending.reason);
    }

    let decisions = DeferredResults::new()
        .approval("r1", Approval::approve())
        .approval("r2", Approval::deny("amount above the operator's limit"));
    let resumed = agent.resume((), paused.messages, decisions)?;

    for message in resumed.messages.iter().filter(|m| m.role == golem_io::Role::Tool) {
        println!("{}: {}", message.tool_call_id, message.content);
    }
    println!("output: {}", resumed.output);
    Ok(())
}

//! One agent as another agent's tool (SPEC DELEG-01..04).

use crate::agent::Agent;
use crate::context::ToolContext;
use crate::result::RunOutput;
use crate::tool::{Tool, ToolError};
use crate::Error;
use golem_core::model::BoxError;
use golem_core::{Cause, Stage};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use golem_core::texts::DELEGATE_PROMPT_DESCRIPTION;

#[derive(Deserialize)]
struct DelegateArgs {
    prompt: String,
}

fn delegate_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"prompt": {"type": "string", "description": DELEGATE_PROMPT_DESCRIPTION}},
        "required": ["prompt"],
        "additionalProperties": false,
    })
}

/// `O` as tool text: a JSON string unquoted, anything else compact JSON.
fn render_json<O: Serialize>(output: O) -> Result<String, BoxError> {
    match serde_json::to_value(&output)? {
        Value::String(s) => Ok(s),
        other => Ok(other.to_string()),
    }
}

impl<Deps: Send + Sync + 'static, O: Serialize + 'static> Agent<Deps, O> {
    /// This agent as a tool for agents with the same deps: the model passes
    /// a prompt, this agent runs it with the delegating run's deps, and its
    /// output becomes the tool result — text as is, other values as compact
    /// JSON. The sub-agent sees only the prompt; its messages and usage stay
    /// out of the delegating run's evidence and limits.
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, Role, ToolCall};
    /// use golem_io::Agent;
    ///
    /// // Hands the question to the researcher tool, then answers from its result.
    /// struct DelegatingModel;
    /// impl Model for DelegatingModel {
    ///     fn generate(&self, request: &Request) -> Result<Response, ModelError> {
    ///         if let Some(result) = request.messages.iter().find(|m| m.role == Role::Tool) {
    ///             return Ok(Response::text(format!("the researcher says: {}", result.content)));
    ///         }
    ///         let call = ToolCall::new("call-1", "researcher", r#"{"prompt":"capital of France?"}"#);
    ///         Ok(Response::tool_calls(vec![call]))
    ///     }
    /// }
    ///
    /// // Stands in for the specialist's provider: one run, one fact.
    /// struct FactModel;
    /// impl Model for FactModel {
    ///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
    ///         Ok(Response::text("Paris"))
    ///     }
    /// }
    ///
    /// let specialist = Agent::<()>::builder(FactModel).build()?;
    /// let research = specialist.as_tool("researcher", "Answers one geography question.");
    /// let planner = Agent::builder(DelegatingModel).tool(research).build()?;
    /// let result = planner.run((), "I need the capital of France.")?;
    /// println!("{}", result.output().unwrap());
    /// assert_eq!(result.output().unwrap(), "the researcher says: Paris");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_tool(&self, name: &str, description: &str) -> Tool<Deps> {
        self.as_tool_with(name, description, render_json::<O>)
    }
}

impl<Deps: Send + Sync + 'static, O: 'static> Agent<Deps, O> {
    /// Like [`as_tool`](Self::as_tool), rendering the output with
    /// `renderer`; its error fails the delegating run at the tool stage.
    pub fn as_tool_with(
        &self,
        name: &str,
        description: &str,
        renderer: impl Fn(O) -> Result<String, BoxError> + Send + Sync + 'static,
    ) -> Tool<Deps> {
        let agent = self.clone();
        Tool::new(name, description, delegate_schema(), move |ctx: &ToolContext<Deps>, args: Value| {
            let args: DelegateArgs = serde_json::from_value(args)
                .map_err(|e| ToolError::reject(golem_core::texts::delegate_bad_args(&e.to_string())))?;
            if args.prompt.trim().is_empty() {
                return Err(ToolError::reject(golem_core::texts::DELEGATE_EMPTY_PROMPT));
            }
            // The sub-run shares the parent's clock and stops when the
            // parent gives up on this call (SPEC DELEG-04).
            let run = agent
                .run_with(ctx.deps_arc().clone())
                .clock(ctx.clock().clone())
                .cancellation(ctx.cancellation().clone())
                .prompt(args.prompt)
                .call();
            match run.map_err(sub_run_failed)?.output {
                RunOutput::Completed(output) => renderer(output).map_err(ToolError::Fatal),
                RunOutput::Paused(_) => {
                    Err(ToolError::fatal("the sub-agent paused on deferred tool calls, which delegation cannot resume"))
                }
            }
        })
    }
}

/// A sub-run's failure as the delegating tool's: a deliberate stop keeps
/// its identity (the parent ends canceled), anything else is fatal with the
/// inner error in the source chain.
fn sub_run_failed(error: Error) -> ToolError {
    match &error {
        Error::Run(run) if run.stage == Stage::Canceled => match &run.cause {
            Cause::Canceled { message, .. } if !message.is_empty() => ToolError::cancel_run(message.clone()),
            cause => ToolError::cancel_run(cause.to_string()),
        },
        Error::Run(run) => ToolError::Fatal(run.clone()),
        _ => ToolError::fatal(error),
    }
}

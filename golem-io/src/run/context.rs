//! What application code other than tools sees of its run — instructions
//! functions and decoders (issue 11; the reference's `RunContext`).

use crate::run::ids::RunIds;
use std::fmt;
use std::sync::Arc;

/// The run an instructions function or a decoder works for: its
/// dependencies and its ids. Tools get the same and more through their
/// [`ToolContext`](crate::ToolContext).
///
/// ```
/// use golem_core::testing::ScriptedModel;
/// use golem_core::{Response, Role};
/// use golem_io::{decode_fn, Agent, DecodeError, RunContext};
///
/// struct Shop {
///     currency: &'static str,
/// }
///
/// let agent = Agent::builder(ScriptedModel::new().text("42"))
///     .instructions_fn(|ctx: &RunContext<Shop>| format!("Prices are in {}.", ctx.deps().currency))
///     .decoder(decode_fn(|ctx: &RunContext<Shop>, r: &Response| {
///         let amount: u32 = r.message.content.parse().map_err(|_| DecodeError::retry("digits only"))?;
///         Ok(format!("{amount} {} (run {})", ctx.deps().currency, ctx.run_id()))
///     }))
///     .build()?;
/// let result = agent.run_with(Shop { currency: "EUR" }).prompt("price?").run_id("r-1").call()?;
/// assert_eq!(result.output, "42 EUR (run r-1)");
/// assert_eq!(result.messages[0].role, Role::System);
/// assert_eq!(result.messages[0].content, "Prices are in EUR.");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RunContext<Deps> {
    deps: Arc<Deps>,
    pub(crate) ids: RunIds,
}

impl<Deps> RunContext<Deps> {
    /// The context of the run with `deps` and `ids`, as a driver builds it.
    pub(crate) fn new(deps: Arc<Deps>, ids: RunIds) -> Self {
        RunContext { deps, ids }
    }

    /// The same run's ids with no deps, for code that reads none.
    pub(crate) fn without_deps(&self) -> RunContext<()> {
        RunContext { deps: Arc::new(()), ids: self.ids.clone() }
    }

    /// The run's dependencies.
    pub fn deps(&self) -> &Deps {
        &self.deps
    }

    /// The run's dependencies as the shared `Arc`.
    pub fn deps_arc(&self) -> &Arc<Deps> {
        &self.deps
    }

    /// The run's id (SPEC EXTRA-01).
    pub fn run_id(&self) -> &str {
        &self.ids.run_id
    }

    /// The id of the conversation the run belongs to (SPEC EXTRA-01).
    pub fn conversation_id(&self) -> &str {
        &self.ids.conversation_id
    }
}

// Manual, so cloning a context never asks `Deps: Clone`.
impl<Deps> Clone for RunContext<Deps> {
    fn clone(&self) -> Self {
        RunContext { deps: Arc::clone(&self.deps), ids: self.ids.clone() }
    }
}

impl<Deps> fmt::Debug for RunContext<Deps> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Deps may hold secrets or be huge; never print them.
        f.debug_struct("RunContext")
            .field("run_id", &self.ids.run_id)
            .field("conversation_id", &self.ids.conversation_id)
            .finish_non_exhaustive()
    }
}

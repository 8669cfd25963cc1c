//! The agent: an immutable, shareable bundle of model, tools, instructions
//! and output decoder (SPEC ARCH-03).

use crate::builder::AgentBuilder;
use crate::decode::Decoder;
use crate::history::Processor;
use crate::instructions::Instructions;
use crate::tool::Tool;
use golem_core::{Capabilities, Model, RunConfig, RunEvent};
use std::fmt;
use std::sync::Arc;

/// A run observer as the agent stores it.
pub(crate) type Observer = Arc<dyn Fn(&RunEvent) + Send + Sync>;

/// An agent whose tools see dependencies of type `Deps` and whose runs
/// produce an `O` (text by default).
///
/// An agent holds no per-run state: it is cheap to clone (one `Arc`), and
/// any number of runs may use it at once, from any threads.
///
/// Build one with [`Agent::builder`]; run it with [`Agent::run`] or
/// [`Agent::run_with`].
pub struct Agent<Deps, O = String> {
    pub(crate) inner: Arc<AgentInner<Deps, O>>,
}

/// Everything an agent is; shared by all its clones and runs.
pub(crate) struct AgentInner<Deps, O> {
    /// The machine's configuration (the event-log header).
    pub(crate) config: RunConfig,
    /// The fallback chain; index = `CallModel::member`.
    pub(crate) models: Arc<[Arc<dyn Model>]>,
    /// What every model of the chain supports.
    pub(crate) capabilities: Capabilities,
    /// Registered tools, in registration order.
    pub(crate) tools: Arc<[Tool<Deps>]>,
    pub(crate) instructions: Instructions<Deps>,
    pub(crate) decoder: Arc<dyn Decoder<O>>,
    pub(crate) history_processor: Option<Processor>,
    /// Agent-scoped observers, called before run-scoped ones.
    pub(crate) observers: Vec<Observer>,
}

impl<Deps: Send + Sync + 'static> Agent<Deps, String> {
    /// Start building an agent on `model`. The output is text until
    /// [`AgentBuilder::output`] or [`AgentBuilder::decoder`] says otherwise.
    ///
    /// `Deps` is inferred from the tools, the instructions function or the
    /// deps given to `run`; name it when nothing else does:
    /// `Agent::<MyDeps>::builder(model)`.
    pub fn builder(model: impl Model + 'static) -> AgentBuilder<Deps, String> {
        AgentBuilder::new(Arc::new(model))
    }
}

impl<Deps, O> Agent<Deps, O> {
    /// The run configuration every run of this agent starts from.
    pub fn config(&self) -> &RunConfig {
        &self.inner.config
    }

    /// The registered tools, in registration order.
    pub fn tools(&self) -> &[Tool<Deps>] {
        &self.inner.tools
    }
}

impl<Deps, O> Clone for Agent<Deps, O> {
    fn clone(&self) -> Self {
        Agent { inner: Arc::clone(&self.inner) }
    }
}

impl<Deps, O> fmt::Debug for Agent<Deps, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("config", &self.inner.config)
            .field("instructions", &self.inner.instructions)
            .field("observers", &self.inner.observers.len())
            .finish_non_exhaustive()
    }
}

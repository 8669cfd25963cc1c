//! The agent's room: what an agent is — an immutable, shareable bundle of
//! models, tools, instructions and output decoder (SPEC ARCH-03) — and
//! everything that goes into building one: the builder, the models of the
//! fallback chain, the instructions, the output plan, decoders and schemas,
//! the history processor.
//!
//! May import: `tool` (what an agent holds), `observe`'s settings, `run`,
//! golem-core. Never the drivers or the front door.

pub(crate) mod any_model;
pub(crate) mod builder;
pub(crate) mod decode;
pub(crate) mod history;
pub(crate) mod instructions;
pub(crate) mod output;
pub(crate) mod validate;

use crate::agent::any_model::AnyModel;
use crate::agent::decode::Decoder;
use crate::agent::history::Processor;
use crate::agent::instructions::Instructions;
use crate::tool::Tool;
use golem_core::{RunConfig, RunEvent};
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
/// Build one with [`Agent::builder`] (in the builder's room, which knows
/// what an agent is made of; this one knows nothing of building); run it
/// with [`Agent::run`] or [`Agent::run_with`].
pub struct Agent<Deps, O = String> {
    pub(crate) inner: Arc<AgentInner<Deps, O>>,
}

/// Everything an agent is; shared by all its clones and runs.
pub(crate) struct AgentInner<Deps, O> {
    /// The machine's configuration (the event-log header), checked and
    /// digested once for all runs.
    pub(crate) config: golem_core::machine::PreparedConfig,
    /// The fallback chain; index = `CallModel::member`.
    pub(crate) models: Arc<[AnyModel]>,
    /// Every model of the chain streams (SPEC STREAM-03).
    pub(crate) streams: bool,
    /// Registered tools, in registration order.
    pub(crate) tools: Arc<[Tool<Deps>]>,
    pub(crate) instructions: Instructions<Deps>,
    pub(crate) decoder: Arc<dyn Decoder<O, Deps>>,
    pub(crate) history_processor: Option<Processor>,
    /// Agent-scoped observers, called before run-scoped ones.
    pub(crate) observers: Vec<Observer>,
    /// What the run's trace knows beyond its events (SPEC OBS-01); read
    /// only with the `tracing` feature.
    #[cfg_attr(not(feature = "tracing"), allow(dead_code))]
    pub(crate) trace: Arc<crate::observe::TraceSettings>,
}

impl<Deps, O> Agent<Deps, O> {
    /// The run configuration every run of this agent starts from.
    pub fn config(&self) -> &RunConfig {
        self.inner.config.config()
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

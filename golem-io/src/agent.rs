//! The agent: an immutable, shareable bundle of model, tools, instructions
//! and output decoder (SPEC ARCH-03).

use crate::any_model::AnyModel;
use crate::builder::AgentBuilder;
use crate::decode::Decoder;
use crate::history::Processor;
use crate::instructions::Instructions;
use crate::tool::Tool;
use golem_core::{AsyncModel, Model, RunConfig, RunEvent};
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

impl<Deps: Send + Sync + 'static> Agent<Deps, String> {
    /// Start building an agent on `model`. The output is text until
    /// [`AgentBuilder::output`] or [`AgentBuilder::decoder`] says otherwise.
    ///
    /// `Deps` is inferred from the tools, the instructions function or the
    /// deps given to `run`; name it when nothing else does:
    /// `Agent::<MyDeps>::builder(model)`.
    pub fn builder(model: impl Model + 'static) -> AgentBuilder<Deps, String> {
        AgentBuilder::new(AnyModel::Blocking(Arc::new(model)))
    }

    /// Start building an agent on an async model. It runs natively under
    /// the async driver and, through a minimal `block_on` (no runtime),
    /// under the blocking one — unless it offers a blocking face
    /// ([`AsyncModel::as_blocking`]), which the blocking driver then uses.
    ///
    /// ```
    /// use golem_core::model::{AsyncModel, BoxFuture, ModelError, Request, Response};
    /// use golem_io::Agent;
    ///
    /// // An async-only model: no blocking face at all.
    /// struct Oracle;
    /// impl AsyncModel for Oracle {
    ///     fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
    ///         Box::pin(async { Ok(Response::text("42")) })
    ///     }
    /// }
    ///
    /// let agent = Agent::<()>::builder_async(Oracle).build()?;
    /// assert_eq!(agent.run((), "the answer?")?.output, "42");
    /// let answer = futures_lite::future::block_on(agent.run_async((), "the answer?"))?;
    /// assert_eq!(answer.output, "42");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder_async(model: impl AsyncModel + 'static) -> AgentBuilder<Deps, String> {
        AgentBuilder::new(AnyModel::Async(Arc::new(model)))
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

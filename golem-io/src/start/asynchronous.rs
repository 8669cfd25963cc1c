//! The async entry points (SPEC RUN-01, DRV-03): the blocking ones'
//! twins, each a shorthand for [`RunBuilder::call_async`](crate::RunBuilder::call_async).

use crate::agent::Agent;
use crate::results::result::RunResult;
use crate::results::stream_delta::StreamDelta;
use crate::Error;
use golem_core::model::BoxError;
use golem_core::{DeferredResults, Message};
use std::future::Future;
use std::sync::Arc;

impl<Deps: Send + Sync + 'static, O: 'static> Agent<Deps, O> {
    /// Run the agent on `prompt` with `deps` on the async driver. The
    /// future needs no particular executor (smol, tokio, a plain
    /// `block_on`), spawns nothing, and is `Send` when `Deps` and the output
    /// are; dropping it cancels the run.
    ///
    /// ```
    /// use golem_core::testing::ScriptedModel;
    /// use golem_io::Agent;
    ///
    /// let agent = Agent::<()>::builder(ScriptedModel::new().text("hello")).build()?;
    /// let result = futures_lite::future::block_on(agent.run_async((), "hi"))?;
    /// assert_eq!(result.output, "hello");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_async(
        &self,
        deps: impl Into<Arc<Deps>>,
        prompt: &str,
    ) -> impl Future<Output = Result<RunResult<O>, Error>> + '_ {
        self.run_with(deps).prompt(prompt).call_async()
    }

    /// [`run_with_history`](Self::run_with_history) on the async driver.
    pub fn run_with_history_async(
        &self,
        deps: impl Into<Arc<Deps>>,
        history: Vec<Message>,
        prompt: &str,
    ) -> impl Future<Output = Result<RunResult<O>, Error>> + '_ {
        self.run_with(deps).history(history).prompt(prompt).call_async()
    }

    /// [`resume`](Self::resume) on the async driver.
    pub fn resume_async(
        &self,
        deps: impl Into<Arc<Deps>>,
        history: Vec<Message>,
        results: DeferredResults,
    ) -> impl Future<Output = Result<RunResult<O>, Error>> + '_ {
        self.run_with(deps).history(history).resume(results).call_async()
    }

    /// [`run_stream`](Self::run_stream) on the async driver: `on_delta`
    /// is called from the run's own future, in arrival order.
    pub fn run_stream_async<'a>(
        &'a self,
        deps: impl Into<Arc<Deps>>,
        prompt: &str,
        on_delta: impl FnMut(StreamDelta<'_>) -> Result<(), BoxError> + Send + 'a,
    ) -> impl Future<Output = Result<RunResult<O>, Error>> + 'a {
        self.run_with(deps).prompt(prompt).on_delta(on_delta).call_async()
    }
}

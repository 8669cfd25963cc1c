//! The user's side: name the agents to serve, then serve them.

use super::workflow::{AgentRunner, GolemAgent, Runner};
use crate::agent::Agent;
use restate_sdk::endpoint::Endpoint;
use restate_sdk::http_server::HttpServer;
use restate_sdk::service::{IntoServiceDefinition, ServiceDefinition};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// The agents a Restate deployment serves, by name: one workflow,
/// [`GolemAgent`](super::SERVICE_NAME), runs any of them (the run request
/// names one). The agents are the same values the other drivers run —
/// same model, tools, deps and decoder.
///
/// ```no_run
/// use golem_core::testing::ScriptedModel;
/// use golem_io::restate::DurableAgents;
/// use golem_io::Agent;
///
/// let agent = Agent::<()>::builder(ScriptedModel::new().text("hello")).build()?;
/// let listener = std::net::TcpListener::bind("127.0.0.1:9080")?;
/// // Blocks; register http://127.0.0.1:9080 with the Restate server.
/// DurableAgents::new().agent("greeter", agent, ()).serve(listener)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
pub struct DurableAgents {
    agents: BTreeMap<String, Arc<dyn Runner>>,
}

impl fmt::Debug for DurableAgents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DurableAgents").field("agents", &self.agents.keys().collect::<Vec<_>>()).finish()
    }
}

impl DurableAgents {
    /// No agents yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serve `agent` under `name`, its tools seeing `deps`. The output must
    /// serialize: the caller gets it as JSON. A second agent under the same
    /// name replaces the first.
    pub fn agent<Deps, O>(mut self, name: impl Into<String>, agent: Agent<Deps, O>, deps: impl Into<Arc<Deps>>) -> Self
    where
        Deps: Send + Sync + 'static,
        O: Serialize + Send + Sync + 'static,
    {
        let runner = AgentRunner { agent, deps: deps.into() };
        self.agents.insert(name.into(), Arc::new(runner));
        self
    }

    /// The names served, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.agents.keys().map(String::as_str)
    }

    /// A Restate endpoint with the workflow bound, for programs that run
    /// their own tokio runtime and HTTP server (`restate_sdk::http_server`).
    pub fn endpoint(self) -> Endpoint {
        Endpoint::builder().bind(self).build()
    }

    /// Serve the workflow on `listener` until the process ends, on a tokio
    /// runtime of its own (the caller needs none). Returns early only when
    /// the runtime cannot start or the listener cannot be used.
    pub fn serve(self, listener: std::net::TcpListener) -> std::io::Result<()> {
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let endpoint = self.endpoint();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            HttpServer::new(endpoint).serve(listener).await;
            Ok(())
        })
    }
}

impl IntoServiceDefinition for DurableAgents {
    fn into_service_definition(self) -> ServiceDefinition {
        GolemAgent { agents: Arc::new(self.agents) }.into_service_definition()
    }
}

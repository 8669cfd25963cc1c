//! The user's side: name the agents to serve, who hears their runs, which
//! requests to trust — then serve them.

use super::identity::{checked, IdentityKeyError};
use super::observer::{DurableEvent, DurableObserver};
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
/// same model, tools, deps, decoder and observers.
///
/// ```no_run
/// use golem_core::testing::ScriptedModel;
/// use golem_io::restate::DurableAgents;
/// use golem_io::Agent;
///
/// let agent = Agent::<()>::builder(ScriptedModel::new().text("hello")).build()?;
/// // Loopback: only this host reaches the service (see `identity_key`).
/// let listener = std::net::TcpListener::bind("127.0.0.1:9080")?;
/// // Blocks; register http://127.0.0.1:9080 with the Restate server.
/// DurableAgents::new().agent("greeter", agent, ()).serve(listener)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
pub struct DurableAgents {
    agents: BTreeMap<String, Arc<dyn Runner>>,
    observers: Vec<DurableObserver>,
    identity_keys: Vec<String>,
}

impl fmt::Debug for DurableAgents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DurableAgents")
            .field("agents", &self.agents.keys().collect::<Vec<_>>())
            .field("observers", &self.observers.len())
            .field("identity_keys", &self.identity_keys)
            .finish()
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

    /// Hear the events of every run this service executes, with the run's
    /// workflow key — after the agent's own observers, synchronously and
    /// in order, once per real execution ([`DurableEvent`]). A streamed
    /// run ([`RunRequest::streamed`](super::RunRequest::streamed)) brings
    /// each fragment here as it arrives, the way to show a durable run
    /// live. Observers must not block, and cannot fail a run.
    ///
    /// ```
    /// use golem_io::restate::DurableAgents;
    /// use golem_io::EventKind;
    ///
    /// let agents = DurableAgents::new().observer(|e| {
    ///     if let EventKind::Delta { delta, .. } = &e.event.kind {
    ///         println!("{} {}: {delta:?}", e.agent, e.key);
    ///     }
    /// });
    /// # let _ = agents;
    /// ```
    pub fn observer(mut self, observer: impl Fn(&DurableEvent<'_>) + Send + Sync + 'static) -> Self {
        self.observers.push(Arc::new(observer));
        self
    }

    /// Answer only requests the Restate server signed with the private key
    /// matching `key` (a `publickeyv1_…` request-identity public key; SPEC
    /// DUR-05): anything else that reaches the service's port — an
    /// unsigned request, another server — is refused with 401. Give more
    /// than one key to rotate them. Without a key the service trusts its
    /// network: bind it to loopback, or let nothing else reach it.
    ///
    /// ```
    /// use golem_io::restate::DurableAgents;
    ///
    /// let key = "publickeyv1_BsWsgmqSwCG1RT8oc9dNxM7NioKG7Gt6nZtxQsPM5L9F";
    /// let agents = DurableAgents::new().identity_key(key)?;
    /// assert!(DurableAgents::new().identity_key("not a key").is_err());
    /// # let _ = agents;
    /// # Ok::<(), golem_io::restate::IdentityKeyError>(())
    /// ```
    pub fn identity_key(mut self, key: &str) -> Result<Self, IdentityKeyError> {
        self.identity_keys.push(checked(key)?);
        Ok(self)
    }

    /// The names served, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.agents.keys().map(String::as_str)
    }

    /// A Restate endpoint with the workflow bound and the identity keys
    /// set, for programs that run their own tokio runtime and HTTP server
    /// (`restate_sdk::http_server`).
    pub fn endpoint(self) -> Endpoint {
        let mut builder = Endpoint::builder();
        for key in &self.identity_keys {
            match builder.identity_key(key) {
                Ok(keyed) => builder = keyed,
                // Checked when it was given, so this cannot happen; if it
                // did, serve nothing rather than serve unverified.
                Err(_) => return Endpoint::builder().build(),
            }
        }
        builder.bind(self).build()
    }

    /// Serve the workflow on `listener` until the process ends, on a tokio
    /// runtime of its own (the caller needs none). Returns early only when
    /// the runtime cannot start or the listener cannot be used.
    ///
    /// The service answers whoever reaches `listener`: bind it to loopback
    /// (`127.0.0.1`) when Restate runs on the same host, and set an
    /// [`identity_key`](Self::identity_key) whenever anything else can
    /// reach it.
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
        GolemAgent { agents: Arc::new(self.agents), observers: self.observers.into() }.into_service_definition()
    }
}

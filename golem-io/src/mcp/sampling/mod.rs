//! Sampling (SPEC MCP-18): a server asks the client's model for a
//! completion (`sampling/createMessage`), and a model the application
//! chooses answers — any golem [`Model`] or [`AsyncModel`], a provider
//! client or a test model.
//!
//! The client offers sampling only when the application hands it a
//! [`Sampling`] ([`ClientOptions::sampling`]); without one the request gets
//! −32601. Each request is read into a [`SamplingRequest`] (its messages as
//! golem [`Message`](crate::Message)s, text, images and audio; the system
//! prompt; `maxTokens` capped by the client's own limit; temperature, stop
//! sequences, model preferences), put to the application's approval hook,
//! which may refuse it (the server then gets a JSON-RPC error), and given
//! to the model the application chose for it. The answer goes back as a
//! `CreateMessageResult`: role, content, model name, stop reason.
//!
//! A golem [`Request`](crate::Request) carries no generation settings of its
//! own, so `maxTokens`, `temperature` and `stopSequences` reach the model
//! through the application: a [chooser](Sampling::choose) reads them from
//! the [`SamplingRequest`] and returns a model configured with them. The
//! client applies stop sequences itself (the text is cut at the first one)
//! and can hold every request to a total token budget.
//!
//! [`ClientOptions::sampling`]: crate::mcp::ClientOptions::sampling

mod answer;
mod request;
mod run;

pub use request::{ModelPreferences, SamplingRequest};
pub(crate) use run::Sampler;

use crate::{AsyncModel, Model};
use std::fmt;
use std::sync::Arc;

/// The largest `maxTokens` a request is given unless the application says
/// otherwise ([`Sampling::max_tokens`]).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A model that answers sampling requests, and the name the server is told
/// (`CreateMessageResult.model`).
///
/// ```
/// use golem_io::mcp::SamplingModel;
/// use golem_io::{Model, ModelError, Request, Response};
///
/// struct Canned;
/// impl Model for Canned {
///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
///         Ok(Response::text("42"))
///     }
/// }
/// let model = SamplingModel::new("canned-1", Canned);
/// assert_eq!(model.name(), "canned-1");
/// ```
#[derive(Clone)]
pub struct SamplingModel {
    name: String,
    face: Face,
}

#[derive(Clone)]
enum Face {
    Blocking(Arc<dyn Model>),
    Async(Arc<dyn AsyncModel>),
}

impl SamplingModel {
    /// A blocking model (an `Arc` of one shares it with an agent).
    pub fn new(name: impl Into<String>, model: impl Model + 'static) -> Self {
        SamplingModel { name: name.into(), face: Face::Blocking(Arc::new(model)) }
    }

    /// An async model, driven on the sampling thread.
    pub fn new_async(name: impl Into<String>, model: impl AsyncModel + 'static) -> Self {
        SamplingModel { name: name.into(), face: Face::Async(Arc::new(model)) }
    }

    /// The name the server is told.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for SamplingModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SamplingModel").field("name", &self.name).finish_non_exhaustive()
    }
}

/// What the approval hook decides about one request.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SamplingDecision {
    /// Let the model answer.
    Approve,
    /// Refuse: the server gets a JSON-RPC error with this message.
    Refuse(String),
}

type Chooser = Arc<dyn Fn(&SamplingRequest) -> Result<SamplingModel, String> + Send + Sync>;
type Approver = Arc<dyn Fn(&SamplingRequest) -> SamplingDecision + Send + Sync>;

/// How the client answers a server's sampling requests: the model, the
/// approval hook and the token limits. Hand it to
/// [`ClientOptions::sampling`](crate::mcp::ClientOptions::sampling).
///
/// ```
/// use golem_io::mcp::{ClientOptions, Sampling, SamplingDecision, SamplingModel};
/// use golem_io::{Model, ModelError, Request, Response};
///
/// struct Canned;
/// impl Model for Canned {
///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
///         Ok(Response::text("42"))
///     }
/// }
/// let sampling = Sampling::new(SamplingModel::new("canned-1", Canned))
///     .max_tokens(512)
///     .token_budget(20_000)
///     .approve(|request| match request.messages.len() {
///         0..=20 => SamplingDecision::Approve,
///         _ => SamplingDecision::Refuse("too long a conversation".into()),
///     });
/// let options = ClientOptions::new().sampling(sampling);
/// ```
#[derive(Clone)]
pub struct Sampling {
    choose: Chooser,
    approve: Option<Approver>,
    max_tokens: u32,
    budget: Option<u64>,
}

impl Sampling {
    /// Every request answered by `model`.
    pub fn new(model: SamplingModel) -> Self {
        Sampling::choose(move |_| Ok(model.clone()))
    }

    /// Each request answered by the model `choose` picks for it — from the
    /// server's [model preferences](SamplingRequest::preferences), or built
    /// with the request's `max_tokens`, temperature and stop sequences. An
    /// `Err` refuses the request with that message.
    pub fn choose(choose: impl Fn(&SamplingRequest) -> Result<SamplingModel, String> + Send + Sync + 'static) -> Self {
        Sampling { choose: Arc::new(choose), approve: None, max_tokens: DEFAULT_MAX_TOKENS, budget: None }
    }

    /// Builder-style: ask `approve` about every request before the model
    /// sees it (a person, a policy); without a hook every request is
    /// approved. It runs on a thread of its own and may block.
    pub fn approve(mut self, approve: impl Fn(&SamplingRequest) -> SamplingDecision + Send + Sync + 'static) -> Self {
        self.approve = Some(Arc::new(approve));
        self
    }

    /// Builder-style: the most tokens any request may ask for; a larger
    /// `maxTokens` is lowered to it ([`DEFAULT_MAX_TOKENS`] by default).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens.max(1);
        self
    }

    /// Builder-style: the most tokens (input and output, as the models
    /// report them) all of one client's sampling may use; once spent,
    /// requests are refused. Checked before each request, so the last one
    /// may pass it.
    pub fn token_budget(mut self, tokens: u64) -> Self {
        self.budget = Some(tokens);
        self
    }
}

impl fmt::Debug for Sampling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sampling")
            .field("approve", &self.approve.is_some())
            .field("max_tokens", &self.max_tokens)
            .field("token_budget", &self.budget)
            .finish_non_exhaustive()
    }
}

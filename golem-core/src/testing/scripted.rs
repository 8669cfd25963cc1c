//! The scripted fake model (SPEC TEST-01, TEST-02).

use crate::message::ToolCall;
use crate::model::{AsyncModel, Capabilities, DeltaSink, ModelError, Request, Response, StreamingModel};
use crate::stream::stream_response;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

/// The text-chunk size fakes stream with unless told otherwise.
pub const DEFAULT_CHUNK_SIZE: usize = 4;

/// What a fake reports unless told otherwise: it streams, nothing more.
pub(crate) const FAKE_CAPABILITIES: Capabilities = Capabilities::new();

/// A model that answers from a queue of scripted steps, each a response or a
/// failure, and records every request it receives.
///
/// Every model call — `generate`, `stream`, blocking or async — takes the
/// next step. When the queue is empty the call fails with a
/// [`ModelErrorKind::Other`](crate::model::ModelErrorKind::Other) error that
/// says how to queue more.
///
/// Clones share one queue and one request log (the state sits behind an
/// `Arc<Mutex<…>>`), so a test can hand a clone to an agent, keep the
/// original, queue more steps with the `push_*` methods while the agent runs
/// and inspect [`requests`](Self::requests) afterwards. The builder-style
/// settings ([`chunk_size`](Self::chunk_size),
/// [`with_capabilities`](Self::with_capabilities)) are shared the same way.
///
/// ```
/// use golem_core::model::{Model, Request};
/// use golem_core::testing::ScriptedModel;
/// use golem_core::Message;
///
/// let model = ScriptedModel::new().tool_call("get_time", "{}").text("noon");
/// let request = Request::new(vec![Message::user("time?")]);
/// assert_eq!(model.generate(&request).unwrap().message.tool_calls[0].id, "call_1");
/// assert_eq!(model.generate(&request).unwrap().message.content, "noon");
/// assert!(model.generate(&request).unwrap_err().message.contains("ScriptedModel::respond"));
/// assert_eq!(model.request_count(), 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ScriptedModel {
    state: Arc<Mutex<ScriptState>>,
}

#[derive(Debug)]
struct ScriptState {
    steps: VecDeque<Result<Response, ModelError>>,
    requests: Vec<Request>,
    chunk_size: usize,
    capabilities: Capabilities,
    /// Tool calls minted by the shorthand so far, numbering `call_<n>` ids.
    shorthand_calls: u64,
}

impl Default for ScriptState {
    fn default() -> Self {
        ScriptState {
            steps: VecDeque::new(),
            requests: Vec::new(),
            chunk_size: DEFAULT_CHUNK_SIZE,
            capabilities: FAKE_CAPABILITIES,
            shorthand_calls: 0,
        }
    }
}

impl ScriptedModel {
    /// A model with an empty queue.
    pub fn new() -> Self {
        ScriptedModel::default()
    }

    /// Builder-style: queue `response`.
    pub fn respond(self, response: Response) -> Self {
        self.push_response(response);
        self
    }

    /// Builder-style: queue a failure.
    pub fn fail(self, error: ModelError) -> Self {
        self.push_failure(error);
        self
    }

    /// Builder-style: queue an assistant text answer.
    pub fn text(self, content: impl Into<String>) -> Self {
        self.push_text(content);
        self
    }

    /// Builder-style: queue a response calling `name` with the raw argument
    /// text `args`; the call's id is `call_<n>`, n counting this model's
    /// shorthand calls from 1.
    pub fn tool_call(self, name: impl Into<String>, args: impl Into<String>) -> Self {
        self.push_tool_call(name, args);
        self
    }

    /// Builder-style: stream text and arguments in pieces of `chars`
    /// characters (0: whole). The default is [`DEFAULT_CHUNK_SIZE`].
    pub fn chunk_size(self, chars: usize) -> Self {
        self.lock().chunk_size = chars;
        self
    }

    /// Builder-style: report `capabilities` (default: none; every fake streams).
    pub fn with_capabilities(self, capabilities: Capabilities) -> Self {
        self.lock().capabilities = capabilities;
        self
    }

    /// Queue `response` (usable while the model is shared).
    pub fn push_response(&self, response: Response) {
        self.lock().steps.push_back(Ok(response));
    }

    /// Queue a failure (usable while the model is shared).
    pub fn push_failure(&self, error: ModelError) {
        self.lock().steps.push_back(Err(error));
    }

    /// Queue an assistant text answer (usable while the model is shared).
    pub fn push_text(&self, content: impl Into<String>) {
        self.push_response(Response::text(content));
    }

    /// Queue a tool-call response as [`tool_call`](Self::tool_call) does
    /// (usable while the model is shared).
    pub fn push_tool_call(&self, name: impl Into<String>, args: impl Into<String>) {
        let mut state = self.lock();
        state.shorthand_calls = state.shorthand_calls.saturating_add(1);
        let call = ToolCall::new(format!("call_{}", state.shorthand_calls), name, args.into());
        state.steps.push_back(Ok(Response::tool_calls(vec![call])));
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.lock().requests.clone()
    }

    /// The most recent request, if any.
    pub fn last_request(&self) -> Option<Request> {
        self.lock().requests.last().cloned()
    }

    /// How many requests were received (answered or not).
    pub fn request_count(&self) -> usize {
        self.lock().requests.len()
    }

    /// How many steps are still queued.
    pub fn remaining(&self) -> usize {
        self.lock().steps.len()
    }

    /// A poisoned lock only means another test thread panicked mid-call; the
    /// queue itself is still consistent, so keep going rather than panic too.
    fn lock(&self) -> MutexGuard<'_, ScriptState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Record `request` and take the next step, plus the chunk size to
    /// stream it with. The lock is released before any streaming, so a sink
    /// may queue more steps without deadlocking.
    fn next_step(&self, request: &Request) -> (Result<Response, ModelError>, usize) {
        let mut state = self.lock();
        state.requests.push(deep_copy(request));
        let number = state.requests.len();
        let step = state.steps.pop_front().unwrap_or_else(|| Err(exhausted(number)));
        (step, state.chunk_size)
    }

    fn caps(&self) -> Capabilities {
        self.lock().capabilities
    }
}

/// A copy that shares no `Arc` with the run's request, so what a test
/// inspects is exactly what the model was sent, whatever the run keeps doing
/// with its own handles.
fn deep_copy(request: &Request) -> Request {
    let mut copy = request.clone();
    copy.messages = Arc::new(request.messages.to_vec());
    copy.tools = Arc::new(request.tools.as_ref().clone());
    copy.output_schema = request.output_schema.as_deref().map(|schema| Arc::new(schema.clone()));
    copy
}

fn exhausted(number: usize) -> ModelError {
    ModelError::other(format!(
        "scripted model has no response queued for request {number}; queue more with \
         ScriptedModel::respond, ScriptedModel::fail or ScriptedModel::push_response"
    ))
}

impl StreamingModel for ScriptedModel {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        self.next_step(request).0
    }

    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        let (step, chunk) = self.next_step(request);
        stream_response(step?, chunk, sink)
    }

    fn capabilities(&self) -> Capabilities {
        self.caps()
    }

    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

super::async_via_blocking!(ScriptedModel);

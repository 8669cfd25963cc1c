//! The function-backed fake model (SPEC TEST-01).

use super::scripted::{DEFAULT_CHUNK_SIZE, FAKE_CAPABILITIES};
use crate::model::{AsyncModel, Capabilities, DeltaSink, ModelError, Request, Response, StreamingModel};
use crate::stream::stream_response;
use std::fmt;
use std::sync::Arc;

type ModelFn = dyn Fn(&Request) -> Result<Response, ModelError> + Send + Sync;

/// A model whose answers come from a function, for logic a queue cannot
/// express (answers that depend on the request, counters, assertions).
///
/// Streaming converts the function's response with
/// [`response_deltas`](super::response_deltas), exactly as
/// [`ScriptedModel`](super::ScriptedModel) does. Clones share the function.
///
/// ```
/// use golem_core::model::{Model, Request, Response};
/// use golem_core::testing::FnModel;
/// use golem_core::Message;
///
/// let echo = FnModel::new(|req: &Request| {
///     Ok(Response::text(req.messages.last().map(|m| m.content.clone()).unwrap_or_default()))
/// });
/// let reply = echo.generate(&Request::new(vec![Message::user("ping")])).unwrap();
/// assert_eq!(reply.message.content, "ping");
/// ```
#[derive(Clone)]
pub struct FnModel {
    f: Arc<ModelFn>,
    chunk_size: usize,
    capabilities: Capabilities,
}

impl FnModel {
    /// A model answering every request with `f`.
    pub fn new<F>(f: F) -> Self
    where
        F: Fn(&Request) -> Result<Response, ModelError> + Send + Sync + 'static,
    {
        FnModel { f: Arc::new(f), chunk_size: DEFAULT_CHUNK_SIZE, capabilities: FAKE_CAPABILITIES }
    }

    /// Builder-style: stream text and arguments in pieces of `chars`
    /// characters (0: whole).
    pub fn chunk_size(mut self, chars: usize) -> Self {
        self.chunk_size = chars;
        self
    }

    /// Builder-style: report `capabilities` (default: none; every fake streams).
    pub fn with_capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }
}

impl fmt::Debug for FnModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnModel")
            .field("chunk_size", &self.chunk_size)
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

impl StreamingModel for FnModel {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        (self.f)(request)
    }

    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        stream_response((self.f)(request)?, self.chunk_size, sink)
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

super::async_via_blocking!(FnModel);

//! Answering one sampling request: read it, check the budget, ask the
//! approval hook, choose the model, call it, map the answer. Application
//! code (hook, chooser, model) runs with its panics contained: a panic
//! refuses the request, it never takes the client down.

use super::answer::create_message_result;
use super::request::SamplingRequest;
use super::{Face, Sampling, SamplingDecision, SamplingModel};
use crate::mcp::jsonrpc::RpcError;
use crate::run::block_on::block_on_or_cancel;
use crate::run::cancel::CancellationToken;
use crate::run::contain::contain;
use crate::{ModelError, Request, Response};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};

/// The code of a refused sampling request (the MCP specification's own
/// example for a user who said no).
pub(crate) const REFUSED: i64 = -1;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

/// One client's sampling: the application's configuration and the tokens
/// spent so far.
pub(crate) struct Sampler {
    config: Sampling,
    spent: AtomicU64,
}

fn error(code: i64, message: impl Into<String>) -> RpcError {
    RpcError { code, message: message.into(), data: None }
}

impl Sampler {
    pub(crate) fn new(config: Sampling) -> Sampler {
        Sampler { config, spent: AtomicU64::new(0) }
    }

    /// The answer to a request with `params`: its result, or the error the
    /// server gets; `None` when `cancel` fired first (the server gave up,
    /// or the client closed), so nothing is sent. `note` hears what the
    /// application should know and the server need not (a model's error).
    pub(crate) fn answer(
        &self,
        params: &Value,
        cancel: &CancellationToken,
        note: &dyn Fn(String),
    ) -> Option<Result<Value, RpcError>> {
        let request = match SamplingRequest::from_params(params, self.config.max_tokens) {
            Ok(request) => request,
            Err(reason) => return Some(Err(error(INVALID_PARAMS, format!("invalid sampling request: {reason}")))),
        };
        if let Err(refusal) = self.admit(&request) {
            return Some(Err(refusal));
        }
        let model = match contain("the sampling model chooser", || (self.config.choose)(&request)) {
            Ok(Ok(model)) => model,
            Ok(Err(reason)) => return Some(Err(error(REFUSED, reason))),
            Err(panicked) => {
                note(panicked.to_string());
                return Some(Err(error(REFUSED, "the client could not choose a model")));
            }
        };
        let response = match generate(&model, &request.to_request(), cancel)? {
            Ok(response) => response,
            Err(failure) => {
                note(format!("the sampling model {} failed: {failure}", model.name()));
                let kind = format!("{:?}", failure.kind).to_ascii_lowercase();
                return Some(Err(error(INTERNAL_ERROR, format!("the client's model failed ({kind})"))));
            }
        };
        if cancel.is_canceled() {
            return None;
        }
        let usage = response.usage.input_tokens.saturating_add(response.usage.output_tokens);
        self.spent.fetch_add(usage, Ordering::SeqCst);
        Some(
            create_message_result(&response, model.name(), &request.stop_sequences)
                .map_err(|e| error(INTERNAL_ERROR, e)),
        )
    }

    /// The budget and the approval hook.
    fn admit(&self, request: &SamplingRequest) -> Result<(), RpcError> {
        if self.config.budget.is_some_and(|budget| self.spent.load(Ordering::SeqCst) >= budget) {
            return Err(error(REFUSED, "the client's sampling token budget is spent"));
        }
        let Some(approve) = &self.config.approve else { return Ok(()) };
        match contain("the sampling approval hook", || approve(request)) {
            Ok(SamplingDecision::Approve) => Ok(()),
            Ok(SamplingDecision::Refuse(reason)) => Err(error(REFUSED, reason)),
            Err(_) => Err(error(REFUSED, "the client's approval hook failed")),
        }
    }
}

/// Call the model: a blocking one (or an async one's blocking face) on this
/// thread, an async one driven here until it answers or `cancel` fires
/// (`None`). A panic is the model's failure.
fn generate(
    model: &SamplingModel,
    request: &Request,
    cancel: &CancellationToken,
) -> Option<Result<Response, ModelError>> {
    let call = || match &model.face {
        Face::Blocking(m) => Some(m.generate(request)),
        Face::Async(m) => match m.as_blocking() {
            Some(native) => Some(native.generate(request)),
            None => block_on_or_cancel(m.generate_async(request), cancel),
        },
    };
    contain("the sampling model", call).unwrap_or_else(|p| Some(Err(ModelError::other(p.to_string()))))
}

//! A model as an agent stores it (SPEC MODEL-01, DRV-04): blocking or
//! async, and either kind runnable under both drivers, so a fallback chain
//! may mix them. A model with both faces (`Model::as_async`,
//! `AsyncModel::as_blocking`) runs natively in each driver — for a streamed
//! call, when that face streams too.

#[cfg(feature = "blocking")]
use crate::run::block_on::block_on_or_cancel;
#[cfg(feature = "blocking")]
use crate::run::cancel::CancellationToken;
#[cfg(feature = "async")]
use crate::run::contain::contain_async;
use crate::run::contain::{contain, Panicked};
#[cfg(feature = "async")]
use golem_core::model::BoxFuture;
use golem_core::{AsyncModel, Capabilities, DeltaSink, Model, ModelError, Request, Response};
use std::sync::Arc;

/// One member of an agent's fallback chain.
pub(crate) enum AnyModel {
    /// Given to the builder as a [`Model`].
    Blocking(Arc<dyn Model>),
    /// Given to the builder as an [`AsyncModel`].
    Async(Arc<dyn AsyncModel>),
}

type ModelResult = Result<Response, ModelError>;

impl AnyModel {
    /// What the model supports.
    pub(crate) fn capabilities(&self) -> Capabilities {
        match self {
            AnyModel::Blocking(m) => m.capabilities(),
            AnyModel::Async(m) => m.capabilities(),
        }
    }

    /// The model stops by a request's timeout when the blocking driver
    /// calls it (SPEC DRV-02): it says so, through the face that driver
    /// calls natively. An async-only model is raced by `block_on` against
    /// its cancel token, which only a thread can fire at a deadline.
    #[cfg(feature = "blocking")]
    pub(crate) fn honours_timeout(&self) -> bool {
        match self {
            AnyModel::Blocking(m) => m.capabilities().honours_timeout,
            AnyModel::Async(m) => m.as_blocking().is_some_and(|native| native.capabilities().honours_timeout),
        }
    }

    /// The model stops by a request's timeout when the async driver makes
    /// a plain call — through the face that driver calls: its async face, a
    /// blocking model's native async face, or, on the blocking pool, its
    /// blocking face. The driver then leaves the call's deadline to the
    /// model instead of arming a timer for it (issue 37).
    #[cfg(feature = "async")]
    pub(crate) fn honours_timeout_async(&self) -> bool {
        match self {
            AnyModel::Async(m) => m.capabilities().honours_timeout,
            AnyModel::Blocking(m) => match native_async(m.as_ref(), false) {
                Some(native) => native.capabilities().honours_timeout,
                None => m.capabilities().honours_timeout,
            },
        }
    }

    /// The model streams: the face it was given by implements streaming
    /// (SPEC MODEL-02), so it cannot claim what it does not do.
    pub(crate) fn streams(&self) -> bool {
        match self {
            AnyModel::Blocking(m) => m.as_streaming().is_some(),
            AnyModel::Async(m) => m.as_streaming().is_some(),
        }
    }

    /// Call on this thread (the blocking driver), streaming into `sink` when
    /// given. An async-only model is driven by a minimal `block_on` raced
    /// against `cancel`; `None` means the run gave up and the future was
    /// dropped.
    #[cfg(feature = "blocking")]
    pub(crate) fn call_blocking(
        &self,
        request: &Request,
        sink: Option<&mut dyn DeltaSink>,
        cancel: &CancellationToken,
    ) -> Option<ModelResult> {
        let call = || match self {
            AnyModel::Blocking(m) => Some(generate(m.as_ref(), request, sink)),
            AnyModel::Async(m) => {
                match m.as_blocking().filter(|native| sink.is_none() || native.as_streaming().is_some()) {
                    Some(native) => Some(generate(native, request, sink)),
                    None => block_on_or_cancel(generate_async(m.as_ref(), request, sink), cancel),
                }
            }
        };
        contain("the model", call).unwrap_or_else(|p| Some(Err(panic_error(p))))
    }

    /// The call as a `'static` future (the async driver), streaming into
    /// `sink` when given. A blocking-only model runs on the blocking thread
    /// pool; dropping the future abandons it there.
    #[cfg(feature = "async")]
    pub(crate) fn call_async<S>(&self, request: Request, mut sink: Option<S>) -> BoxFuture<'static, ModelResult>
    where
        S: DeltaSink + 'static,
    {
        // Each face's call and its panic containment are one future in one
        // allocation: a model call's wrapper boxed apart from its call was
        // a second allocation per call, cold by the time it was polled with
        // many runs in flight (issue 37).
        match self {
            AnyModel::Async(m) => {
                let m = Arc::clone(m);
                Box::pin(async move {
                    let call = generate_async(m.as_ref(), &request, as_dyn(&mut sink));
                    contain_async("the model", call).await.unwrap_or_else(|p| Err(panic_error(p)))
                })
            }
            AnyModel::Blocking(m) if native_async(m.as_ref(), sink.is_some()).is_some() => {
                let m = Arc::clone(m);
                Box::pin(async move {
                    let call = async {
                        match native_async(m.as_ref(), sink.is_some()) {
                            Some(native) => generate_async(native, &request, as_dyn(&mut sink)).await,
                            // Checked above; a model whose answer changed is
                            // still served, only less efficiently.
                            None => generate(m.as_ref(), &request, as_dyn(&mut sink)),
                        }
                    };
                    contain_async("the model", call).await.unwrap_or_else(|p| Err(panic_error(p)))
                })
            }
            AnyModel::Blocking(m) => {
                let m = Arc::clone(m);
                // The panic is contained on the pool thread: one escaping
                // there would leave the task without an answer.
                Box::pin(blocking::unblock(move || {
                    contain("the model", || generate(m.as_ref(), &request, as_dyn(&mut sink)))
                        .unwrap_or_else(|p| Err(panic_error(p)))
                }))
            }
        }
    }
}

#[cfg(feature = "async")]
fn as_dyn<S: DeltaSink>(sink: &mut Option<S>) -> Option<&mut dyn DeltaSink> {
    sink.as_mut().map(|s| s as &mut dyn DeltaSink)
}

/// A blocking model's async face, when it has one that can make this call
/// (a streamed call needs a face that streams).
#[cfg(feature = "async")]
fn native_async(model: &dyn Model, streamed: bool) -> Option<&dyn AsyncModel> {
    model.as_async().filter(|native| !streamed || native.as_streaming().is_some())
}

fn generate(model: &dyn Model, request: &Request, sink: Option<&mut dyn DeltaSink>) -> ModelResult {
    match (sink, model.as_streaming()) {
        (Some(sink), Some(streaming)) => streaming.stream(request, sink),
        // The run checked every member streams before it started; this is
        // a model whose answer changed since.
        (Some(_), None) => Err(ModelError::streaming_unsupported()),
        (None, _) => model.generate(request),
    }
}

/// The model's own future for the call, not wrapped in one more: each
/// layer is a state machine every poll walks (issue 37).
fn generate_async<'a, 's: 'a>(
    model: &'a dyn AsyncModel,
    request: &'a Request,
    sink: Option<&'a mut (dyn DeltaSink + 's)>,
) -> golem_core::model::BoxFuture<'a, ModelResult> {
    match (sink, model.as_streaming()) {
        (Some(sink), Some(streaming)) => streaming.stream_async(request, sink),
        (Some(_), None) => Box::pin(std::future::ready(Err(ModelError::streaming_unsupported()))),
        (None, _) => model.generate_async(request),
    }
}

fn panic_error(panicked: Panicked) -> ModelError {
    ModelError::other(panicked.to_string()).with_source(panicked)
}

//! The four model traits (SPEC MODEL-01, MODEL-02): blocking and async,
//! each with a streaming form.
//!
//! A model that can stream implements [`StreamingModel`] (or
//! [`AsyncStreamingModel`]) and nothing else: blanket impls make it a
//! [`Model`] (an [`AsyncModel`]) whose `as_streaming` returns it. There is no
//! flag to set beside the implementation, so what a model claims and what it
//! does cannot disagree. Implementing both `Model` and `StreamingModel` for
//! one type is a compile error (conflicting impls), never a run-time surprise.

use super::{BoxError, BoxFuture, Capabilities, Delta, ModelError, Request, Response};
use std::sync::Arc;

/// Where a streaming model delivers its fragments. Returning an error stops
/// the stream; the model must then return promptly with
/// [`ModelErrorKind::SinkAborted`](super::ModelErrorKind::SinkAborted)
/// carrying the error as its source.
pub trait DeltaSink: Send {
    /// Receive one fragment.
    fn delta(&mut self, delta: Delta) -> Result<(), BoxError>;
}

impl<F> DeltaSink for F
where
    F: FnMut(Delta) -> Result<(), BoxError> + Send,
{
    fn delta(&mut self, delta: Delta) -> Result<(), BoxError> {
        self(delta)
    }
}

/// A sink that keeps nothing: a streaming model's plain `generate`.
struct Discard;

impl DeltaSink for Discard {
    fn delta(&mut self, _: Delta) -> Result<(), BoxError> {
        Ok(())
    }
}

/// A blocking model: one call in, one response out.
///
/// Implement `generate`; override `capabilities` when the model has
/// provider features. A model that streams implements [`StreamingModel`]
/// instead, and is a `Model` through the blanket impl. Custom models report
/// no capabilities unless they say otherwise.
///
/// ```
/// use golem_core::model::{Model, ModelError, Request, Response};
///
/// struct Echo;
/// impl Model for Echo {
///     fn generate(&self, request: &Request) -> Result<Response, ModelError> {
///         let last = request.messages.last().map(|m| m.content.clone()).unwrap_or_default();
///         Ok(Response::text(last))
///     }
/// }
/// let reply = Echo.generate(&Request::new(vec![golem_core::Message::user("hi")])).unwrap();
/// assert_eq!(reply.message.content, "hi");
/// assert!(Echo.as_streaming().is_none());
/// ```
pub trait Model: Send + Sync {
    /// Generate one response.
    fn generate(&self, request: &Request) -> Result<Response, ModelError>;

    /// What this model supports.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// This model's native async face, when it has one. Providers implement
    /// both traits and return `Some(self)`, so an async driver calls them
    /// without a blocking thread; a model returning `None` runs on a
    /// blocking thread pool under async drivers.
    fn as_async(&self) -> Option<&dyn AsyncModel> {
        None
    }

    /// This model's streaming face, `None` when it cannot stream. Implementing
    /// [`StreamingModel`] provides it; override it only in a wrapper that
    /// forwards to the model it wraps.
    fn as_streaming(&self) -> Option<&dyn StreamingModel> {
        None
    }
}

/// A blocking model that streams: implement `stream` (and `generate` when
/// a plain call differs from a streamed one, as an HTTP provider's does)
/// and the type is a [`Model`] whose streaming face is itself.
///
/// ```
/// use golem_core::model::{Delta, DeltaSink, Model, ModelError, Request, Response, StreamingModel};
///
/// // Streams its answer as two fragments.
/// struct MorningModel;
/// impl StreamingModel for MorningModel {
///     fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
///         for fragment in ["good ", "morning"] {
///             sink.delta(Delta::text(fragment)).map_err(ModelError::sink_aborted)?;
///         }
///         Ok(Response::text("good morning"))
///     }
/// }
///
/// // A `Model` with a streaming face; its plain call streams into nothing.
/// let model: &dyn Model = &MorningModel;
/// assert!(model.as_streaming().is_some());
/// assert_eq!(model.generate(&Request::new(Vec::new()))?.message.content, "good morning");
/// # Ok::<(), ModelError>(())
/// ```
pub trait StreamingModel: Send + Sync {
    /// Generate one response, delivering fragments to `sink` as they arrive.
    /// The returned response is authoritative (SPEC MODEL-04).
    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError>;

    /// Generate one response without streaming. The default streams into a
    /// sink that keeps nothing.
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        self.stream(request, &mut Discard)
    }

    /// What this model supports.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// This model's native async face, as [`Model::as_async`].
    fn as_async(&self) -> Option<&dyn AsyncModel> {
        None
    }
}

impl<S: StreamingModel> Model for S {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        StreamingModel::generate(self, request)
    }
    fn capabilities(&self) -> Capabilities {
        StreamingModel::capabilities(self)
    }
    fn as_async(&self) -> Option<&dyn AsyncModel> {
        StreamingModel::as_async(self)
    }
    fn as_streaming(&self) -> Option<&dyn StreamingModel> {
        Some(self)
    }
}

/// An async model: the same contract as [`Model`], returning boxed `Send`
/// futures so it stays object safe. A model that streams implements
/// [`AsyncStreamingModel`] instead.
pub trait AsyncModel: Send + Sync {
    /// Generate one response.
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>>;

    /// What this model supports.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// This model's native blocking face, when it has one; a model returning
    /// `None` is driven by a minimal `block_on` under blocking drivers.
    fn as_blocking(&self) -> Option<&dyn Model> {
        None
    }

    /// This model's streaming face, `None` when it cannot stream;
    /// implementing [`AsyncStreamingModel`] provides it.
    fn as_streaming(&self) -> Option<&dyn AsyncStreamingModel> {
        None
    }
}

/// An async model that streams: implement `stream_async` (and
/// `generate_async` when a plain call differs) and the type is an
/// [`AsyncModel`] whose streaming face is itself.
pub trait AsyncStreamingModel: Send + Sync {
    /// Generate one response, delivering fragments to `sink`.
    fn stream_async<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn DeltaSink,
    ) -> BoxFuture<'a, Result<Response, ModelError>>;

    /// Generate one response without streaming. The default streams into a
    /// sink that keeps nothing.
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move { self.stream_async(request, &mut Discard).await })
    }

    /// What this model supports.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// This model's native blocking face, as [`AsyncModel::as_blocking`].
    fn as_blocking(&self) -> Option<&dyn Model> {
        None
    }
}

impl<S: AsyncStreamingModel> AsyncModel for S {
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        AsyncStreamingModel::generate_async(self, request)
    }
    fn capabilities(&self) -> Capabilities {
        AsyncStreamingModel::capabilities(self)
    }
    fn as_blocking(&self) -> Option<&dyn Model> {
        AsyncStreamingModel::as_blocking(self)
    }
    fn as_streaming(&self) -> Option<&dyn AsyncStreamingModel> {
        Some(self)
    }
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        (**self).generate(request)
    }
    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }
    fn as_async(&self) -> Option<&dyn AsyncModel> {
        (**self).as_async()
    }
    fn as_streaming(&self) -> Option<&dyn StreamingModel> {
        (**self).as_streaming()
    }
}

impl<M: AsyncModel + ?Sized> AsyncModel for Arc<M> {
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        (**self).generate_async(request)
    }
    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }
    fn as_blocking(&self) -> Option<&dyn Model> {
        (**self).as_blocking()
    }
    fn as_streaming(&self) -> Option<&dyn AsyncStreamingModel> {
        (**self).as_streaming()
    }
}

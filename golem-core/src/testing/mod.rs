//! Deterministic fakes for tests (SPEC TEST).
//!
//! - [`ScriptedModel`]: answers from a queue of responses and failures and
//!   records every request (TEST-01, TEST-02).
//! - [`FnModel`]: answers with a function, for logic a queue cannot express.
//! - [`TestModel`]: calls every tool with schema-valid arguments, then
//!   answers with schema-valid output — no script needed.
//! - [`sample_for_schema`]: the schema-to-value generator behind it.
//! - [`TestEmbedder`]: offline embeddings in which texts sharing words are
//!   close (SPEC TEST-04).
//! - [`Sim`]: the simulated-time harness for the machine itself (TEST-03),
//!   re-exported from [`crate::sim`].
//! - [`response_deltas`], [`StreamAssembler`] and [`assemble`]: the one
//!   streaming semantics (STREAM-05) — a response as the deltas a stream
//!   yields, and deltas back into the message. Every fake streams through
//!   them, so `assemble(deltas) == response.message` holds by construction
//!   (MODEL-04).
//!
//! All fakes implement both [`StreamingModel`](crate::model::StreamingModel)
//! and [`AsyncStreamingModel`](crate::model::AsyncStreamingModel) — so they
//! are [`Model`](crate::model::Model)s and
//! [`AsyncModel`](crate::model::AsyncModel)s that stream (their futures are
//! ready on first poll). Since a fake implements several traits with the
//! same methods, name the trait when calling one: `Model::capabilities(&fake)`.

/// The fakes answer instantly, so their async face is their blocking one in
/// a ready future (lazy: the work happens when polled, like any future).
macro_rules! async_via_blocking {
    ($fake:ty) => {
        impl $crate::model::AsyncStreamingModel for $fake {
            fn generate_async<'a>(
                &'a self,
                request: &'a $crate::model::Request,
            ) -> $crate::model::BoxFuture<'a, Result<$crate::model::Response, $crate::model::ModelError>> {
                Box::pin(async move { $crate::model::StreamingModel::generate(self, request) })
            }

            fn stream_async<'a>(
                &'a self,
                request: &'a $crate::model::Request,
                sink: &'a mut dyn $crate::model::DeltaSink,
            ) -> $crate::model::BoxFuture<'a, Result<$crate::model::Response, $crate::model::ModelError>> {
                Box::pin(async move { $crate::model::StreamingModel::stream(self, request, sink) })
            }

            fn capabilities(&self) -> $crate::model::Capabilities {
                $crate::model::StreamingModel::capabilities(self)
            }

            fn as_blocking(&self) -> Option<&dyn $crate::model::Model> {
                Some(self)
            }
        }
    };
}
use async_via_blocking;

mod fn_model;
mod schema_sample;
mod scripted;
mod test_embedder;
mod test_model;

pub use crate::sim::{ModelReply, Sim, ToolReply};
pub use crate::stream::{
    assemble, response_deltas, stream_response, AssembleError, StreamAssembler, MAX_INDEX, MAX_THINKING_BLOCKS,
    MAX_TOOL_CALLS,
};
pub use fn_model::FnModel;
pub use schema_sample::sample_for_schema;
pub use scripted::{ScriptedModel, DEFAULT_CHUNK_SIZE};
pub use test_embedder::TestEmbedder;
pub use test_model::{TestModel, DEFAULT_ANSWER};

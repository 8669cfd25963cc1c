//! The embeddings port (SPEC EXTRA-02): texts in, one vector per text out,
//! in input order, with the tokens it cost.
//!
//! [`Embedder`] is the blocking form and [`AsyncEmbedder`] the async one,
//! like [`Model`](crate::Model) and [`AsyncModel`](crate::AsyncModel).
//! Provider clients (golem-providers) and the offline
//! [`TestEmbedder`](crate::testing::TestEmbedder) implement them; an
//! application's retrieval tool calls them.
//!
//! What the port guarantees whoever implements it: [`EmbedRequest::check`]
//! refuses an empty request before anything is sent, [`Batches`] splits a
//! request to a provider's limits, and [`Embeddings::join`] puts the parts
//! back in input order, refusing a part whose vector count differs from its
//! input count as a decode error — a provider that drops an input must
//! never shift every later vector onto the wrong text.

mod batch;
mod request;

pub use batch::Batches;
pub use request::{EmbedRequest, EmbedTask};

use crate::message::Usage;
use crate::model::{BoxFuture, ModelError, ModelErrorKind};
use serde::{Deserialize, Serialize};

/// The vectors of an [`EmbedRequest`], one per input in input order, and
/// what they cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Embeddings {
    /// One vector per input, in input order.
    pub vectors: Vec<Vec<f32>>,
    /// Tokens the provider counted (input tokens; embeddings have no
    /// output). Zero where the provider reports none.
    pub usage: Usage,
    /// The model that answered, as the provider names it (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
}

impl Embeddings {
    /// Vectors with no usage reported.
    pub fn new(vectors: Vec<Vec<f32>>) -> Self {
        Embeddings { vectors, usage: Usage::default(), model: String::new() }
    }

    /// Builder-style: the usage.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Builder-style: the model that answered.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// The answer for a request (or a batch of one) of `inputs` texts: a
    /// decode error unless there is exactly one vector per input and every
    /// vector has the same, non-zero length (and `dimensions`, when asked).
    pub fn checked(self, inputs: usize, dimensions: Option<u32>) -> Result<Self, ModelError> {
        if self.vectors.len() != inputs {
            return Err(decode(format!("the provider returned {} embeddings for {inputs} inputs", self.vectors.len())));
        }
        let width = self.vectors.first().map_or(0, Vec::len);
        if inputs > 0 && width == 0 {
            return Err(decode("the provider returned an empty embedding".to_string()));
        }
        if let Some(n) = self.vectors.iter().position(|v| v.len() != width) {
            return Err(decode(format!(
                "embedding {n} has {} dimensions where the first has {width}",
                self.vectors[n].len()
            )));
        }
        if let Some(asked) = dimensions.filter(|d| *d as usize != width && inputs > 0) {
            return Err(decode(format!("asked for {asked} dimensions, the provider returned {width}")));
        }
        if self.vectors.iter().flatten().any(|x| !x.is_finite()) {
            return Err(decode("the provider returned a non-finite embedding value".to_string()));
        }
        Ok(self)
    }

    /// The batches' answers as one, in batch order: vectors concatenated,
    /// usage summed, the first model named.
    pub fn join(parts: impl IntoIterator<Item = Embeddings>) -> Embeddings {
        let mut whole = Embeddings::default();
        for part in parts {
            whole.vectors.extend(part.vectors);
            whole.usage.add(&part.usage);
            if whole.model.is_empty() {
                whole.model = part.model;
            }
        }
        whole
    }
}

fn decode(message: String) -> ModelError {
    ModelError::new(ModelErrorKind::Decode, message)
}

/// A blocking embedder: one request in, its vectors out.
///
/// ```
/// use golem_core::embed::{EmbedRequest, Embedder};
/// use golem_core::testing::TestEmbedder;
///
/// let embedder = TestEmbedder::new(16);
/// let answer = embedder.embed(&EmbedRequest::documents(["red apples", "green pears"]))?;
/// assert_eq!((answer.vectors.len(), answer.vectors[0].len()), (2, 16));
/// # Ok::<(), golem_core::ModelError>(())
/// ```
pub trait Embedder: Send + Sync {
    /// Embed every input of `request`.
    fn embed(&self, request: &EmbedRequest) -> Result<Embeddings, ModelError>;
}

/// An async embedder; its future is `Send`, so it runs under any executor.
pub trait AsyncEmbedder: Send + Sync {
    /// Embed every input of `request`.
    fn embed_async<'a>(&'a self, request: &'a EmbedRequest) -> BoxFuture<'a, Result<Embeddings, ModelError>>;
}

impl<E: Embedder + ?Sized> Embedder for std::sync::Arc<E> {
    fn embed(&self, request: &EmbedRequest) -> Result<Embeddings, ModelError> {
        (**self).embed(request)
    }
}

impl<E: AsyncEmbedder + ?Sized> AsyncEmbedder for std::sync::Arc<E> {
    fn embed_async<'a>(&'a self, request: &'a EmbedRequest) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        (**self).embed_async(request)
    }
}

/// Cosine similarity of two vectors: 1 for the same direction, 0 for
/// unrelated, −1 for opposite; 0 when either is all zeros or the lengths
/// differ.
///
/// ```
/// use golem_core::embed::cosine;
///
/// assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
/// assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
/// ```
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut aa, mut bb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        return 0.0;
    }
    (dot / (aa.sqrt() * bb.sqrt())) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_mismatch_is_a_decode_error() {
        let two = Embeddings::new(vec![vec![1.0], vec![2.0]]);
        let error = two.clone().checked(3, None).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Decode);
        assert!(error.to_string().contains("2 embeddings for 3 inputs"), "{error}");
        assert!(two.checked(2, None).is_ok());
    }

    #[test]
    fn ragged_empty_or_non_finite_vectors_are_refused() {
        assert!(Embeddings::new(vec![vec![1.0, 2.0], vec![1.0]]).checked(2, None).is_err());
        assert!(Embeddings::new(vec![vec![]]).checked(1, None).is_err());
        assert!(Embeddings::new(vec![vec![f32::NAN]]).checked(1, None).is_err());
        assert!(Embeddings::new(vec![vec![1.0, 2.0]]).checked(1, Some(3)).is_err());
        assert!(Embeddings::new(vec![vec![1.0, 2.0]]).checked(1, Some(2)).is_ok());
    }

    #[test]
    fn join_keeps_batch_order_and_sums_usage() {
        let a = Embeddings::new(vec![vec![1.0], vec![2.0]]).with_usage(Usage::new(3, 0)).with_model("m");
        let b = Embeddings::new(vec![vec![3.0]]).with_usage(Usage::new(2, 0));
        let whole = Embeddings::join([a, b]);
        assert_eq!(whole.vectors, vec![vec![1.0], vec![2.0], vec![3.0]]);
        assert_eq!((whole.usage.input_tokens, whole.model.as_str()), (5, "m"));
    }
}

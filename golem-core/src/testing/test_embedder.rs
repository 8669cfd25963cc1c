//! An offline embedder (SPEC TEST-04): deterministic vectors in which texts
//! that share words point the same way, so retrieval can be tested — and
//! shown — without a provider.

use crate::embed::{AsyncEmbedder, EmbedRequest, Embedder, Embeddings};
use crate::message::Usage;
use crate::model::{BoxFuture, ModelError};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Embeds each text as a hashed bag of its words: every word (lowercased,
/// letters and digits) adds ±1 to one of `dimensions` coordinates chosen by
/// its hash, and the vector is normalised. Texts sharing words have a high
/// cosine similarity; the same text always gets the same vector. Usage
/// counts one input token per word.
///
/// Like the scripted model it records every request and can be told to
/// fail: [`fail`](Self::fail) queues errors returned before any vector.
///
/// ```
/// use golem_core::embed::{cosine, EmbedRequest, Embedder};
/// use golem_core::testing::TestEmbedder;
///
/// let embedder = TestEmbedder::new(64);
/// let docs = embedder.embed(&EmbedRequest::documents(["the cat sat on the mat", "stock prices fell"]))?;
/// let query = embedder.embed(&EmbedRequest::query("where did the cat sit"))?;
/// let scores: Vec<f32> = docs.vectors.iter().map(|d| cosine(d, &query.vectors[0])).collect();
/// assert!(scores[0] > scores[1]);
/// # Ok::<(), golem_core::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct TestEmbedder {
    dimensions: usize,
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    requests: Vec<EmbedRequest>,
    failures: VecDeque<ModelError>,
}

impl TestEmbedder {
    /// An embedder of `dimensions`-long vectors (at least 1); a request
    /// asking for dimensions gets those instead.
    pub fn new(dimensions: usize) -> Self {
        TestEmbedder { dimensions: dimensions.max(1), state: Arc::default() }
    }

    /// Builder-style: fail the next call with `error` (queued in order).
    pub fn fail(self, error: ModelError) -> Self {
        self.lock().failures.push_back(error);
        self
    }

    /// Every request it was asked, in order.
    pub fn requests(&self) -> Vec<EmbedRequest> {
        self.lock().requests.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The vector of one text.
    fn vector(&self, text: &str, dimensions: usize) -> (Vec<f32>, u64) {
        let mut vector = vec![0.0f32; dimensions];
        let mut words = 0;
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let hash = fnv1a(word.to_lowercase().as_bytes());
            let sign = if hash >> 63 == 0 { 1.0 } else { -1.0 };
            vector[(hash % dimensions as u64) as usize] += sign;
            words += 1;
        }
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            vector.iter_mut().for_each(|x| *x /= norm);
        } else {
            // A text of no words still gets a vector of unit length.
            vector[0] = 1.0;
        }
        (vector, words)
    }
}

/// FNV-1a: a fixed, well-spread hash, so vectors never change between runs
/// or platforms.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3))
}

impl Embedder for TestEmbedder {
    fn embed(&self, request: &EmbedRequest) -> Result<Embeddings, ModelError> {
        {
            let mut state = self.lock();
            state.requests.push(request.clone());
            if let Some(error) = state.failures.pop_front() {
                return Err(error);
            }
        }
        request.check()?;
        let dimensions = request.dimensions.map_or(self.dimensions, |d| d as usize);
        let (mut vectors, mut tokens) = (Vec::with_capacity(request.inputs.len()), 0);
        for text in &request.inputs {
            let (vector, words) = self.vector(text, dimensions);
            vectors.push(vector);
            tokens += words;
        }
        Ok(Embeddings::new(vectors).with_usage(Usage::new(tokens, 0)).with_model("test-embedder"))
    }
}

impl AsyncEmbedder for TestEmbedder {
    fn embed_async<'a>(&'a self, request: &'a EmbedRequest) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        Box::pin(async move { self.embed(request) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::cosine;

    #[test]
    fn the_same_text_gets_the_same_unit_vector() {
        let embedder = TestEmbedder::new(32);
        let a = embedder.embed(&EmbedRequest::documents(["Hello, world"])).unwrap();
        let b = embedder.embed(&EmbedRequest::documents(["hello world"])).unwrap();
        assert_eq!(a.vectors, b.vectors);
        let norm: f32 = a.vectors[0].iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
        assert!((cosine(&a.vectors[0], &b.vectors[0]) - 1.0).abs() < 1e-5);
        assert_eq!(a.usage.input_tokens, 2);
    }

    #[test]
    fn empty_requests_fail_and_queued_failures_come_first() {
        let embedder = TestEmbedder::new(8).fail(ModelError::api(503, "busy"));
        assert!(embedder.embed(&EmbedRequest::query("x")).unwrap_err().retryable);
        assert!(embedder.embed(&EmbedRequest::documents(Vec::<String>::new())).is_err());
        assert_eq!(embedder.embed(&EmbedRequest::query("x").with_dimensions(4)).unwrap().vectors[0].len(), 4);
        assert_eq!(embedder.requests().len(), 3);
    }
}

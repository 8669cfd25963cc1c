//! What an embedder is asked: the texts, what they are for, and the size
//! of the vectors.

use crate::model::{ModelError, ModelErrorKind};
use serde::{Deserialize, Serialize};

/// What the vectors are for. Retrieval models embed a document and a query
/// differently, and several providers take the purpose as a hint: Gemini's
/// `taskType`, Cohere's `input_type`; providers without one ignore it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EmbedTask {
    /// Texts to be searched (a knowledge base's passages).
    #[default]
    Document,
    /// A search query, matched against documents.
    Query,
    /// Texts compared with each other for similarity.
    Similarity,
    /// Texts to be classified.
    Classification,
    /// Texts to be clustered.
    Clustering,
}

/// One embeddings request: the texts in order, their purpose and, where the
/// model can shorten its vectors, the size wanted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmbedRequest {
    /// The texts, in the order their vectors come back.
    pub inputs: Vec<String>,
    /// What the vectors are for.
    pub task: EmbedTask,
    /// The vectors' length, for models that can shorten them (OpenAI's
    /// `text-embedding-3-*`, Gemini, Titan v2); `None`: the model's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<u32>,
}

impl EmbedRequest {
    /// Passages to index.
    pub fn documents<S: Into<String>>(inputs: impl IntoIterator<Item = S>) -> Self {
        EmbedRequest {
            inputs: inputs.into_iter().map(Into::into).collect(),
            task: EmbedTask::Document,
            dimensions: None,
        }
    }

    /// One search query.
    pub fn query(text: impl Into<String>) -> Self {
        EmbedRequest { inputs: vec![text.into()], task: EmbedTask::Query, dimensions: None }
    }

    /// Builder-style: the purpose.
    pub fn with_task(mut self, task: EmbedTask) -> Self {
        self.task = task;
        self
    }

    /// Builder-style: the vectors' length.
    pub fn with_dimensions(mut self, dimensions: u32) -> Self {
        self.dimensions = Some(dimensions);
        self
    }

    /// Refuse, before anything is sent, a request no provider can answer:
    /// no inputs, an empty text, or zero dimensions (SPEC EXTRA-02).
    ///
    /// ```
    /// use golem_core::embed::EmbedRequest;
    ///
    /// assert!(EmbedRequest::documents(Vec::<String>::new()).check().is_err());
    /// assert!(EmbedRequest::documents(["a", ""]).check().is_err());
    /// assert!(EmbedRequest::query("a").check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), ModelError> {
        let refuse = |message: String| Err(ModelError::new(ModelErrorKind::Encode, message).with_retryable(false));
        if self.inputs.is_empty() {
            return refuse("an embeddings request needs at least one input".to_string());
        }
        if let Some(n) = self.inputs.iter().position(|t| t.trim().is_empty()) {
            return refuse(format!("embeddings input {n} is empty"));
        }
        if self.dimensions == Some(0) {
            return refuse("an embeddings request cannot ask for 0 dimensions".to_string());
        }
        Ok(())
    }

    /// The request for `inputs[range]`, with the same purpose and size.
    pub fn part(&self, range: std::ops::Range<usize>) -> EmbedRequest {
        EmbedRequest { inputs: self.inputs[range].to_vec(), task: self.task, dimensions: self.dimensions }
    }
}

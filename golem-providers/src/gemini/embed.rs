//! Gemini embeddings (SPEC EXTRA-02): `:batchEmbedContents` with one
//! `{model, content: {parts: [{text}]}, taskType, outputDimensionality}`
//! per input (at most 100), answered by `{embeddings: [{values}]}`; the
//! single `:embedContent` answer (`{embedding: {values}, usageMetadata}`,
//! as Vertex AI gives it) decodes too.

use super::{error_from_response, Codec};
use crate::classify::decode_error;
use crate::codec::EmbedCodec;
use crate::http::{HttpRequest, HttpResponseHead};
use crate::secret::Secret;
use golem_core::embed::{EmbedRequest, EmbedTask, Embeddings};
use golem_core::message::Usage;
use golem_core::model::{ModelError, ModelErrorKind};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The most requests one `batchEmbedContents` call takes.
pub const BATCH_LIMIT: usize = 100;

const STAGE: &str = "embeddings body";

/// Gemini's `taskType` for a purpose.
pub fn task_type(task: EmbedTask) -> &'static str {
    match task {
        EmbedTask::Query => "RETRIEVAL_QUERY",
        EmbedTask::Similarity => "SEMANTIC_SIMILARITY",
        EmbedTask::Classification => "CLASSIFICATION",
        EmbedTask::Clustering => "CLUSTERING",
        _ => "RETRIEVAL_DOCUMENT",
    }
}

/// The `batchEmbedContents` body for `request` on the model at
/// `model_path` (`models/…`).
///
/// ```
/// use golem_providers::gemini::encode_embed_body;
/// use golem_core::embed::EmbedRequest;
///
/// let body = encode_embed_body(&EmbedRequest::query("hi").with_dimensions(8), "models/gemini-embedding-001");
/// assert_eq!(body["requests"][0]["taskType"], "RETRIEVAL_QUERY");
/// assert_eq!(body["requests"][0]["outputDimensionality"], 8);
/// ```
pub fn encode_embed_body(request: &EmbedRequest, model_path: &str) -> Value {
    let requests: Vec<Value> = request
        .inputs
        .iter()
        .map(|text| {
            let mut one = Map::new();
            one.insert("model".into(), json!(model_path));
            one.insert("content".into(), json!({"parts": [{"text": text}]}));
            one.insert("taskType".into(), json!(task_type(request.task)));
            if let Some(dimensions) = request.dimensions {
                one.insert("outputDimensionality".into(), json!(dimensions));
            }
            Value::Object(one)
        })
        .collect();
    json!({ "requests": requests })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    #[serde(default)]
    embeddings: Option<Vec<Values>>,
    #[serde(default)]
    embedding: Option<Values>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
}

#[derive(Deserialize)]
struct Values {
    #[serde(default)]
    values: Vec<f32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: u64,
}

/// The vectors of a 2xx `batchEmbedContents` or `embedContent` body,
/// unchecked against the request; `key` is scrubbed from error texts.
pub fn decode_embed_body(body: &[u8], key: Option<&Secret>) -> Result<Embeddings, ModelError> {
    let answer: Answer = serde_json::from_slice(body).map_err(|e| decode_error(STAGE, &e.to_string(), true, key))?;
    let vectors: Vec<Vec<f32>> = match (answer.embeddings, answer.embedding) {
        (Some(many), _) => many.into_iter().map(|v| v.values).collect(),
        (None, Some(one)) => vec![one.values],
        (None, None) => return Err(decode_error(STAGE, "neither embeddings nor embedding in the body", false, key)),
    };
    let usage = Usage::new(answer.usage_metadata.map_or(0, |u| u.prompt_token_count), 0);
    Ok(Embeddings::new(vectors).with_usage(usage))
}

impl EmbedCodec for Codec {
    fn embed_batch_limit(&self) -> usize {
        BATCH_LIMIT
    }

    fn encode_embed(&self, request: &EmbedRequest) -> Result<HttpRequest, ModelError> {
        let body = serde_json::to_vec(&encode_embed_body(request, &self.config.model_path()))
            .map_err(|e| ModelError::new(ModelErrorKind::Encode, e.to_string()))?;
        Ok(self.post(self.url("batchEmbedContents"), body, false))
    }

    fn decode_embed(
        &self,
        request: &EmbedRequest,
        head: &HttpResponseHead,
        body: &[u8],
    ) -> Result<Embeddings, ModelError> {
        let key = self.config.api_key();
        if !head.is_success() {
            return Err(error_from_response(head, body, key));
        }
        decode_embed_body(body, key)?.with_model(self.config.model()).checked(request.inputs.len(), request.dimensions)
    }
}

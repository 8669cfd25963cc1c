//! Bedrock embeddings (SPEC EXTRA-02) through InvokeModel
//! (`POST /model/{id}/invoke`, SigV4-signed like Converse), whose body is
//! the model vendor's own:
//!
//! - Amazon Titan text embeddings: one text per call, `{inputText}` (v2
//!   adds `dimensions` and `normalize`), answered by `{embedding,
//!   inputTextTokenCount}`;
//! - Cohere embed: up to 96 texts, `{texts, input_type, truncate}` (v4 adds
//!   `output_dimension`), answered by `{embeddings: [[..]]}` or, from v4,
//!   `{embeddings: {float: [[..]]}}`; the tokens come in the
//!   `x-amzn-bedrock-input-token-count` header.

use super::Codec;
use crate::classify::decode_error;
use crate::codec::EmbedCodec;
use crate::http::{HttpRequest, HttpResponseHead};
use golem_core::embed::{EmbedRequest, EmbedTask, Embeddings};
use golem_core::message::Usage;
use golem_core::model::{ModelError, ModelErrorKind};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The most texts one Cohere embed call takes on Bedrock.
pub const COHERE_BATCH_LIMIT: usize = 96;

const STAGE: &str = "embeddings body";

/// Which embeddings body a Bedrock model speaks, from its id (region
/// prefixes and ARNs included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EmbedModel {
    /// Amazon Titan text embeddings v2: dimensions and normalization.
    TitanV2,
    /// Another Titan embeddings model: the text alone.
    Titan,
    /// Cohere embed v3: no dimensions.
    CohereV3,
    /// Cohere embed v4: `output_dimension`.
    CohereV4,
}

impl EmbedModel {
    /// The body family of `model`; `None` for a model that is no known
    /// embeddings model.
    ///
    /// ```
    /// use golem_providers::bedrock::EmbedModel;
    ///
    /// assert_eq!(EmbedModel::of("amazon.titan-embed-text-v2:0"), Some(EmbedModel::TitanV2));
    /// assert_eq!(EmbedModel::of("us.cohere.embed-v4:0"), Some(EmbedModel::CohereV4));
    /// assert_eq!(EmbedModel::of("anthropic.claude-3-haiku"), None);
    /// ```
    pub fn of(model: &str) -> Option<EmbedModel> {
        if model.contains("titan-embed-text-v2") {
            Some(EmbedModel::TitanV2)
        } else if model.contains("titan-embed") {
            Some(EmbedModel::Titan)
        } else if model.contains("cohere.embed-v4") {
            Some(EmbedModel::CohereV4)
        } else if model.contains("cohere.embed") {
            Some(EmbedModel::CohereV3)
        } else {
            None
        }
    }

    /// The most texts one call takes.
    pub fn batch_limit(self) -> usize {
        match self {
            EmbedModel::TitanV2 | EmbedModel::Titan => 1,
            EmbedModel::CohereV3 | EmbedModel::CohereV4 => COHERE_BATCH_LIMIT,
        }
    }
}

/// Cohere's `input_type` for a purpose.
pub fn cohere_input_type(task: EmbedTask) -> &'static str {
    match task {
        EmbedTask::Query => "search_query",
        EmbedTask::Classification => "classification",
        EmbedTask::Clustering => "clustering",
        _ => "search_document",
    }
}

/// The InvokeModel body for `request` on a `model`: an `Unsupported`
/// error for what the model cannot do (more than one text for Titan,
/// dimensions where the model has none).
///
/// ```
/// use golem_providers::bedrock::{encode_embed_body, EmbedModel};
/// use golem_core::embed::EmbedRequest;
///
/// let body = encode_embed_body(&EmbedRequest::query("hi").with_dimensions(256), EmbedModel::TitanV2)?;
/// assert_eq!(body, serde_json::json!({"inputText": "hi", "dimensions": 256, "normalize": true}));
/// let body = encode_embed_body(&EmbedRequest::query("hi"), EmbedModel::CohereV3)?;
/// assert_eq!(body["input_type"], "search_query");
/// # Ok::<(), golem_core::ModelError>(())
/// ```
pub fn encode_embed_body(request: &EmbedRequest, model: EmbedModel) -> Result<Value, ModelError> {
    let unsupported = |what: &str| Err(ModelError::new(ModelErrorKind::Unsupported, what.to_string()));
    let mut body = Map::new();
    match model {
        EmbedModel::TitanV2 | EmbedModel::Titan => {
            let [text] = request.inputs.as_slice() else {
                return unsupported("a Titan embeddings call takes exactly one text");
            };
            body.insert("inputText".into(), json!(text));
            match (model, request.dimensions) {
                (EmbedModel::TitanV2, dimensions) => {
                    if let Some(dimensions) = dimensions {
                        body.insert("dimensions".into(), json!(dimensions));
                    }
                    body.insert("normalize".into(), json!(true));
                }
                (_, Some(_)) => return unsupported("this Titan embeddings model has no dimensions setting"),
                (_, None) => {}
            }
        }
        EmbedModel::CohereV3 | EmbedModel::CohereV4 => {
            body.insert("texts".into(), json!(request.inputs));
            body.insert("input_type".into(), json!(cohere_input_type(request.task)));
            // An over-long text is refused rather than silently cut.
            body.insert("truncate".into(), json!("NONE"));
            match (model, request.dimensions) {
                (EmbedModel::CohereV4, Some(dimensions)) => {
                    body.insert("output_dimension".into(), json!(dimensions));
                }
                (_, Some(_)) => return unsupported("Cohere embed v3 has no dimensions setting"),
                (_, None) => {}
            }
        }
    }
    Ok(Value::Object(body))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    #[serde(default)]
    embedding: Option<Vec<f32>>,
    #[serde(default)]
    input_text_token_count: Option<u64>,
    #[serde(default)]
    embeddings: Option<CohereVectors>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CohereVectors {
    Floats(Vec<Vec<f32>>),
    ByType { float: Vec<Vec<f32>> },
}

/// The vectors of a 2xx InvokeModel body of a Titan or Cohere embeddings
/// model, unchecked against the request; `head` gives Cohere's token
/// count.
pub fn decode_embed_body(head: &HttpResponseHead, body: &[u8]) -> Result<Embeddings, ModelError> {
    let answer: Answer = serde_json::from_slice(body).map_err(|e| decode_error(STAGE, &e.to_string(), true, None))?;
    let header_tokens = head.header("x-amzn-bedrock-input-token-count").and_then(|t| t.trim().parse().ok());
    let vectors = match (answer.embedding, answer.embeddings) {
        (Some(one), _) => vec![one],
        (None, Some(CohereVectors::Floats(many) | CohereVectors::ByType { float: many })) => many,
        (None, None) => return Err(decode_error(STAGE, "neither embedding nor embeddings in the body", false, None)),
    };
    let tokens = answer.input_text_token_count.or(header_tokens).unwrap_or(0);
    Ok(Embeddings::new(vectors).with_usage(Usage::new(tokens, 0)))
}

impl Codec {
    fn embed_model(&self) -> Result<EmbedModel, ModelError> {
        EmbedModel::of(self.config.model()).ok_or_else(|| {
            ModelError::new(
                ModelErrorKind::Unsupported,
                format!("{} is not a Titan or Cohere embeddings model", self.config.model()),
            )
        })
    }
}

impl EmbedCodec for Codec {
    /// Titan: one text per call; Cohere: 96; any other model: 1 (its
    /// requests are refused anyway).
    fn embed_batch_limit(&self) -> usize {
        self.embed_model().map_or(1, EmbedModel::batch_limit)
    }

    fn encode_embed(&self, request: &EmbedRequest) -> Result<HttpRequest, ModelError> {
        let body = encode_embed_body(request, self.embed_model()?)?;
        let body = serde_json::to_vec(&body).map_err(|e| ModelError::new(ModelErrorKind::Encode, e.to_string()))?;
        Ok(super::json_post(self.url("invoke"), body, false, &self.config))
    }

    fn decode_embed(
        &self,
        request: &EmbedRequest,
        head: &HttpResponseHead,
        body: &[u8],
    ) -> Result<Embeddings, ModelError> {
        if !head.is_success() {
            return Err(self.error(head, body));
        }
        decode_embed_body(head, body)?.with_model(self.config.model()).checked(request.inputs.len(), request.dimensions)
    }
}

//! The OpenAI `/embeddings` wire (SPEC EXTRA-02), spoken by OpenAI, the
//! compatible servers that serve it and Azure: `{model, input: [..],
//! dimensions, encoding_format}` in, `{data: [{index, embedding}], model,
//! usage: {prompt_tokens}}` out, each embedding a list of floats or, asked
//! for base64, the little-endian `f32` bytes in base64.

use super::codec::{ChatCodec, ChatFamily, EmbedRoute};
use super::error::{self as wire_error, ErrorBody};
use crate::classify::decode_error;
use crate::codec::EmbedCodec;
use crate::http::{HttpRequest, HttpResponseHead};
use crate::secret::Secret;
use base64::Engine as _;
use golem_core::embed::{EmbedRequest, Embeddings};
use golem_core::message::Usage;
use golem_core::model::ModelError;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The most inputs OpenAI takes in one `/embeddings` call.
pub const OPENAI_BATCH_LIMIT: usize = 2048;

const STAGE: &str = "embeddings body";

/// The body of an `/embeddings` request for `request` on `route`: the
/// inputs always as a list, `dimensions` when asked; the task has no field
/// on this wire.
///
/// ```
/// use golem_providers::chat_completions::{encode_embeddings, EmbedRoute};
/// use golem_core::embed::EmbedRequest;
///
/// let route = EmbedRoute::new("http://localhost:11434/v1/embeddings".into(), Some("nomic-embed-text".into()));
/// let body = encode_embeddings(&EmbedRequest::query("hi").with_dimensions(64), &route);
/// assert_eq!(body, serde_json::json!({"model": "nomic-embed-text", "input": ["hi"], "dimensions": 64}));
/// ```
pub fn encode_embeddings(request: &EmbedRequest, route: &EmbedRoute) -> Value {
    let mut body = Map::new();
    if let Some(model) = &route.model {
        body.insert("model".into(), json!(model));
    }
    body.insert("input".into(), json!(request.inputs));
    if let Some(dimensions) = request.dimensions {
        body.insert("dimensions".into(), json!(dimensions));
    }
    if route.base64 {
        body.insert("encoding_format".into(), json!("base64"));
    }
    Value::Object(body)
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Datum>,
    #[serde(default)]
    model: String,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Datum {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vector,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Vector {
    Floats(Vec<f32>),
    Base64(String),
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
}

/// The vectors of a 2xx `/embeddings` body, in input order (by each
/// datum's `index` where given), unchecked against the request; `key` is
/// scrubbed from every error text.
pub fn decode_embeddings(body: &[u8], key: Option<&Secret>) -> Result<Embeddings, ModelError> {
    let answer: Answer = serde_json::from_slice(body).map_err(|e| decode_error(STAGE, &e.to_string(), true, key))?;
    let count = answer.data.len();
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; count];
    for (position, datum) in answer.data.into_iter().enumerate() {
        let index = datum.index.unwrap_or(position);
        let slot = slots.get_mut(index).ok_or_else(|| {
            decode_error(STAGE, &format!("embedding index {index} is out of range for {count} embeddings"), false, key)
        })?;
        if slot.is_some() {
            return Err(decode_error(STAGE, &format!("embedding index {index} appears twice"), false, key));
        }
        *slot = Some(vector(datum.embedding, key)?);
    }
    let vectors = slots.into_iter().map(|v| v.unwrap_or_default()).collect();
    let usage = Usage::new(answer.usage.map_or(0, |u| u.prompt_tokens), 0);
    Ok(Embeddings::new(vectors).with_usage(usage).with_model(answer.model))
}

fn vector(vector: Vector, key: Option<&Secret>) -> Result<Vec<f32>, ModelError> {
    match vector {
        Vector::Floats(floats) => Ok(floats),
        Vector::Base64(text) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text.as_bytes())
                .map_err(|e| decode_error(STAGE, &format!("embedding is not base64: {e}"), false, key))?;
            if bytes.len() % 4 != 0 {
                return Err(decode_error(STAGE, "a base64 embedding is not a whole number of f32s", false, key));
            }
            Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
        }
    }
}

impl<O: ChatFamily> EmbedCodec for ChatCodec<O> {
    fn embed_batch_limit(&self) -> usize {
        OPENAI_BATCH_LIMIT
    }

    fn encode_embed(&self, request: &EmbedRequest) -> Result<HttpRequest, ModelError> {
        let route = O::embed_route(self.config())?;
        let body = serde_json::to_vec(&encode_embeddings(request, &route))
            .map_err(|e| ModelError::new(golem_core::model::ModelErrorKind::Encode, e.to_string()))?;
        Ok(self.post(route.url, body, false))
    }

    fn decode_embed(
        &self,
        request: &EmbedRequest,
        head: &HttpResponseHead,
        body: &[u8],
    ) -> Result<Embeddings, ModelError> {
        let key = self.config().api_key();
        if !head.is_success() {
            return Err(self.error(head, body));
        }
        let answer = decode_embeddings(body, key).map_err(|undecodable| {
            // A compatible server may answer 200 with an error object: that
            // error says more than "no data".
            serde_json::from_slice::<Value>(body)
                .ok()
                .filter(|value| value.get("data").is_none())
                .and_then(|value| ErrorBody::from_value(&value))
                .map_or(undecodable, |error| wire_error::in_band(head, &error, key))
        })?;
        answer.checked(request.inputs.len(), request.dimensions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_vectors_are_little_endian_f32s() {
        let bytes: Vec<u8> = [1.0f32, -0.5].iter().flat_map(|x| x.to_le_bytes()).collect();
        let text = base64::engine::general_purpose::STANDARD.encode(bytes);
        let body = format!(r#"{{"data":[{{"index":0,"embedding":"{text}"}}]}}"#);
        assert_eq!(decode_embeddings(body.as_bytes(), None).unwrap().vectors, [vec![1.0, -0.5]]);
        let cut = r#"{"data":[{"index":0,"embedding":"AACAPw=="},{"index":1,"embedding":"AACA"}]}"#;
        assert!(decode_embeddings(cut.as_bytes(), None).is_err(), "three bytes are no f32");
    }

    #[test]
    fn an_error_object_in_a_200_is_that_error() {
        let config = crate::openai::Config::builder(crate::openai::Preset::ollama(), "m").build().unwrap();
        let codec = crate::openai::Codec::new(config);
        let body = br#"{"error":{"message":"model not loaded","type":"server_error"}}"#;
        let request = EmbedRequest::query("hi");
        let error = codec.decode_embed(&request, &HttpResponseHead::new(200, vec![]), body).unwrap_err();
        assert!(error.message.contains("model not loaded") && error.retryable, "{error}");
    }

    #[test]
    fn data_are_put_in_index_order_and_bad_indexes_refused() {
        let body =
            br#"{"data":[{"index":1,"embedding":[2.0]},{"index":0,"embedding":[1.0]}],"usage":{"prompt_tokens":3}}"#;
        let answer = decode_embeddings(body, None).unwrap();
        assert_eq!((answer.vectors, answer.usage.input_tokens), (vec![vec![1.0], vec![2.0]], 3));
        assert!(decode_embeddings(br#"{"data":[{"index":1,"embedding":[2.0]}]}"#, None).is_err());
        let twice = br#"{"data":[{"index":0,"embedding":[2.0]},{"index":0,"embedding":[1.0]}]}"#;
        assert!(decode_embeddings(twice, None).is_err());
    }
}

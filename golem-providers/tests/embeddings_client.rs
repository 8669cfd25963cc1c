//! The embedding clients against loopback servers through both faces:
//! a request over the provider's limit is split into batches that come
//! back joined in input order with their usage summed, a 429 is retried
//! after its Retry-After by the client's retry policy and a batch that
//! keeps failing fails the request, an empty request never reaches the
//! network, a short answer is a decode error that is not retried, and
//! Bedrock's batches are each signed. SPEC EXTRA-02, RETRY-02/03.

use crate::bedrock;
use crate::gemini;
use crate::models::{openai, Face, FACES, KEY};
use crate::server::{Reply, Server};
use golem_core::embed::{AsyncEmbedder, EmbedRequest, Embedder, Embeddings};
use golem_core::model::{ModelError, ModelErrorKind};
use golem_core::{Backoff, RetryPolicy};
use serde_json::json;
use std::time::Duration;

fn embed<E: Embedder + AsyncEmbedder>(
    face: Face,
    embedder: &E,
    request: &EmbedRequest,
) -> Result<Embeddings, ModelError> {
    match face {
        Face::Blocking => embedder.embed(request),
        Face::Async => futures_lite::future::block_on(embedder.embed_async(request)),
    }
}

/// Retry at once (the Retry-After of the tests is 0): no test sleeps.
fn quick_retry(attempts: u32) -> RetryPolicy {
    RetryPolicy::new()
        .max_attempts(attempts)
        .backoff(Backoff::Table { delays: vec![Duration::ZERO] })
        .honor_retry_after(true)
}

/// Texts `t0`, `t1`, …
fn texts(n: usize) -> EmbedRequest {
    EmbedRequest::documents((0..n).map(|i| format!("t{i}")))
}

/// An OpenAI answer for the texts `from..to`: each text's vector is its
/// number, so order mistakes show.
fn openai_answer(from: usize, to: usize, tokens: u64) -> Reply {
    let data: Vec<_> =
        (from..to).enumerate().map(|(index, n)| json!({"index": index, "embedding": [n as f32, 1.0]})).collect();
    Reply::json(200, json!({"data": data, "model": "embed-test", "usage": {"prompt_tokens": tokens}}).to_string())
}

fn numbered(n: usize) -> Vec<Vec<f32>> {
    (0..n).map(|i| vec![i as f32, 1.0]).collect()
}

fn rate_limited() -> Reply {
    Reply::json(429, r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#).header("retry-after", "0")
}

#[test]
fn openai_batches_to_2048_retries_a_429_and_joins_in_order() {
    for face in FACES {
        let server = Server::start(vec![rate_limited(), openai_answer(0, 2048, 100), openai_answer(2048, 2050, 3)]);
        let client = openai(&server.url()).embed_retry(quick_retry(2));
        let answer = embed(face, &client, &texts(2050)).unwrap();
        assert_eq!(answer.vectors, numbered(2050), "{face:?}");
        assert_eq!((answer.usage.input_tokens, answer.model.as_str()), (103, "embed-test"));
        let seen = server.requests();
        assert_eq!(seen.len(), 3, "{face:?}: one retry, two batches");
        assert_eq!(seen[0].body, seen[1].body, "the retry sends the same batch");
        assert_eq!(seen[1].json()["input"].as_array().unwrap().len(), 2048);
        assert_eq!(seen[2].json()["input"], json!(["t2048", "t2049"]));
        assert_eq!(seen[2].path, "/v1/embeddings");
        assert_eq!(seen[2].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    }
}

#[test]
fn a_batch_that_keeps_failing_fails_the_request_after_the_policy_s_attempts() {
    for face in FACES {
        let server = Server::start(vec![rate_limited(), rate_limited(), openai_answer(0, 1, 1)]);
        let client = openai(&server.url()).embed_retry(quick_retry(2));
        let error = embed(face, &client, &texts(1)).unwrap_err();
        assert!(error.is_rate_limited(), "{face:?}: {error}");
        assert_eq!(server.requests().len(), 2, "{face:?}");
        assert!(!error.to_string().contains(KEY));
    }
}

#[test]
fn an_empty_request_never_reaches_the_network() {
    for face in FACES {
        let server = Server::start(vec![]);
        let client = openai(&server.url());
        for request in [EmbedRequest::documents(Vec::<String>::new()), EmbedRequest::documents(["a", " "])] {
            let error = embed(face, &client, &request).unwrap_err();
            assert_eq!((error.kind, error.retryable), (ModelErrorKind::Encode, false), "{face:?}");
        }
        assert_eq!(server.accepted(), 0);
    }
}

#[test]
fn a_short_answer_is_a_decode_error_and_not_retried() {
    for face in FACES {
        let server = Server::start(vec![openai_answer(0, 2, 1), openai_answer(0, 3, 1)]);
        let client = openai(&server.url()).embed_retry(quick_retry(3));
        let error = embed(face, &client, &texts(3)).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false), "{face:?}");
        assert_eq!(server.requests().len(), 1);
    }
}

#[test]
fn gemini_batches_to_100_and_retries_a_429() {
    for face in FACES {
        let values = |from: usize, to: usize| {
            let embeddings: Vec<_> = (from..to).map(|n| json!({"values": [n as f32, 1.0]})).collect();
            Reply::json(200, json!({ "embeddings": embeddings }).to_string())
        };
        let busy = Reply::json(429, gemini::status_body(429, "RESOURCE_EXHAUSTED", "quota", json!([])))
            .header("retry-after", "0");
        let server = Server::start(vec![values(0, 100), busy, values(100, 150)]);
        let client = gemini::client(&server.url()).embed_retry(quick_retry(2));
        let answer = embed(face, &client, &texts(150)).unwrap();
        assert_eq!(answer.vectors, numbered(150), "{face:?}");
        let seen = server.requests();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].path, "/v1beta/models/gemini-2.5-flash:batchEmbedContents");
        assert_eq!(seen[0].json()["requests"].as_array().unwrap().len(), 100);
        assert_eq!(seen[2].json()["requests"][0]["content"]["parts"][0]["text"], "t100");
        assert_eq!(seen[2].header("x-goog-api-key"), Some(gemini::KEY));
    }
}

#[test]
fn bedrock_cohere_batches_to_96_each_signed() {
    for face in FACES {
        let vectors = |from: usize, to: usize, tokens: &str| {
            let embeddings: Vec<_> = (from..to).map(|n| json!([n as f32, 1.0])).collect();
            Reply::json(200, json!({ "embeddings": embeddings, "response_type": "embeddings_floats" }).to_string())
                .header("x-amzn-bedrock-input-token-count", tokens)
        };
        let server = Server::start(vec![vectors(0, 96, "200"), vectors(96, 100, "9")]);
        let client = bedrock::client_with(bedrock::builder(&server.url()).model("cohere.embed-english-v3"));
        let answer = embed(face, &client, &texts(100)).unwrap();
        assert_eq!((answer.vectors, answer.usage.input_tokens), (numbered(100), 209), "{face:?}");
        let seen = server.requests();
        assert_eq!(seen.len(), 2);
        for request in &seen {
            assert_eq!(request.path, "/model/cohere.embed-english-v3/invoke");
            assert!(request.header("authorization").unwrap().starts_with("AWS4-HMAC-SHA256 Credential="));
            assert!(request.header("x-amz-date").is_some());
        }
        assert_eq!(seen[1].json()["texts"], json!(["t96", "t97", "t98", "t99"]));
    }
}

#[test]
fn bedrock_titan_sends_one_text_per_call() {
    for face in FACES {
        let one = |n: f32| Reply::json(200, json!({"embedding": [n, 1.0], "inputTextTokenCount": 2}).to_string());
        let server = Server::start(vec![one(0.0), one(1.0), one(2.0)]);
        let client = bedrock::client_with(bedrock::builder(&server.url()).model("amazon.titan-embed-text-v2:0"));
        let answer = embed(face, &client, &texts(3)).unwrap();
        assert_eq!((answer.vectors, answer.usage.input_tokens), (numbered(3), 6), "{face:?}");
        let seen = server.requests();
        assert_eq!(seen.iter().map(|r| r.json()["inputText"].clone()).collect::<Vec<_>>(), ["t0", "t1", "t2"]);
    }
}

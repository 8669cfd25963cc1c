//! Recorded embeddings traffic of every provider (tests/fixtures/recorded:
//! OpenAI float and base64, Azure AI Foundry v1, Gemini
//! `batchEmbedContents` and Vertex `embedContent`, Bedrock Titan v2 and
//! Cohere embed): the request we build for the equivalent golem request
//! goes to the recorded URL with the recorded body's fields, the recorded
//! response decodes to the recorded vectors (base64 ones to unit vectors,
//! as OpenAI's are), and a recorded error is classified. SPEC EXTRA-02.

use crate::support::{case_dir, read, read_json};
use golem_core::embed::{EmbedRequest, EmbedTask};
use golem_core::model::ModelErrorKind;
use golem_providers::codec::{EmbedCodec, HttpCodec};
use golem_providers::http::{HttpRequest, HttpResponseHead};
use golem_providers::sigv4::Credentials;
use golem_providers::{azure, bedrock, gemini, openai};
use serde_json::Value;
use std::time::{Duration, UNIX_EPOCH};

/// The recorded request body, response body and URI of a case.
struct Case {
    request: Value,
    response: Vec<u8>,
    uri: String,
    status: u16,
}

fn case(name: &str) -> Case {
    let dir = case_dir(name);
    let manifest = read_json(&dir.join("manifest.json"));
    let interaction = &manifest["interactions"][0];
    Case {
        request: read_json(&dir.join("01.request.json")),
        response: read(&dir.join("01.response.json")),
        uri: interaction["uri"].as_str().unwrap().to_string(),
        status: interaction["status"].as_u64().unwrap() as u16,
    }
}

fn body(http: &HttpRequest) -> Value {
    serde_json::from_slice(&http.body).expect("the request body is JSON")
}

fn ok() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![])
}

/// The recorded floats of `values` (a JSON array) as the `f32`s we keep.
fn floats(values: &Value) -> Vec<f32> {
    values.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

fn norm(vector: &[f32]) -> f64 {
    vector.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt()
}

fn openai_codec(base_url: &str) -> openai::Codec {
    openai::Codec::new(
        openai::Config::builder(openai::Preset::openai(), "text-embedding-3-small")
            .base_url(base_url)
            .api_key("sk-recorded")
            .build()
            .unwrap(),
    )
}

#[test]
fn openai_base64_requests_match_and_decode_to_unit_vectors() {
    for (name, dimensions, width) in
        [("openai/embeddings_base64", None, 1536), ("openai/embeddings_base64_dimensions", Some(128), 128)]
    {
        let case = case(name);
        let codec = openai_codec("https://api.openai.com/v1");
        let mut request = EmbedRequest::query("Hello, world!");
        if let Some(d) = dimensions {
            request = request.with_dimensions(d);
        }
        let http = codec.encode_embed(&request).unwrap();
        assert_eq!(http.url, case.uri, "{name}");
        assert_eq!(body(&http), case.request, "{name}: OpenAI itself is asked for base64");
        assert!(http.header("authorization").unwrap().is_secret());
        let answer = codec.decode_embed(&request, &ok(), &case.response).unwrap();
        assert_eq!((answer.vectors.len(), answer.vectors[0].len()), (1, width), "{name}");
        assert!((norm(&answer.vectors[0]) - 1.0).abs() < 1e-3, "{name}: OpenAI's vectors have unit length");
        assert_eq!((answer.usage.input_tokens, answer.model.as_str()), (4, "text-embedding-3-small"));
    }
}

#[test]
fn openai_float_request_matches_and_decodes_to_the_recorded_floats() {
    let case = case("openai/embeddings_float_dimensions");
    // A compatible server (Ollama, llama.cpp, vLLM) is asked for floats.
    let codec = openai_codec("http://localhost:11434/v1");
    let request = EmbedRequest::documents(["Ruby is a programmer's best friend"]).with_dimensions(768);
    let http = codec.encode_embed(&request).unwrap();
    assert_eq!(http.url, "http://localhost:11434/v1/embeddings");
    let mut expected = case.request.clone();
    expected["input"] = Value::Array(vec![expected["input"].clone()]); // we always send a list
    assert_eq!(body(&http), expected);
    let answer = codec.decode_embed(&request, &ok(), &case.response).unwrap();
    let recorded: Value = serde_json::from_slice(&case.response).unwrap();
    assert_eq!(answer.vectors, [floats(&recorded["data"][0]["embedding"])]);
    assert_eq!(answer.usage.input_tokens, 7);
}

#[test]
fn azure_foundry_v1_request_matches_and_decodes() {
    let case = case("azure/azure_foundry_v1_embeddings");
    let config = azure::Config::builder("https://rubyllm.services.ai.azure.com", "Cohere-embed-v3-english", "v1")
        .api_key("azure-recorded")
        .build()
        .unwrap();
    let codec = azure::Codec::new(config);
    let request = EmbedRequest::documents(["Ruby is a programmer's best friend"]);
    let http = codec.encode_embed(&request).unwrap();
    assert_eq!((http.url.as_str(), body(&http)), (case.uri.as_str(), case.request.clone()));
    assert!(http.header("api-key").unwrap().is_secret());
    let answer = codec.decode_embed(&request, &ok(), &case.response).unwrap();
    let recorded: Value = serde_json::from_slice(&case.response).unwrap();
    assert_eq!(answer.vectors, [floats(&recorded["data"][0]["embedding"])]);
    assert_eq!((answer.usage.input_tokens, answer.model.as_str()), (8, "embed-english-v3.0"));
}

#[test]
fn azure_deployments_embed_at_their_deployment_url() {
    let config = azure::Config::builder("https://example.openai.azure.com", "embed small", "2024-10-21")
        .api_key("azure-test")
        .build()
        .unwrap();
    let http = azure::Codec::new(config).encode_embed(&EmbedRequest::query("hi")).unwrap();
    assert_eq!(
        http.url,
        "https://example.openai.azure.com/openai/deployments/embed%20small/embeddings?api-version=2024-10-21"
    );
    assert_eq!(body(&http), serde_json::json!({"input": ["hi"]}), "the deployment names the model");
}

fn gemini_codec(model: &str) -> gemini::Codec {
    gemini::Codec::new(gemini::Config::builder(model).api_key("AIza-recorded").build().unwrap())
}

#[test]
fn gemini_batch_requests_match_and_decode() {
    let case = case("gemini/batch_embed_contents_task_type_dimensions");
    let codec = gemini_codec("gemini-embedding-2-preview");
    let request = EmbedRequest::query("Hello, world!").with_dimensions(768);
    let http = codec.encode_embed(&request).unwrap();
    assert_eq!((http.url.as_str(), body(&http)), (case.uri.as_str(), case.request.clone()));
    assert!(http.header("x-goog-api-key").unwrap().is_secret());
    let answer = codec.decode_embed(&request, &ok(), &case.response).unwrap();
    let recorded: Value = serde_json::from_slice(&case.response).unwrap();
    assert_eq!(answer.vectors, [floats(&recorded["embeddings"][0]["values"])]);

    // Recorded without a task type: we always send one (documents here).
    let case = self::case("gemini/batch_embed_contents_output_dimensionality");
    let codec = gemini_codec("gemini-embedding-001");
    let request = EmbedRequest::documents(["Some text goes here"]).with_dimensions(768);
    let http = codec.encode_embed(&request).unwrap();
    let mut expected = case.request.clone();
    expected["requests"][0]["taskType"] = "RETRIEVAL_DOCUMENT".into();
    assert_eq!((http.url.as_str(), body(&http)), (case.uri.as_str(), expected));
    let answer = codec.decode_embed(&request, &ok(), &case.response).unwrap();
    assert_eq!(answer.vectors[0].len(), 768);
}

#[test]
fn gemini_task_types_follow_the_request() {
    let codec = gemini_codec("gemini-embedding-001");
    for (task, wire) in [
        (EmbedTask::Document, "RETRIEVAL_DOCUMENT"),
        (EmbedTask::Query, "RETRIEVAL_QUERY"),
        (EmbedTask::Similarity, "SEMANTIC_SIMILARITY"),
        (EmbedTask::Classification, "CLASSIFICATION"),
        (EmbedTask::Clustering, "CLUSTERING"),
    ] {
        let http = codec.encode_embed(&EmbedRequest::documents(["a", "b"]).with_task(task)).unwrap();
        let sent = body(&http);
        assert!(sent["requests"].as_array().unwrap().iter().all(|r| r["taskType"] == wire), "{task:?}");
    }
}

#[test]
fn vertex_embed_content_answer_decodes_with_its_usage() {
    let case = case("gemini/vertex_embed_content");
    let answer = gemini::decode_embed_body(&case.response, None).unwrap();
    let recorded: Value = serde_json::from_slice(&case.response).unwrap();
    assert_eq!(answer.vectors, [floats(&recorded["embedding"]["values"])]);
    assert_eq!((answer.vectors[0].len(), answer.usage.input_tokens), (3072, 11));
}

#[test]
fn gemini_unknown_model_is_a_classified_not_found() {
    let case = case("errors/gemini_batch_embed_contents_404");
    let codec = gemini_codec("nonexistent-model");
    let request = EmbedRequest::query("Hello, world!");
    assert_eq!(body(&codec.encode_embed(&request).unwrap()), case.request);
    let head = HttpResponseHead::new(case.status, vec![]);
    let error = codec.decode_embed(&request, &head, &case.response).unwrap_err();
    assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(404), false));
    assert!(error.message.contains("not supported for embedContent"), "{error}");
}

fn bedrock_codec(model: &str) -> bedrock::Codec {
    let credentials = Credentials::new("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    bedrock::Codec::new(bedrock::Config::builder("us-east-1", model).credentials(credentials).build().unwrap())
}

#[test]
fn titan_requests_match_are_signed_and_decode() {
    let case = case("bedrock/invoke_titan_embed_text_v2_dimensions");
    let codec = bedrock_codec("amazon.titan-embed-text-v2:0");
    let request = EmbedRequest::documents(["Test embedding dimensions"]).with_dimensions(256);
    let http = codec.encode_embed(&request).unwrap();
    assert_eq!((http.url.as_str(), body(&http)), (case.uri.as_str(), case.request.clone()));
    let signed = codec.authorize(http, UNIX_EPOCH + Duration::from_secs(1_750_000_000)).unwrap();
    let authorization = signed.header("authorization").unwrap();
    assert!(authorization.is_secret() && authorization.expose().contains("/us-east-1/bedrock/aws4_request"));
    let answer = codec.decode_embed(&request, &ok(), &case.response).unwrap();
    let recorded: Value = serde_json::from_slice(&case.response).unwrap();
    assert_eq!(answer.vectors, [floats(&recorded["embedding"])]);
    assert_eq!(answer.usage.input_tokens, 4);

    let case = self::case("bedrock/invoke_titan_embed_text_v2_no_dimensions");
    let request = EmbedRequest::documents(["Ruby is a programmer's best friend"]);
    assert_eq!(body(&codec.encode_embed(&request).unwrap()), case.request);
    let answer = codec.decode_embed(&request, &ok(), &case.response).unwrap();
    assert_eq!((answer.vectors[0].len(), answer.usage.input_tokens), (1024, 8));
    assert_eq!(codec.embed_batch_limit(), 1, "Titan embeds one text per call");
}

#[test]
fn cohere_request_matches_and_decodes() {
    let case = case("bedrock/invoke_cohere_embed_english_v3");
    let codec = bedrock_codec("cohere.embed-english-v3");
    let request = EmbedRequest::documents(["Test input type setting"]).with_task(EmbedTask::Classification);
    let http = codec.encode_embed(&request).unwrap();
    assert_eq!((http.url.as_str(), body(&http)), (case.uri.as_str(), case.request.clone()));
    let head = HttpResponseHead::new(200, vec![("x-amzn-bedrock-input-token-count".into(), "5".into())]);
    let answer = codec.decode_embed(&request, &head, &case.response).unwrap();
    let recorded: Value = serde_json::from_slice(&case.response).unwrap();
    assert_eq!(answer.vectors, [floats(&recorded["embeddings"][0])]);
    assert_eq!(answer.usage.input_tokens, 5, "Cohere's tokens come in a header");
    assert_eq!(codec.embed_batch_limit(), 96);
}

#[test]
fn a_recorded_answer_for_another_count_is_a_decode_error() {
    let case = case("bedrock/invoke_cohere_embed_english_v3");
    let codec = bedrock_codec("cohere.embed-english-v3");
    let two = EmbedRequest::documents(["one", "two"]);
    let error = codec.decode_embed(&two, &ok(), &case.response).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Decode);
    assert!(error.message.contains("1 embeddings for 2 inputs"), "{error}");
    let asked = EmbedRequest::query("x").with_dimensions(64);
    let codec = gemini_codec("gemini-embedding-001");
    let error = codec.decode_embed(&asked, &ok(), &self::case("gemini/vertex_embed_content").response).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Decode, "3072 dimensions where 64 were asked");
}

#[test]
fn what_a_model_cannot_do_is_refused_before_sending() {
    let unsupported = |result: Result<HttpRequest, golem_core::ModelError>| result.unwrap_err().kind;
    let titan = bedrock_codec("amazon.titan-embed-text-v2:0");
    assert_eq!(unsupported(titan.encode_embed(&EmbedRequest::documents(["a", "b"]))), ModelErrorKind::Unsupported);
    let cohere = bedrock_codec("cohere.embed-english-v3");
    let sized = EmbedRequest::query("a").with_dimensions(8);
    assert_eq!(unsupported(cohere.encode_embed(&sized)), ModelErrorKind::Unsupported);
    let chat = bedrock_codec("us.anthropic.claude-sonnet-4-20250514-v1:0");
    assert_eq!(unsupported(chat.encode_embed(&EmbedRequest::query("a"))), ModelErrorKind::Unsupported);
    let groq =
        openai::Codec::new(openai::Config::builder(openai::Preset::groq(), "x").api_key("gsk-test").build().unwrap());
    assert_eq!(unsupported(groq.encode_embed(&EmbedRequest::query("a"))), ModelErrorKind::Unsupported);
}

//! The Azure OpenAI client against a loopback server: deployment URL,
//! api-version, `api-key` header, recorded response replayed, streaming,
//! through both faces (SPEC PROV-AZ-01).

use crate::models;
use crate::server;

use golem_core::model::{ModelErrorKind, Request};
use golem_core::Message;
use golem_providers::azure::Config;
use golem_providers::transport::TransportConfig;
use golem_providers::AzureOpenAi;
use models::{collect, generate, FACES};
use server::{stream_end, text_chunk, Reply, Server};

const AZURE_KEY: &str = "azure-loopback-key-77";

fn azure(url: &str) -> AzureOpenAi {
    let config = Config::builder(url, "gpt-4o", "2024-12-01-preview").api_key(AZURE_KEY).build().unwrap();
    AzureOpenAi::new(config).transport_config(TransportConfig::new())
}

fn recorded_response() -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/recorded/azure/azure_openai_chat_deployment/01.response.json"),
    )
    .unwrap()
}

#[test]
fn a_deployment_call_replays_the_recorded_answer() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, recorded_response())]);
        let request = Request::new(vec![Message::user("What is the capital of France?")]);
        let response = generate(face, &azure(&server.url()), &request).unwrap();
        let recorded: serde_json::Value = serde_json::from_slice(&recorded_response()).unwrap();
        assert_eq!(response.message.content, recorded["choices"][0]["message"]["content"].as_str().unwrap());
        let seen = &server.requests()[0];
        assert_eq!(seen.path, "/openai/deployments/gpt-4o/chat/completions?api-version=2024-12-01-preview");
        assert_eq!(seen.header("api-key"), Some(AZURE_KEY));
        assert!(seen.header("authorization").is_none());
        assert!(seen.json().get("model").is_none(), "the deployment names the model");
    }
}

#[test]
fn a_deployment_streams_and_classifies_errors_without_the_key() {
    for face in FACES {
        let echo = format!(r#"{{"error":{{"code":"401","message":"Access denied: key {AZURE_KEY} is invalid"}}}}"#);
        let server = Server::start(vec![
            Reply::sse([text_chunk("Par"), text_chunk("is"), stream_end()]),
            Reply::json(401, echo),
        ]);
        let model = azure(&server.url());
        let request = Request::new(vec![Message::user("Capital of France?")]);
        let (deltas, response) = collect(face, &model, &request);
        assert_eq!(response.unwrap().message.content, "Paris");
        assert_eq!(deltas.len(), 2);
        let error = generate(face, &model, &request).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Auth, false));
        let shown = format!("{error} {error:?} {model:?}");
        assert!(!shown.contains(AZURE_KEY), "{shown}");
    }
}

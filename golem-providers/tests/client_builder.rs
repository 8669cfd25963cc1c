//! One builder per client (issue 11 item 18): `OpenAi::builder()` and
//! `AzureOpenAi::builder()` take the provider's settings and the
//! transport's in one chain; a server other than the preset's own needs no
//! key; `OPENAI_BASE_URL` is the one variable for another server.

use crate::proxy::{self, ConnectProxy};
use crate::server::{text_body, Reply, Server};

use golem_core::model::{Model, Request};
use golem_core::Message;
use golem_providers::azure;
use golem_providers::openai::{ConfigError, Preset};
use golem_providers::{AzureOpenAi, OpenAi, Proxy, TransportConfig, Tuning};
use std::time::Duration;

fn hello() -> Request {
    Request::new(vec![Message::user("hi")])
}

#[test]
fn a_local_server_needs_no_key_and_gets_no_auth_header() {
    let server = Server::start(vec![Reply::json(200, text_body("local hello"))]);
    let client = OpenAi::builder()
        .model("qwen2.5")
        .base_url(format!("{}/v1", server.url()))
        .read_timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let response = Model::generate(&client, &hello()).unwrap();
    assert_eq!(response.message.content, "local hello");
    let seen = &server.requests()[0];
    assert_eq!(seen.header("authorization"), None);
    assert_eq!(seen.json()["model"], "qwen2.5");
}

#[test]
fn the_builder_sets_key_tuning_headers_and_the_proxy() {
    let server = Server::start(vec![Reply::json(200, text_body("via proxy"))]);
    let proxy = ConnectProxy::start();
    let client = OpenAi::builder()
        .model("gpt-4o-mini")
        .api_key("sk-builder")
        .base_url(format!("{}/v1", server.url()))
        .tuning(Tuning::new().temperature(0.0))
        .header("X-Title", "golem")
        .connect_timeout(Duration::from_secs(5))
        .proxy(Proxy::new(&proxy.url()).unwrap())
        .build()
        .unwrap();
    assert!(!format!("{client:?}").contains("sk-builder"));
    let response = Model::generate(&client, &hello()).unwrap();
    assert_eq!(response.message.content, "via proxy");
    assert_eq!(proxy.tunnels().len(), 1, "the transport settings reached the transports");
    let seen = &server.requests()[0];
    assert_eq!(seen.header("authorization"), Some("Bearer sk-builder"));
    assert_eq!(seen.header("x-title"), Some("golem"));
    assert_eq!(seen.json()["temperature"], 0.0);
}

#[test]
fn a_preset_keeps_an_explicit_base_url_whatever_the_order() {
    let groq = OpenAi::builder().base_url("http://127.0.0.1:9/v1").preset(Preset::groq()).model("llama").build();
    let groq = groq.expect("a server of one's own needs no Groq key");
    assert_eq!(groq.config().base_url(), "http://127.0.0.1:9/v1");
    assert_eq!(groq.config().preset().name, "groq");

    // At the preset's own service the key rule holds.
    let error = OpenAi::builder().preset(Preset::groq()).model("llama").build().unwrap_err();
    assert_eq!(error, ConfigError::Missing { provider: "groq", field: "an API key", var: Some("GROQ_API_KEY") });
    let error = OpenAi::builder().model("gpt-4o").base_url("https://api.openai.com/v1/").build().unwrap_err();
    assert!(
        matches!(error, ConfigError::Missing { field: "an API key", .. }),
        "the trailing slash does not hide OpenAI"
    );
    assert_eq!(
        OpenAi::builder().api_key("sk-1").build().unwrap_err(),
        ConfigError::Missing { provider: "openai", field: "a model", var: Some("OPENAI_MODEL") }
    );
}

#[test]
fn a_whole_transport_config_is_accepted() {
    let server = Server::start(vec![Reply::json(200, text_body("configured"))]);
    let client = OpenAi::builder()
        .model("m")
        .base_url(format!("{}/v1", server.url()))
        .transport_config(TransportConfig::new().read_timeout(Duration::from_secs(10)))
        .build()
        .unwrap();
    assert_eq!(Model::generate(&client, &hello()).unwrap().message.content, "configured");
}

#[test]
fn the_azure_builder_requires_its_four_settings() {
    let built = AzureOpenAi::builder()
        .endpoint("https://example.openai.azure.com/")
        .deployment("gpt-4o")
        .api_version("2024-12-01-preview")
        .bearer_token("entra-token")
        .read_timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    assert_eq!(built.config().endpoint(), "https://example.openai.azure.com");
    assert!(matches!(built.config().auth(), Some(azure::Auth::Bearer(_))));
    let missing = AzureOpenAi::builder().endpoint("https://example.openai.azure.com").deployment("d").build();
    assert_eq!(
        missing.unwrap_err(),
        azure::ConfigError::Missing {
            provider: "Azure OpenAI",
            field: "an api-version",
            var: Some("AZURE_OPENAI_API_VERSION")
        }
    );
}

/// Marks the child run of [`from_env_takes_openai_base_url_without_a_key`].
const CHILD: &str = "GOLEM_FROM_ENV_CHILD";

/// `OpenAi::from_env()` reads `OPENAI_BASE_URL` and needs no key there; in
/// a child process, so the variables stay out of the other tests.
#[test]
fn from_env_takes_openai_base_url_without_a_key() {
    if std::env::var_os(CHILD).is_none() {
        let set = [("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/"), ("OPENAI_MODEL", "local-model")];
        let test = "client_builder::from_env_takes_openai_base_url_without_a_key";
        proxy::run_in_child(test, CHILD, &set, &["OPENAI_API_KEY"]);
        return;
    }
    let client = OpenAi::from_env().unwrap();
    assert_eq!(client.config().base_url(), "http://127.0.0.1:8080/v1");
    assert_eq!(client.config().model(), "local-model");
    assert!(client.config().api_key().is_none());
}

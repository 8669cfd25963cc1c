//! Presets, config validation and from_env (SPEC PROV-OAI-08,
//! PROV-COMMON-02, PROV-AZ-01), Azure URLs and credentials.

use golem_core::model::Request;
use golem_core::Message;
use golem_providers::azure;
use golem_providers::chat_completions::{MaxTokensField, Tuning, TuningError};
use golem_providers::codec::HttpCodec;
use golem_providers::openai::{Codec, Config, ConfigError, KeyRule, Preset};
use std::collections::HashMap;

#[test]
fn the_preset_table() {
    let expected = [
        ("openai", "https://api.openai.com/v1", Some("OPENAI_API_KEY")),
        ("groq", "https://api.groq.com/openai/v1", Some("GROQ_API_KEY")),
        ("openrouter", "https://openrouter.ai/api/v1", Some("OPENROUTER_API_KEY")),
        ("deepseek", "https://api.deepseek.com/v1", Some("DEEPSEEK_API_KEY")),
        ("mistral", "https://api.mistral.ai/v1", Some("MISTRAL_API_KEY")),
        ("xai", "https://api.x.ai/v1", Some("XAI_API_KEY")),
        ("perplexity", "https://api.perplexity.ai", Some("PERPLEXITY_API_KEY")),
        ("cerebras", "https://api.cerebras.ai/v1", Some("CEREBRAS_API_KEY")),
        ("fireworks", "https://api.fireworks.ai/inference/v1", Some("FIREWORKS_API_KEY")),
        ("together", "https://api.together.xyz/v1", Some("TOGETHER_API_KEY")),
        ("cohere", "https://api.cohere.com/compatibility/v1", Some("COHERE_API_KEY")),
        ("vllm", "http://localhost:8000/v1", Some("VLLM_API_KEY")),
        ("ollama", "http://localhost:11434/v1", None),
        ("lmstudio", "http://localhost:1234/v1", None),
    ];
    let all = Preset::all();
    assert_eq!(all.len(), expected.len());
    for (preset, (name, url, var)) in all.iter().zip(expected) {
        assert_eq!((preset.name, preset.base_url, preset.key_env), (name, url, var));
        assert_eq!(Preset::by_name(name), Some(*preset));
        let caps = preset.capabilities();
        assert_eq!(caps.forced_tool_choice, name == "openai", "{name}: tool_choice only with a recording");
        assert!(caps.native_schema_with_tools, "{name}");
        let field = if name == "openai" { MaxTokensField::MaxCompletionTokens } else { MaxTokensField::MaxTokens };
        assert_eq!(preset.dialect.max_tokens_field, field, "{name}");
        let key = match name {
            "vllm" => KeyRule::Optional,
            "ollama" | "lmstudio" => KeyRule::None,
            _ => KeyRule::Required,
        };
        assert_eq!(preset.key, key, "{name}");
    }
    assert_eq!(Preset::default(), Preset::openai());
}

#[test]
fn from_env_reads_only_the_presets_variable() {
    let env: HashMap<&str, &str> = [("OPENAI_API_KEY", "sk-env-key"), ("GROQ_API_KEY", "gsk-env")].into();
    let lookup = |name: &str| env.get(name).map(|v| v.to_string());
    let config = Config::from_env(Preset::openai(), "gpt-4o-mini", lookup).unwrap();
    assert_eq!(config.api_key().unwrap().expose(), "sk-env-key");
    let error = Config::from_env(Preset::xai(), "grok", lookup).unwrap_err();
    assert_eq!(error, ConfigError::Missing { provider: "xai", field: "an API key", var: Some("XAI_API_KEY") });
    assert!(error.to_string().contains("XAI_API_KEY"));
    // An explicit key wins over the environment.
    let explicit = Config::builder(Preset::openai(), "m").api_key("sk-explicit").key_from_env(lookup).build().unwrap();
    assert_eq!(explicit.api_key().unwrap().expose(), "sk-explicit");
}

#[test]
fn local_presets_need_no_key_and_send_no_auth_header() {
    for preset in [Preset::ollama(), Preset::lm_studio(), Preset::vllm()] {
        let config = Config::from_env(preset, "llama3", |_| None).unwrap();
        let http = Codec::new(config).encode(&Request::new(vec![Message::user("hi")]), false).unwrap();
        assert!(http.header("authorization").is_none(), "{}", preset.name);
        assert_eq!(http.url, format!("{}/chat/completions", preset.base_url));
    }
    let with_key = Config::builder(Preset::vllm(), "m").api_key("vllm-key").build().unwrap();
    let http = Codec::new(with_key).encode(&Request::new(vec![Message::user("hi")]), false).unwrap();
    assert_eq!(http.header("authorization").unwrap().expose(), "Bearer vllm-key");
}

#[test]
fn configs_are_validated_at_construction() {
    let base = || Config::builder(Preset::openai(), "m").api_key("sk-valid");
    assert!(base().build().is_ok());
    assert_eq!(
        Config::builder(Preset::openai(), " ").api_key("sk-1").build().unwrap_err(),
        ConfigError::Missing { provider: "openai", field: "a model", var: Some("OPENAI_MODEL") }
    );
    assert_eq!(
        base().api_key("").build().unwrap_err(),
        ConfigError::Missing { provider: "openai", field: "an API key", var: Some("OPENAI_API_KEY") }
    );
    assert_eq!(base().api_key("sk bad\n").build().unwrap_err(), ConfigError::InvalidKey);
    assert!(matches!(base().base_url("ftp://x").build(), Err(ConfigError::InvalidBaseUrl { .. })));
    assert!(matches!(base().base_url("https://x/v1?key=1").build(), Err(ConfigError::InvalidBaseUrl { .. })));
    assert!(matches!(base().header("Authorization", "Bearer x").build(), Err(ConfigError::InvalidHeader { .. })));
    assert!(matches!(base().header("x-title", "a\r\nb").build(), Err(ConfigError::InvalidHeader { .. })));
    assert!(matches!(base().header("bad name", "v").build(), Err(ConfigError::InvalidHeader { .. })));
    let trimmed = base().base_url("http://localhost:9999/v1///").build().unwrap();
    assert_eq!(trimmed.base_url(), "http://localhost:9999/v1");

    let tuning_errors = [
        Tuning::new().temperature(-0.1),
        Tuning::new().temperature(2.01),
        Tuning::new().temperature(f64::NAN),
        Tuning::new().top_p(1.5),
        Tuning::new().presence_penalty(3.0),
        Tuning::new().frequency_penalty(-2.5),
        Tuning::new().max_tokens(0),
        Tuning::new().reasoning_effort(""),
        Tuning::new().stop(""),
        Tuning::new().user("a\nb"),
    ];
    for tuning in tuning_errors {
        assert!(matches!(base().tuning(tuning.clone()).build(), Err(ConfigError::InvalidTuning(_))), "{tuning:?}");
    }
    assert!(base().tuning(Tuning::new().temperature(0.0).top_p(1.0).temperature(2.0)).build().is_ok());
    assert_eq!(
        Tuning::new().max_tokens(0).validate(),
        Err(TuningError::Zero { field: "max_tokens" }),
        "tuning errors are comparable"
    );
}

#[test]
fn extra_headers_go_out_plain() {
    let config = Config::builder(Preset::openrouter(), "m")
        .api_key("or-key")
        .header("HTTP-Referer", "https://example.com")
        .header("X-Title", "golem")
        .build()
        .unwrap();
    let http = Codec::new(config).encode(&Request::new(vec![Message::user("hi")]), true).unwrap();
    assert_eq!(http.header("http-referer").unwrap().expose(), "https://example.com");
    assert_eq!(http.header("x-title").unwrap().expose(), "golem");
    assert_eq!(http.header("accept").unwrap().expose(), "text/event-stream");
}

#[test]
fn azure_urls_are_percent_encoded_and_all_four_fields_required() {
    let config = azure::Config::builder("https://res.openai.azure.com", "my deploy/v1", "2024-12-01 preview&x=1")
        .api_key("az-key")
        .build()
        .unwrap();
    assert_eq!(
        azure::url(&config),
        "https://res.openai.azure.com/openai/deployments/my%20deploy%2Fv1/chat/completions?api-version=2024-12-01%20preview%26x%3D1"
    );
    let missing = [
        azure::Config::builder("", "d", "v").api_key("k-1").build(),
        azure::Config::builder("https://e", "", "v").api_key("k-1").build(),
        azure::Config::builder("https://e", "d", "").api_key("k-1").build(),
        azure::Config::builder("https://e", "d", "v").build(),
        azure::Config::builder("https://e", "d", "v").api_key("").build(),
    ];
    for result in missing {
        assert!(matches!(result, Err(azure::ConfigError::Missing { .. })), "{result:?}");
    }
    assert!(matches!(
        azure::Config::builder("e.openai.azure.com", "d", "v").api_key("k-1").build(),
        Err(azure::ConfigError::InvalidBaseUrl { .. })
    ));
}

#[test]
fn azure_from_env_and_bearer_tokens() {
    let env: HashMap<&str, &str> = [
        ("AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com/"),
        ("AZURE_OPENAI_DEPLOYMENT", "gpt-4o"),
        ("AZURE_OPENAI_API_VERSION", "2024-12-01-preview"),
        ("AZURE_OPENAI_API_KEY", "az-env-key"),
    ]
    .into();
    let config = azure::Config::from_env(|name| env.get(name).map(|v| v.to_string())).unwrap();
    assert_eq!(config.deployment(), "gpt-4o");
    let error = azure::Config::from_env(|name| (name != "AZURE_OPENAI_API_VERSION").then(|| env[name].to_string()))
        .unwrap_err();
    assert_eq!(
        error,
        azure::ConfigError::Missing {
            provider: "Azure OpenAI",
            field: "an api-version",
            var: Some("AZURE_OPENAI_API_VERSION")
        }
    );

    let bearer = azure::Config::builder("https://res.openai.azure.com", "gpt-4o", "2024-12-01-preview")
        .bearer_token("entra-token")
        .build()
        .unwrap();
    let http = azure::Codec::new(bearer).encode(&Request::new(vec![Message::user("hi")]), false).unwrap();
    assert_eq!(http.header("authorization").unwrap().expose(), "Bearer entra-token");
    assert!(http.header("api-key").is_none());
    let caps = azure::Codec::new(config).capabilities();
    assert!(caps.forced_tool_choice && caps.native_schema_with_tools);
}

//! Keys never appear in Debug or Display output of configs, codecs, HTTP
//! requests or errors (SPEC ERR-06).

use golem_core::model::Request;
use golem_core::Message;
use golem_providers::azure;
use golem_providers::codec::{HttpCodec, StreamDecoder};
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Codec, Config, ConfigError, Preset};
use golem_providers::Secret;

const KEY: &str = "sk-live-TOPSECRET-0123456789abcdef";

fn assert_hidden(what: &str, text: &str) {
    assert!(!text.contains(KEY), "{what} leaks the key: {text}");
    assert!(!text.contains("TOPSECRET"), "{what} leaks part of the key: {text}");
}

#[test]
fn nothing_formats_the_key() {
    let config = Config::builder(Preset::openai(), "gpt-4o").api_key(KEY).build().unwrap();
    assert_hidden("config", &format!("{config:?}"));
    let codec = Codec::new(config);
    assert_hidden("codec", &format!("{codec:?}"));
    let request = Request::new(vec![Message::user("hi")]);
    let http = codec.encode(&request, true).unwrap();
    assert_hidden("request", &format!("{http:?}"));
    for (name, value) in &http.headers {
        assert_hidden(name, &format!("{value} {value:?}"));
    }
    assert_eq!(http.header("authorization").unwrap().expose(), format!("Bearer {KEY}"), "only expose() reveals it");
    assert!(!http.url.contains(KEY), "keys never go in URLs");

    let leaky = format!(r#"{{"error":{{"message":"bad key {KEY}","type":"x","code":"{KEY}"}}}}"#);
    for status in [200, 401, 429, 500] {
        let head = HttpResponseHead::new(status, vec![]);
        let error = codec.decode(&request, &head, leaky.as_bytes()).unwrap_err();
        assert_hidden("error", &format!("{error} {error:?} {}", serde_json::to_string(&error).unwrap()));
        let mut stream = codec.stream_decoder(&request, &head);
        stream.feed(format!("data: {leaky}\n\ndata: {KEY}\n\n").as_bytes());
        while let Some(item) = stream.next_delta() {
            if let Err(error) = item {
                assert_hidden("stream error", &format!("{error} {error:?}"));
            }
        }
        let error = stream.finish().unwrap_err();
        assert_hidden("stream finish", &format!("{error} {error:?}"));
    }
    let garbage = codec.error(&HttpResponseHead::new(502, vec![]), format!("<html>{KEY}</html>").as_bytes());
    assert_hidden("quoted body", &format!("{garbage} {garbage:?}"));
}

#[test]
fn config_errors_never_hold_the_key() {
    let error = Config::builder(Preset::openai(), "m").api_key(format!("{KEY}\n")).build().unwrap_err();
    assert_eq!(error, ConfigError::InvalidKey);
    assert_hidden("config error", &format!("{error} {error:?}"));
    let error =
        azure::Config::builder("https://e.openai.azure.com", "d", "v").api_key(format!("{KEY} x")).build().unwrap_err();
    assert_hidden("azure config error", &format!("{error} {error:?}"));
}

#[test]
fn azure_keys_and_tokens_are_hidden() {
    for config in [
        azure::Config::builder("https://e.openai.azure.com", "d", "v").api_key(KEY).build().unwrap(),
        azure::Config::builder("https://e.openai.azure.com", "d", "v").bearer_token(KEY).build().unwrap(),
    ] {
        assert_hidden("azure config", &format!("{config:?}"));
        let codec = azure::Codec::new(config);
        let http = codec.encode(&Request::new(vec![Message::user("hi")]), false).unwrap();
        assert_hidden("azure request", &format!("{http:?}"));
        let error = codec
            .error(&HttpResponseHead::new(401, vec![]), format!(r#"{{"error":{{"message":"{KEY}"}}}}"#).as_bytes());
        assert_hidden("azure error", &format!("{error} {error:?}"));
    }
}

#[test]
fn secrets_scrub_and_redact() {
    let secret = Secret::new(KEY);
    assert_eq!(format!("{secret} {secret:?}"), "[redacted] [redacted]");
    assert_eq!(secret.scrub(&format!("a {KEY} b {KEY}")), "a [redacted] b [redacted]");
    assert_eq!(Secret::new("abc").scrub("abcabc"), "abcabc", "tiny secrets are not searched for");
}

#[test]
fn aws_credentials_never_show() {
    use golem_providers::bedrock::{Config, CredentialsError};
    use golem_providers::sigv4::Credentials;
    use std::time::UNIX_EPOCH;

    const KEY_ID: &str = "AKIATOPSECRETKEYID01";
    const SECRET: &str = "aws-TOPSECRET-secret-access-key";
    const TOKEN: &str = "aws-TOPSECRET-session-token";
    let hidden = |what: &str, text: &str| {
        for secret in [KEY_ID, SECRET, TOKEN, "TOPSECRET"] {
            assert!(!text.contains(secret), "{what} leaks {secret}: {text}");
        }
    };
    let credentials = Credentials::new(KEY_ID, SECRET).with_session_token(TOKEN);
    hidden("credentials", &format!("{credentials:?}"));
    let config =
        Config::builder("us-east-1", "amazon.nova-micro-v1:0").credentials(credentials.clone()).build().unwrap();
    hidden("config", &format!("{config:?}"));
    let codec = golem_providers::bedrock::Codec::new(config);
    hidden("codec", &format!("{codec:?}"));
    let request = Request::new(vec![Message::user("hi")]);
    let http = codec.authorize(codec.encode(&request, true).unwrap(), UNIX_EPOCH).unwrap();
    hidden("signed request", &format!("{http:?}"));
    for (name, value) in &http.headers {
        hidden(name, &format!("{value} {value:?}"));
    }
    assert!(http.header("authorization").unwrap().expose().contains(KEY_ID), "only expose() reveals it");
    assert_eq!(http.header("x-amz-security-token").unwrap().expose(), TOKEN);

    let echo = format!(r#"{{"message":"bad {KEY_ID} {SECRET} {TOKEN}"}}"#);
    for status in [400, 403, 500] {
        let head = HttpResponseHead::new(status, vec![("x-amzn-errortype".into(), format!("{KEY_ID}:x"))]);
        let error = codec.decode(&request, &head, echo.as_bytes()).unwrap_err();
        hidden("error", &format!("{error} {error:?} {}", serde_json::to_string(&error).unwrap()));
    }
    let mut stream = codec.stream_decoder(&request, &HttpResponseHead::new(200, vec![]));
    let headers = vec![
        golem_providers::eventstream::Header {
            name: ":message-type".into(),
            value: golem_providers::eventstream::HeaderValue::String("exception".into()),
        },
        golem_providers::eventstream::Header {
            name: ":exception-type".into(),
            value: golem_providers::eventstream::HeaderValue::String("validationException".into()),
        },
    ];
    stream.feed(&golem_providers::eventstream::encode_frame(&headers, echo.as_bytes()));
    while let Some(item) = stream.next_delta() {
        if let Err(error) = item {
            hidden("stream error", &format!("{error} {error:?}"));
        }
    }
    let error = stream.finish().unwrap_err();
    hidden("stream finish", &format!("{error} {error:?}"));

    let failing = Config::builder("us-east-1", "m")
        .credentials_provider(|| Err(CredentialsError::new("expired")))
        .build()
        .unwrap();
    hidden("provider config", &format!("{failing:?}"));
    let error = golem_providers::bedrock::Codec::new(failing)
        .authorize(
            golem_providers::http::HttpRequest::new(golem_providers::http::Method::Post, "https://x/y"),
            UNIX_EPOCH,
        )
        .unwrap_err();
    assert_eq!(error.kind, golem_core::ModelErrorKind::Auth);
}

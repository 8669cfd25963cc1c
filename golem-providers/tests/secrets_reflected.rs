//! A server that reflects the key into a response header never gets it
//! into an error (issue 15 item 2, SPEC ERR-06): every header-derived field
//! — request id, code — is scrubbed like the body, on every error path of
//! every codec and through the clients; and headers a user adds are
//! redacted in `Debug` unless declared plain.

use crate::models::{collect, generate, openai, FACES, KEY};
use crate::server::{Reply, Server};
use golem_core::model::{ModelError, Request};
use golem_core::Message;
use golem_providers::codec::{HttpCodec, StreamDecoder};
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Codec, Config, Preset};
use golem_providers::{azure, bedrock, OpenAi};

const SECRET: &str = "sk-live-REFLECTED-0123456789abcdef";

fn request() -> Request {
    Request::new(vec![Message::user("hi")])
}

/// Every way a response head can name a request id, each holding `secret`.
fn reflecting_heads(status: u16, secret: &str) -> Vec<HttpResponseHead> {
    ["x-request-id", "request-id", "x-amzn-requestid", "apim-request-id"]
        .iter()
        .map(|name| HttpResponseHead::new(status, vec![((*name).into(), format!("req-7 {secret}"))]))
        .collect()
}

fn assert_hidden(what: &str, error: &ModelError, secrets: &[&str]) {
    let shown = format!("{error} {error:?} {}", serde_json::to_string(error).unwrap());
    for secret in secrets {
        assert!(!shown.contains(secret), "{what} leaks {secret}: {shown}");
    }
}

/// Every error a Chat Completions codec can make from `head`: the whole
/// body (error statuses, an in-band error, undecodable JSON, no choices)
/// and the stream (an in-band error chunk, invalid JSON, a cut stream).
fn chat_errors<C: HttpCodec>(codec: &C, head: &HttpResponseHead) -> Vec<ModelError> {
    let request = request();
    let mut errors = Vec::new();
    let bodies: [&[u8]; 4] = [
        br#"{"error":{"message":"no","type":"server_error","code":"x"}}"#,
        b"{not json",
        b"{}",
        b"<html>gateway</html>",
    ];
    for body in bodies {
        if let Err(error) = codec.decode(&request, head, body) {
            errors.push(error);
        }
    }
    if head.is_success() {
        let streams: [&[u8]; 3] = [
            b"data: {\"error\":{\"message\":\"no\",\"type\":\"server_error\"}}\n\n",
            b"data: {not json\n\n",
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n",
        ];
        for bytes in streams {
            let mut stream = codec.stream_decoder(&request, head);
            stream.feed(bytes);
            stream.end();
            while stream.next_delta().is_some() {}
            errors.extend(stream.finish().err());
        }
    }
    errors
}

#[test]
fn a_reflected_key_never_appears_in_any_openai_or_azure_error() {
    let openai = Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key(SECRET).build().unwrap());
    let azure_key = azure::Codec::new(
        azure::Config::builder("https://e.openai.azure.com", "d", "v").api_key(SECRET).build().unwrap(),
    );
    let azure_token = azure::Codec::new(
        azure::Config::builder("https://e.openai.azure.com", "d", "v").bearer_token(SECRET).build().unwrap(),
    );
    for status in [200, 400, 401, 429, 500] {
        for head in reflecting_heads(status, SECRET) {
            let errors: Vec<ModelError> = [chat_errors(&openai, &head), chat_errors(&azure_key, &head)]
                .into_iter()
                .chain([chat_errors(&azure_token, &head)])
                .flatten()
                .collect();
            assert!(errors.len() >= 3, "every path fails: {errors:?}");
            for error in &errors {
                assert_hidden("error", error, &[SECRET]);
                assert!(error.request_id.starts_with("req-7"), "the rest of the id stays: {error:?}");
            }
        }
    }
}

#[test]
fn reflected_aws_credentials_never_appear_in_any_bedrock_error() {
    use golem_providers::eventstream::{encode_frame, Header, HeaderValue};
    use golem_providers::sigv4::Credentials;

    const KEY_ID: &str = "AKIAREFLECTEDKEYID01";
    const ACCESS: &str = "aws-REFLECTED-secret-access-key";
    const TOKEN: &str = "aws-REFLECTED-session-token";
    let credentials = Credentials::new(KEY_ID, ACCESS).with_session_token(TOKEN);
    let config =
        bedrock::Config::builder("us-east-1", "amazon.nova-micro-v1:0").credentials(credentials).build().unwrap();
    let codec = bedrock::Codec::new(config);
    let request = request();
    for secret in [KEY_ID, ACCESS, TOKEN] {
        for status in [200, 400, 403, 500] {
            for mut head in reflecting_heads(status, secret) {
                head.headers.push(("x-amzn-errortype".into(), format!("{secret}:http://x")));
                let mut errors: Vec<ModelError> = [&b"{\"message\":\"no\"}"[..], b"{not json", b"{}"]
                    .iter()
                    .filter_map(|body| codec.decode(&request, &head, body).err())
                    .collect();
                if head.is_success() {
                    let exception = encode_frame(
                        &[
                            Header { name: ":message-type".into(), value: HeaderValue::String("exception".into()) },
                            Header {
                                name: ":exception-type".into(),
                                value: HeaderValue::String("throttlingException".into()),
                            },
                        ],
                        b"{\"message\":\"slow\"}",
                    );
                    for bytes in [exception, b"garbage that is no frame".to_vec(), Vec::new()] {
                        let mut stream = codec.stream_decoder(&request, &head);
                        stream.feed(&bytes);
                        stream.end();
                        while stream.next_delta().is_some() {}
                        errors.extend(stream.finish().err());
                    }
                }
                assert!(errors.len() >= 3, "every path fails: {errors:?}");
                for error in &errors {
                    assert_hidden("bedrock error", error, &[KEY_ID, ACCESS, TOKEN]);
                }
            }
        }
    }
}

#[test]
fn a_server_reflecting_the_key_into_its_request_id_cannot_leak_it_through_the_client() {
    for face in FACES {
        let reflected = format!("req-9 Bearer {KEY}");
        let server = Server::start(vec![
            Reply::json(429, r#"{"error":{"message":"slow down","code":"rate_limit_exceeded"}}"#)
                .header("x-request-id", &reflected),
            Reply::json(500, "{}").header("request-id", &reflected),
            Reply::json(200, "{not json").header("x-request-id", &reflected),
        ]);
        let model = openai(&server.url());
        let mut errors = vec![generate(face, &model, &request()).unwrap_err()];
        errors.push(collect(face, &model, &request()).1.unwrap_err());
        errors.push(generate(face, &model, &request()).unwrap_err());
        for error in &errors {
            assert_hidden("client error", error, &[KEY]);
            assert!(error.request_id.starts_with("req-9 Bearer "), "{face:?}: {error:?}");
        }
    }
}

#[test]
fn added_headers_are_redacted_unless_declared_plain() {
    const PROXY_TOKEN: &str = "proxy-token-REFLECTED-77";
    let config = Config::builder(Preset::openai(), "gpt-4o")
        .api_key(SECRET)
        .header("x-proxy-token", PROXY_TOKEN)
        .plain_header("x-title", "golem-visible")
        .build()
        .unwrap();
    let codec = Codec::new(config.clone());
    let http = codec.encode(&request(), false).unwrap();
    let client = OpenAi::builder()
        .model("gpt-4o")
        .api_key(SECRET)
        .header("x-proxy-token", PROXY_TOKEN)
        .plain_header("x-title", "golem-visible")
        .build()
        .unwrap();
    for shown in [format!("{config:?}"), format!("{codec:?}"), format!("{http:?}"), format!("{client:?}")] {
        assert!(!shown.contains(PROXY_TOKEN) && !shown.contains(SECRET), "{shown}");
        assert!(shown.contains("golem-visible"), "a plain header stays visible: {shown}");
    }
    assert_eq!(http.header("x-proxy-token").map(|v| v.expose()), Some(PROXY_TOKEN), "the wire still gets it");
    assert!(http.header("x-proxy-token").unwrap().is_secret());
    assert!(!http.header("x-title").unwrap().is_secret());
}

#[test]
fn a_reflected_key_never_appears_in_any_gemini_error() {
    use golem_providers::gemini;

    let codec = gemini::Codec::new(gemini::Config::builder("gemini-2.5-flash").api_key(SECRET).build().unwrap());
    let request = request();
    for status in [200, 400, 403, 429, 503] {
        for head in reflecting_heads(status, SECRET) {
            let bodies: [&[u8]; 4] = [
                br#"{"error":{"code":429,"message":"no","status":"RESOURCE_EXHAUSTED"}}"#,
                b"{not json",
                b"{}",
                b"<html>gateway</html>",
            ];
            let mut errors: Vec<ModelError> =
                bodies.iter().filter_map(|body| codec.decode(&request, &head, body).err()).collect();
            if head.is_success() {
                let streams: [&[u8]; 3] = [
                    b"data: {\"error\":{\"code\":503,\"message\":\"no\",\"status\":\"UNAVAILABLE\"}}\n\n",
                    b"data: {not json\n\n",
                    b"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi\"}]}}]}\n\n",
                ];
                for bytes in streams {
                    let mut stream = codec.stream_decoder(&request, &head);
                    stream.feed(bytes);
                    stream.end();
                    while stream.next_delta().is_some() {}
                    errors.extend(stream.finish().err());
                }
            }
            assert!(errors.len() >= 3, "every path fails: {errors:?}");
            for error in &errors {
                assert_hidden("gemini error", error, &[SECRET]);
                assert!(error.request_id.starts_with("req-7"), "the rest of the id stays: {error:?}");
            }
        }
    }
}

#[test]
fn a_reflected_key_never_appears_in_any_anthropic_error() {
    use golem_providers::anthropic;

    let codec = anthropic::Codec::new(anthropic::Config::builder("claude-sonnet-4-5").api_key(SECRET).build().unwrap());
    let request = request();
    let reflected =
        format!(r#"{{"type":"error","error":{{"type":"invalid_request_error","message":"bad key {SECRET}"}}}}"#);
    for status in [200, 400, 401, 429, 529] {
        for head in reflecting_heads(status, SECRET) {
            let bodies: [&[u8]; 5] = [
                br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                reflected.as_bytes(),
                b"{not json",
                b"{}",
                b"<html>gateway</html>",
            ];
            let mut errors: Vec<ModelError> =
                bodies.iter().filter_map(|body| codec.decode(&request, &head, body).err()).collect();
            if head.is_success() {
                let error_event = format!(
                    "data: {{\"type\":\"error\",\"error\":{{\"type\":\"api_error\",\"message\":\"{SECRET}\"}}}}\n\n"
                );
                let streams: [&[u8]; 4] = [
                    error_event.as_bytes(),
                    b"data: {not json\n\n",
                    b"data: {\"type\":\"message_start\",\"message\":{}}\n\n",
                    b"data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
                ];
                for bytes in streams {
                    let mut stream = codec.stream_decoder(&request, &head);
                    stream.feed(bytes);
                    stream.end();
                    while stream.next_delta().is_some() {}
                    errors.extend(stream.finish().err());
                }
            }
            assert!(errors.len() >= 4, "every path fails: {errors:?}");
            for error in &errors {
                assert_hidden("anthropic error", error, &[SECRET]);
                assert!(error.request_id.starts_with("req-7"), "the rest of the id stays: {error:?}");
            }
        }
    }
}

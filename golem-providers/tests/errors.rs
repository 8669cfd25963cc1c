//! Error classification (SPEC PROV-COMMON-04/05, PROV-OAI-05, ERR-06):
//! recorded error bodies, the status table, in-band errors, request ids and
//! key scrubbing.

use crate::support;

use golem_core::model::{ModelErrorKind, Request};
use golem_core::Message;
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Codec, Config, Preset};
use std::time::Duration;
use support::*;

const KEY: &str = "sk-proj-SECRET-abcdef123456";

fn codec() -> Codec {
    Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key(KEY).build().unwrap())
}

fn request() -> Request {
    Request::new(vec![Message::user("hello")])
}

fn head(status: u16, headers: &[(&str, &str)]) -> HttpResponseHead {
    HttpResponseHead::new(status, headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect())
}

#[test]
fn recorded_404_is_a_fatal_api_error_with_the_providers_message() {
    let case = "errors/openai_chat_404_model_not_found";
    let recorded = read_json(&case_dir(case).join("01.request.json"));
    let codec = Codec::new(Config::builder(Preset::openai(), "gpt-5.2-proo").api_key(KEY).build().unwrap());
    let request = request_from_recorded(&recorded);
    let body: serde_json::Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
    assert_eq!(body, recorded);

    let head = cassette_head(case, 1);
    assert_eq!(head.status, 404);
    let error = codec.decode(&request, &head, &read(&case_dir(case).join("01.response.json"))).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Api);
    assert!(!error.retryable);
    assert_eq!(error.status, Some(404));
    assert_eq!(error.code, "model_not_found");
    assert_eq!(error.message, "The model `gpt-5.2-proo` does not exist or you do not have access to it.");
    assert_eq!(error.retry_after, None);
    assert_eq!(error, codec.error(&head, &read(&case_dir(case).join("01.response.json"))));
}

#[test]
fn statuses_classify_per_the_table() {
    let body = br#"{"error":{"message":"m","type":"t","code":null,"param":null}}"#;
    let table: [(u16, ModelErrorKind, bool); 13] = [
        (400, ModelErrorKind::Api, false),
        (401, ModelErrorKind::Auth, false),
        (403, ModelErrorKind::Auth, false),
        (404, ModelErrorKind::Api, false),
        (408, ModelErrorKind::Api, true),
        (409, ModelErrorKind::Api, false),
        (413, ModelErrorKind::Api, false),
        (422, ModelErrorKind::Api, false),
        (429, ModelErrorKind::Api, true),
        (500, ModelErrorKind::Api, true),
        (502, ModelErrorKind::Api, true),
        (503, ModelErrorKind::Api, true),
        (529, ModelErrorKind::Api, true),
    ];
    for (status, kind, retryable) in table {
        let error = codec().decode(&request(), &head(status, &[]), body).unwrap_err();
        assert_eq!((error.kind, error.retryable, error.status), (kind, retryable, Some(status)), "status {status}");
        assert_eq!(error.message, "m");
        assert_eq!(error.code, "t", "a null code falls back to the type");
    }
}

#[test]
fn retryable_errors_carry_retry_after_and_request_id() {
    let body = br#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
    let error = codec()
        .decode(&request(), &head(429, &[("Retry-After-Ms", "1500"), ("X-Request-Id", "req_123")]), body)
        .unwrap_err();
    assert!(error.retryable);
    assert_eq!(error.retry_after, Some(Duration::from_millis(1500)));
    assert_eq!(error.request_id, "req_123");
    assert_eq!(error.code, "rate_limit_exceeded");

    let error = codec()
        .decode(
            &request(),
            &head(503, &[("retry-after", "Wed, 21 Oct 2015 07:28:05 GMT"), ("date", "Wed, 21 Oct 2015 07:28:00 GMT")]),
            b"",
        )
        .unwrap_err();
    assert_eq!(error.retry_after, Some(Duration::from_secs(5)));
    assert_eq!(error.message, "HTTP status 503");
}

#[test]
fn codes_may_be_strings_numbers_or_null_and_param_is_kept() {
    let cases: [(&[u8], &str, &str); 4] = [
        (
            br#"{"error":{"message":"bad","type":"invalid_request_error","code":"x_y","param":"messages"}}"#,
            "x_y",
            "bad (param: messages)",
        ),
        (br#"{"error":{"message":"bad","type":"invalid_request_error","code":400,"param":null}}"#, "400", "bad"),
        (br#"{"error":{"message":"bad","type":"invalid_request_error","code":null}}"#, "invalid_request_error", "bad"),
        (br#"{"error":{"message":"bad"}}"#, "", "bad"),
    ];
    for (body, code, message) in cases {
        let error = codec().error(&head(400, &[]), body);
        assert_eq!((error.code.as_str(), error.message.as_str()), (code, message));
    }
}

#[test]
fn other_error_shapes_are_read_and_garbage_is_quoted() {
    let error = codec().error(&head(400, &[]), br#"{"error":"plain text error"}"#);
    assert_eq!(error.message, "plain text error");
    let error = codec()
        .error(&head(400, &[]), br#"{"object":"error","message":"vllm says no","type":"BadRequestError","code":400}"#);
    assert_eq!((error.message.as_str(), error.code.as_str()), ("vllm says no", "400"));
    let error = codec().error(&head(422, &[]), br#"{"detail":"fastapi says no"}"#);
    assert_eq!(error.message, "fastapi says no");
    let error = codec().error(&head(502, &[]), b"<html><body>\nBad gateway</body></html>");
    assert_eq!(error.message, "HTTP status 502: <html><body> Bad gateway</body></html>");
    assert!(error.retryable);
    let long = vec![b'x'; 10_000];
    assert!(codec().error(&head(500, &[]), &long).message.chars().count() < 300);
}

#[test]
fn the_key_is_scrubbed_from_provider_messages() {
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let error = codec().decode(&request(), &head(401, &[]), body.as_bytes()).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Auth);
    assert_eq!(error.message, "Incorrect API key provided: [redacted].");
    assert!(!format!("{error} {error:?}").contains(KEY));
    let error = codec().error(&head(500, &[]), format!("upstream echoed {KEY}").as_bytes());
    assert!(!format!("{error} {error:?}").contains(KEY));
}

#[test]
fn error_bodies_with_a_success_status_are_classified_in_band() {
    let body = br#"{"error":{"message":"overloaded, try later","type":"server_error","code":null}}"#;
    let error = codec().decode(&request(), &head(200, &[("x-request-id", "r1")]), body).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Api);
    assert!(error.retryable);
    assert_eq!((error.code.as_str(), error.request_id.as_str()), ("server_error", "r1"));

    let body = br#"{"error":{"message":"no","type":"invalid_request_error"}}"#;
    assert!(!codec().decode(&request(), &head(200, &[]), body).unwrap_err().retryable);

    // OpenRouter reports upstream statuses as numeric codes.
    let body = br#"{"error":{"message":"Provider returned error","code":502}}"#;
    let error = codec().decode(&request(), &head(200, &[]), body).unwrap_err();
    assert_eq!((error.status, error.retryable), (Some(502), true));
}

#[test]
fn undecodable_bodies_are_retryable_decode_errors_and_empty_choices_are_fatal() {
    let error = codec().decode(&request(), &head(200, &[("x-request-id", "r2")]), b"{\"choices\": [").unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Decode);
    assert!(error.retryable, "a cut body is retried like a reset");
    assert_eq!(error.request_id, "r2");
    for body in [&br#"{"choices":[]}"#[..], br#"{"id":"x"}"#, b"[]", b"null"] {
        let error = codec().decode(&request(), &head(200, &[]), body).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false), "{}", String::from_utf8_lossy(body));
    }
}

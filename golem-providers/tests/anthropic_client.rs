//! The Anthropic client against loopback servers through both faces: the
//! key in `x-api-key` and nowhere else, a recorded stream forwarded as it
//! arrives, and every fault a call can meet — 429 and 529 with
//! `retry-after`, a reset mid-stream, a stream cut before `message_stop`,
//! malformed JSON, an `error` event mid-stream, 400 and 401.
//! SPEC PROV-ANT-01/05/06/07, STREAM-07, MODEL-04, RETRY-03, ERR-06.

use crate::anthropic::{
    block_delta, block_start, builder, client, client_with, message_start, recorded, sse_reply, text_body, text_stream,
    KEY,
};
use crate::models::{collect, generate, FACES};
use crate::server::{Framing, Part, Reply, Server};
use golem_core::model::{AsyncModel, Delta, Model, ModelErrorKind, Request};
use golem_core::{FinishReason, Message};
use serde_json::json;
use std::time::Duration;

fn hello() -> Request {
    Request::new(vec![Message::user("Say hello")])
}

fn error_body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

#[test]
fn generate_sends_the_key_in_its_header_only_and_decodes_the_answer() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, text_body("Hello!")).header("request-id", "req_011")]);
        let response = generate(face, &client(&server.url()), &hello()).unwrap();
        assert_eq!(response.message.content, "Hello!", "{face:?}");
        assert_eq!((response.usage.total_tokens(), response.finish_reason), (7, FinishReason::Stop));
        let seen = &server.requests()[0];
        assert_eq!((seen.method.as_str(), seen.path.as_str()), ("POST", "/v1/messages"));
        assert_eq!(seen.header("x-api-key"), Some(KEY));
        assert_eq!(seen.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(seen.header("content-type"), Some("application/json"));
        assert!(seen.header("authorization").is_none());
        let body = seen.json();
        assert_eq!(body["max_tokens"], 1024, "always sent");
        assert_eq!(body["stream"], false);
        assert_eq!(body["messages"], json!([{"role": "user", "content": [{"type": "text", "text": "Say hello"}]}]));
    }
}

#[test]
fn a_recorded_stream_reaches_the_sink_as_it_arrives_and_assembles_to_the_response() {
    for face in FACES {
        let body = recorded("messages_stream_thinking_signature", "01.response.sse");
        let server = Server::start(vec![sse_reply(&body, 61)]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let response = result.unwrap();
        crate::support::assert_assembles("anthropic", &deltas, &response, &format!("{face:?}"));
        assert!(deltas.iter().any(|d| matches!(d, Delta::Thinking { signature, .. } if !signature.is_empty())));
        assert!(!response.message.thinking[0].signature.is_empty());
        let seen = &server.requests()[0];
        assert_eq!(seen.header("accept"), Some("text/event-stream"));
        assert_eq!(seen.json()["stream"], true);
    }
}

#[test]
fn a_429_and_a_529_are_retryable_with_their_retry_after_on_both_paths() {
    for face in FACES {
        let cases = [
            (429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
            (529, "overloaded_error", "Overloaded"),
        ];
        for (status, kind, message) in cases {
            let reply = || Reply::json(status, error_body(kind, message)).header("retry-after", "7");
            let server = Server::start(vec![reply(), reply()]);
            let model = client(&server.url());
            for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()]
            {
                assert_eq!(
                    (error.kind, error.status, error.retryable),
                    (ModelErrorKind::Api, Some(status), true),
                    "{face:?} {status}"
                );
                assert_eq!((error.code.as_str(), error.message.as_str()), (kind, message));
                assert_eq!(error.retry_after, Some(Duration::from_secs(7)));
            }
        }
    }
}

#[test]
fn a_400_invalid_request_is_fatal_and_a_401_is_an_auth_error_that_never_shows_the_key() {
    for face in FACES {
        let bad = || Reply::json(400, error_body("invalid_request_error", "max_tokens: Field required"));
        let server = Server::start(vec![bad(), bad()]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!((error.status, error.retryable), (Some(400), false), "{face:?}");
            assert_eq!(error.code, "invalid_request_error");
        }
        let denied = || Reply::json(401, error_body("authentication_error", &format!("invalid x-api-key {KEY}")));
        let server = Server::start(vec![denied(), denied()]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Auth, Some(401), false));
            let shown = format!("{error} {error:?} {model:?} {:?}", model.config());
            assert!(!shown.contains(KEY), "{shown}");
        }
    }
}

/// The text deltas that arrived before a failure are the run's evidence.
fn first_text() -> Vec<u8> {
    [
        message_start(5),
        block_start(0, json!({"type": "text", "text": ""})),
        block_delta(0, json!({"type": "text_delta", "text": "Hel"})),
    ]
    .concat()
}

#[test]
fn a_reset_mid_stream_is_a_retryable_transport_error_with_the_partial_text() {
    for face in FACES {
        let server = Server::start(vec![Reply::sse([first_text()]).then(Part::Reset)]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Transport, true), "{face:?}: {error}");
        assert_eq!(deltas, vec![Delta::text("Hel")]);
    }
}

#[test]
fn a_stream_cut_before_message_stop_is_a_retryable_truncation() {
    for face in FACES {
        let whole = text_stream("Hel", "lo");
        let stop = whole.windows(18).rposition(|w| w == b"event: message_stop").unwrap_or(whole.len() - 30);
        for body in [first_text(), whole[..stop].to_vec(), whole[..whole.len() - 5].to_vec()] {
            let server = Server::start(vec![Reply::sse([body])]);
            let (deltas, result) = collect(face, &client(&server.url()), &hello());
            let error = result.unwrap_err();
            assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "{face:?}: {error}");
            assert_eq!(deltas.first(), Some(&Delta::text("Hel")), "the evidence is kept");
        }
    }
}

#[test]
fn malformed_json_is_a_retryable_decode_error_on_both_paths() {
    for face in FACES {
        let server = Server::start(vec![
            Reply::json(200, "{\"type\": \"message\", \"content\": [oops"),
            Reply::sse([first_text(), b"event: content_block_delta\ndata: {\"type\": oops}\n\n".to_vec()]),
        ]);
        let model = client(&server.url());
        let error = generate(face, &model, &hello()).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true), "{face:?}: {error}");
        let (deltas, result) = collect(face, &model, &hello());
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true), "{face:?}: {error}");
        assert_eq!(deltas, vec![Delta::text("Hel")]);
    }
}

#[test]
fn an_error_event_mid_stream_is_a_classified_api_error() {
    for face in FACES {
        let cases = [("overloaded_error", true), ("api_error", true), ("invalid_request_error", false)];
        for (kind, retryable) in cases {
            let error_event =
                crate::anthropic::event(&json!({"type": "error", "error": {"type": kind, "message": "boom"}}));
            let server = Server::start(vec![Reply::sse([first_text(), error_event]).header("request-id", "req_7")]);
            let (deltas, result) = collect(face, &client(&server.url()), &hello());
            let error = result.unwrap_err();
            assert_eq!((error.kind, error.retryable), (ModelErrorKind::Api, retryable), "{face:?} {kind}");
            assert_eq!((error.code.as_str(), error.message.as_str()), (kind, "boom"));
            assert_eq!(error.request_id, "req_7");
            assert_eq!(deltas, vec![Delta::text("Hel")]);
        }
    }
}

#[test]
fn count_tokens_runs_on_both_transports() {
    let server =
        Server::start(vec![Reply::json(200, r#"{"input_tokens": 12}"#), Reply::json(200, r#"{"input_tokens": 12}"#)]);
    let model = client(&server.url());
    assert_eq!(model.count_tokens(&hello()).unwrap(), 12);
    assert_eq!(futures_lite::future::block_on(model.count_tokens_async(&hello())).unwrap(), 12);
    let seen = server.requests();
    assert_eq!(seen[0].path, "/v1/messages/count_tokens");
    assert_eq!(seen[1].header("x-api-key"), Some(KEY));
    let body = seen[0].json();
    assert_eq!(body["messages"][0]["content"][0]["text"], "Say hello");
    assert!(body.get("max_tokens").is_none() && body.get("stream").is_none(), "{body}");
}

#[test]
fn the_client_offers_both_faces_and_a_body_cut_after_the_head_is_retryable() {
    let model = client("http://127.0.0.1:9");
    assert!(Model::as_async(&model).is_some());
    assert!(AsyncModel::as_blocking(&model).is_some());
    assert_eq!(Model::capabilities(&model), AsyncModel::capabilities(&model));
    assert!(Model::capabilities(&model).forced_tool_choice);
    let thinking = client_with(
        builder("http://127.0.0.1:9")
            .tuning(golem_providers::anthropic::Tuning::new().max_tokens(4096))
            .thinking(golem_providers::anthropic::Thinking::Enabled { budget_tokens: 2048 }),
    );
    assert!(!Model::capabilities(&thinking).forced_tool_choice, "PROV-ANT-04");
    for face in FACES {
        let cut = Reply::new(200).framing(Framing::DeclaredLength(500)).data(&text_body("Hi")[..20]).then(Part::Reset);
        let server = Server::start(vec![cut]);
        let error = generate(face, &client(&server.url()), &hello()).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Transport, true), "{face:?}");
    }
}

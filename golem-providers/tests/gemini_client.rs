//! The Gemini client against loopback servers through both faces: the
//! key in `x-goog-api-key` and nowhere else, a recorded stream forwarded
//! as it arrives, and every fault a call can meet — 429 with RetryInfo,
//! 503, a reset mid-stream, a cut stream, a malformed chunk, a
//! safety-blocked candidate, a reply without candidates, 403.
//! SPEC PROV-GEM-01/06/07/08, STREAM-07, MODEL-04, RETRY-03, ERR-06.

use crate::gemini::{
    chunk, client, event, recorded, retry_info, status_body, stream_reply, text_body, text_stream, KEY,
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

#[test]
fn generate_sends_the_key_in_its_header_only_and_decodes_the_answer() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, text_body("Hello!")).header("x-request-id", "rq-9")]);
        let response = generate(face, &client(&server.url()), &hello()).unwrap();
        assert_eq!(response.message.content, "Hello!", "{face:?}");
        assert_eq!((response.usage.total_tokens(), response.finish_reason), (7, FinishReason::Stop));
        let seen = &server.requests()[0];
        assert_eq!(
            (seen.method.as_str(), seen.path.as_str()),
            ("POST", "/v1beta/models/gemini-2.5-flash:generateContent")
        );
        assert_eq!(seen.header("x-goog-api-key"), Some(KEY));
        assert_eq!(seen.header("accept"), Some("application/json"));
        assert!(seen.header("authorization").is_none());
        assert_eq!(seen.json()["contents"], json!([{"role": "user", "parts": [{"text": "Say hello"}]}]));
    }
}

#[test]
fn a_recorded_stream_reaches_the_sink_as_it_arrives_and_assembles_to_the_response() {
    for face in FACES {
        let body = recorded("stream_function_call_thought_signature", "02.response.sse");
        let pieces: Vec<Vec<u8>> = body.chunks(61).map(<[u8]>::to_vec).collect();
        let server = Server::start(vec![stream_reply(pieces)]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let response = result.unwrap();
        crate::support::assert_assembles("gemini", &deltas, &response, &format!("{face:?}"));
        assert_eq!(deltas, vec![Delta::text("The capital of Mexico"), Delta::text(" is Mexico City.")]);
        assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (257, 8), "the last chunk's usage");
        let seen = &server.requests()[0];
        assert_eq!(seen.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
        assert_eq!(seen.header("accept"), Some("text/event-stream"));
        assert_eq!(seen.header("x-goog-api-key"), Some(KEY));
    }
}

#[test]
fn a_429_with_retry_info_is_retryable_with_its_delay_on_both_paths() {
    for face in FACES {
        let reply = || {
            Reply::json(
                429,
                status_body(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.", retry_info("13s")),
            )
        };
        let server = Server::start(vec![reply(), reply()]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(429), true), "{face:?}");
            assert_eq!(error.code, "RESOURCE_EXHAUSTED");
            assert_eq!(error.retry_after, Some(Duration::from_secs(13)), "RetryInfo read like Retry-After");
            assert!(error.is_rate_limited());
        }
    }
}

#[test]
fn a_503_is_retryable_on_both_paths() {
    for face in FACES {
        let reply = || Reply::json(503, status_body(503, "UNAVAILABLE", "The model is overloaded.", json!([])));
        let server = Server::start(vec![reply(), reply()]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!(
                (error.status, error.retryable, error.code.as_str()),
                (Some(503), true, "UNAVAILABLE"),
                "{face:?}"
            );
            assert_eq!(error.message, "The model is overloaded.");
        }
    }
}

#[test]
fn a_reset_mid_stream_is_a_retryable_transport_error() {
    for face in FACES {
        let server =
            Server::start(vec![stream_reply([event(&chunk(json!([{"text": "Hel"}]), None))]).then(Part::Reset)]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Transport, true), "{face:?}: {error}");
        assert_eq!(deltas, vec![Delta::text("Hel")]);
    }
}

#[test]
fn a_stream_cut_before_its_finish_reason_is_a_retryable_truncation() {
    for face in FACES {
        let whole = text_stream("Hel", "lo");
        let cut_between = whole[..whole.iter().position(|b| *b == b'\n').unwrap() + 2].to_vec();
        let cut_inside = whole[..whole.len() - 20].to_vec();
        for body in [cut_between, cut_inside] {
            let server = Server::start(vec![stream_reply([body])]);
            let error = collect(face, &client(&server.url()), &hello()).1.unwrap_err();
            assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "{face:?}: {error}");
        }
    }
}

#[test]
fn a_malformed_chunk_is_a_retryable_decode_error() {
    for face in FACES {
        let server = Server::start(vec![stream_reply([
            event(&chunk(json!([{"text": "Hel"}]), None)),
            b"data: {\"candidates\": [{\"content\": oops}]}\n\n".to_vec(),
        ])]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true), "{face:?}: {error}");
        assert_eq!(deltas, vec![Delta::text("Hel")]);
    }
}

#[test]
fn a_safety_blocked_candidate_is_a_content_filter_finish_on_both_paths() {
    let blocked = json!({"candidates": [{"index": 0, "finishReason": "SAFETY", "safetyRatings": [
        {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}]}],
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8}});
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, blocked.to_string()), stream_reply([event(&blocked)])]);
        let model = client(&server.url());
        for response in [generate(face, &model, &hello()).unwrap(), collect(face, &model, &hello()).1.unwrap()] {
            assert_eq!(response.finish_reason, FinishReason::ContentFilter, "{face:?}");
            assert_eq!(response.usage.input_tokens, 8);
        }
    }
}

#[test]
fn a_reply_without_candidates_is_a_decode_error_naming_the_block_reason() {
    let refused = json!({"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []},
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8}});
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, refused.to_string()), stream_reply([event(&refused)])]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false), "{face:?}");
            assert!(
                error.message.contains("no candidates") && error.message.contains("blockReason SAFETY"),
                "{}",
                error.message
            );
        }
    }
}

#[test]
fn a_403_is_an_auth_error_that_never_shows_the_key() {
    for face in FACES {
        let body = status_body(
            403,
            "PERMISSION_DENIED",
            &format!("Method doesn't allow unregistered callers ({KEY})."),
            json!([]),
        );
        let server = Server::start(vec![Reply::json(403, body.clone()), Reply::json(403, body)]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!(
                (error.kind, error.status, error.retryable),
                (ModelErrorKind::Auth, Some(403), false),
                "{face:?}"
            );
            let shown = format!("{error} {error:?} {model:?} {:?}", model.config());
            assert!(!shown.contains(KEY), "{shown}");
        }
    }
}

#[test]
fn count_tokens_runs_on_both_transports() {
    let server =
        Server::start(vec![Reply::json(200, r#"{"totalTokens": 12}"#), Reply::json(200, r#"{"totalTokens": 12}"#)]);
    let model = client(&server.url());
    assert_eq!(model.count_tokens(&hello()).unwrap(), 12);
    assert_eq!(futures_lite::future::block_on(model.count_tokens_async(&hello())).unwrap(), 12);
    let seen = server.requests();
    assert_eq!(seen[0].path, "/v1beta/models/gemini-2.5-flash:countTokens");
    assert_eq!(seen[1].header("x-goog-api-key"), Some(KEY));
    assert_eq!(seen[0].json()["generateContentRequest"]["contents"][0]["parts"][0]["text"], "Say hello");
}

#[test]
fn the_client_offers_both_faces_and_a_body_cut_after_the_head_is_retryable() {
    let model = client("http://127.0.0.1:9");
    assert!(Model::as_async(&model).is_some());
    assert!(AsyncModel::as_blocking(&model).is_some());
    assert_eq!(Model::capabilities(&model), AsyncModel::capabilities(&model));
    for face in FACES {
        let cut = Reply::new(200).framing(Framing::DeclaredLength(500)).data(&text_body("Hi")[..20]).then(Part::Reset);
        let server = Server::start(vec![cut]);
        let error = generate(face, &client(&server.url()), &hello()).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Transport, true), "{face:?}");
    }
}

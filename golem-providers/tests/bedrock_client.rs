//! The Bedrock client against loopback servers through both faces: signed
//! requests, recorded streams forwarded as they arrive, and every fault a
//! call can meet — a throttling exception frame, 503, a reset mid-stream,
//! a stream cut mid-frame, a bad CRC, 403 with `x-amzn-errortype`.
//! SPEC PROV-BR-01/02/05/06, STREAM-07, MODEL-04, ERR-06.

use crate::bedrock::{
    builder, client, client_with, exception, recorded, stream_reply, text_body, text_delta, text_stream, KEY_ID,
    SECRET, TOKEN,
};
use crate::models::{collect, generate, FACES};
use crate::server::{Framing, Part, Recorded, Reply, Server};
use golem_core::model::{AsyncModel, Delta, Model, ModelErrorKind, Request};
use golem_core::Message;
use golem_providers::bedrock::CredentialsError;
use golem_providers::sigv4::{sign, Credentials, SignableRequest, SigningParams};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

fn hello() -> Request {
    Request::new(vec![Message::user("Say hello")])
}

/// Recompute the signature of what the server received: it must match
/// the `authorization` header the client sent.
fn assert_signed(seen: &Recorded, credentials: &Credentials) {
    let auth = seen.header("authorization").expect("an authorization header");
    let date = seen.header("x-amz-date").expect("x-amz-date");
    let signed_names: Vec<&str> =
        auth.split("SignedHeaders=").nth(1).unwrap().split(',').next().unwrap().split(';').collect();
    assert_eq!(signed_names, ["content-type", "host", "x-amz-date", "x-amz-security-token"]);
    let headers: Vec<(String, String)> =
        signed_names.iter().map(|n| (n.to_string(), seen.header(n).unwrap().to_string())).collect();
    assert_eq!(seen.headers.iter().filter(|(n, _)| n == "host").count(), 1, "one host header");
    let secs = golem_providers::http_date::parse(&format!(
        "{}, {} {} {} {}:{}:{} GMT",
        "Mon",
        &date[6..8],
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            [date[4..6].parse::<usize>().unwrap() - 1],
        &date[0..4],
        &date[9..11],
        &date[11..13],
        &date[13..15]
    ))
    .unwrap();
    let (path, query) = seen.path.split_once('?').unwrap_or((&seen.path, ""));
    let request = SignableRequest::new(&seen.method, path, &headers).with_query(query).with_payload(&seen.body);
    let params = SigningParams::new(credentials, "us-east-1", "bedrock", UNIX_EPOCH + Duration::from_secs(secs as u64));
    assert_eq!(sign(&request, &params).unwrap().authorization.expose(), auth);
}

#[test]
fn generate_sends_a_signed_converse_request_and_decodes_the_answer() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, text_body("Hello!"))]);
        let response = generate(face, &client(&server.url()), &hello()).unwrap();
        assert_eq!(response.message.content, "Hello!", "{face:?}");
        assert_eq!(response.usage.total_tokens(), 7);
        let seen = &server.requests()[0];
        assert_eq!(seen.path, "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse");
        assert_eq!(seen.header("x-amz-security-token"), Some(TOKEN));
        assert_eq!(seen.header("accept"), Some("application/json"));
        assert!(seen.header("authorization").unwrap().contains(&format!("Credential={KEY_ID}/")));
        assert_signed(seen, &crate::bedrock::credentials());
        assert_eq!(seen.json()["messages"][0]["content"][0]["text"], "Say hello");
    }
}

#[test]
fn a_recorded_stream_reaches_the_sink_and_assembles_to_the_response() {
    for face in FACES {
        let body = recorded("converse_stream_reasoning_signature", "01.response.bin");
        let pieces: Vec<Vec<u8>> = body.chunks(101).map(<[u8]>::to_vec).collect();
        let server = Server::start(vec![stream_reply(pieces)]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let response = result.unwrap();
        crate::support::assert_assembles("bedrock", &deltas, &response, &format!("{face:?}"));
        assert_eq!(response.message.content, "Hello! It's nice to meet you. How can I help you today?");
        assert!(response.message.thinking[0].signature.starts_with("Eu0CCkgIBxABGAIqQJDccbDQkr81n7QjZ0Fi43umSvw0"));
        assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (36, 73));
        let seen = &server.requests()[0];
        assert_eq!(seen.path, "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream");
        assert_eq!(seen.header("accept"), Some("application/vnd.amazon.eventstream"));
        assert_signed(seen, &crate::bedrock::credentials());
    }
}

#[test]
fn a_throttling_exception_frame_is_a_retryable_429() {
    for face in FACES {
        let server = Server::start(vec![stream_reply([
            text_delta(0, "Hel"),
            exception("throttlingException", "Too many tokens"),
        ])]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(429), true), "{face:?}");
        assert_eq!(error.code, "throttlingException");
        assert_eq!(deltas, vec![Delta::text("Hel")]);
    }
}

#[test]
fn a_503_is_retryable_on_both_paths_with_its_request_id() {
    for face in FACES {
        let reply = || {
            Reply::json(503, r#"{"message":"Bedrock is unable to process your request."}"#)
                .header(
                    "x-amzn-errortype",
                    "ServiceUnavailableException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                )
                .header("x-amzn-requestid", "req-503")
                .header("retry-after", "1")
        };
        let server = Server::start(vec![reply(), reply()]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!((error.status, error.retryable), (Some(503), true), "{face:?}");
            assert_eq!((error.code.as_str(), error.request_id.as_str()), ("ServiceUnavailableException", "req-503"));
            assert_eq!(error.retry_after, Some(Duration::from_secs(1)));
        }
    }
}

#[test]
fn a_reset_mid_stream_is_a_retryable_transport_error() {
    for face in FACES {
        let server = Server::start(vec![stream_reply([text_delta(0, "Hel")]).then(Part::Reset)]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Transport, true), "{face:?}: {error}");
        assert_eq!(deltas, vec![Delta::text("Hel")]);
    }
}

#[test]
fn a_stream_cut_mid_frame_is_a_retryable_truncation() {
    for face in FACES {
        let whole = text_stream("Hello");
        let server = Server::start(vec![stream_reply([whole[..whole.len() - 20].to_vec()])]);
        let error = collect(face, &client(&server.url()), &hello()).1.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "{face:?}: {error}");
    }
}

#[test]
fn a_bad_crc_is_a_retryable_decode_error() {
    for face in FACES {
        let mut body = text_stream("Hello");
        body[20] ^= 0x55; // inside the first frame's headers: its message CRC fails
        let server = Server::start(vec![stream_reply([body])]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true), "{face:?}: {error}");
        assert!(error.message.contains("checksum"), "{}", error.message);
        assert!(deltas.is_empty());
    }
}

#[test]
fn a_403_with_x_amzn_errortype_is_an_auth_error_that_never_shows_the_credentials() {
    for face in FACES {
        let body =
            format!(r#"{{"message":"The security token included in the request is invalid: {TOKEN} {SECRET}"}}"#);
        let server = Server::start(vec![
            Reply::json(403, body.clone()).header(
                "x-amzn-errortype",
                "UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/",
            ),
            Reply::json(403, body).header(
                "x-amzn-errortype",
                "UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/",
            ),
        ]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!(
                (error.kind, error.status, error.retryable),
                (ModelErrorKind::Auth, Some(403), false),
                "{face:?}"
            );
            assert_eq!(error.code, "UnrecognizedClientException");
            let shown = format!("{error} {error:?} {model:?} {:?}", model.config());
            for secret in [TOKEN, SECRET] {
                assert!(!shown.contains(secret), "{shown}");
            }
        }
    }
}

#[test]
fn a_credentials_provider_is_asked_per_request_and_its_failure_fails_before_sending() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, text_body("one")), Reply::json(200, text_body("two"))]);
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&calls);
        let provider = move || {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            match n {
                0 => Ok(Credentials::new("AKIDFIRST", "secret-1")),
                1 => Ok(Credentials::new("AKIDSECOND", "secret-2").with_session_token("t2")),
                _ => Err(CredentialsError::new("the refresher is down").retryable(true)),
            }
        };
        let model = client_with(builder(&server.url()).credentials_provider(provider));
        generate(face, &model, &hello()).unwrap();
        generate(face, &model, &hello()).unwrap();
        let seen = server.requests();
        assert!(seen[0].header("authorization").unwrap().contains("Credential=AKIDFIRST/"));
        assert!(seen[0].header("x-amz-security-token").is_none());
        assert!(seen[1].header("authorization").unwrap().contains("Credential=AKIDSECOND/"));
        assert_signed(&seen[1], &Credentials::new("AKIDSECOND", "secret-2").with_session_token("t2"));
        let error = generate(face, &model, &hello()).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Auth, true), "{face:?}");
        assert!(error.message.contains("the refresher is down"));
        assert_eq!(server.requests().len(), 2, "nothing was sent without credentials");
    }
}

#[test]
fn count_tokens_runs_on_both_transports() {
    let server =
        Server::start(vec![Reply::json(200, r#"{"inputTokens": 12}"#), Reply::json(200, r#"{"inputTokens": 12}"#)]);
    let model = client(&server.url());
    assert_eq!(model.count_tokens(&hello()).unwrap(), 12);
    assert_eq!(futures_lite::future::block_on(model.count_tokens_async(&hello())).unwrap(), 12);
    let seen = server.requests();
    assert_eq!(seen[0].path, "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/count-tokens");
    assert_eq!(seen[0].json()["input"]["converse"]["messages"][0]["content"][0]["text"], "Say hello");
    assert_signed(&seen[1], &crate::bedrock::credentials());

    // A body lost after the head is the transport's retryable error, not
    // an answer without a count.
    let cut = || Reply::new(200).framing(Framing::DeclaredLength(500)).data(&br#"{"inputTo"#[..]).then(Part::Reset);
    let server = Server::start(vec![cut(), cut()]);
    let model = client(&server.url());
    for error in [
        model.count_tokens(&hello()).unwrap_err(),
        futures_lite::future::block_on(model.count_tokens_async(&hello())).unwrap_err(),
    ] {
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Transport, true), "{error}");
    }
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

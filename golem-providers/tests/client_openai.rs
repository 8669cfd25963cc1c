//! The OpenAI client against loopback servers, through both its blocking
//! and its async face: a call succeeds or fails as a unit, streams are
//! forwarded as they arrive, failures are classified (issue 5).

use crate::models;
use crate::server;

use golem_core::model::{AsyncModel, Delta, Model, ModelErrorKind, Request};
use golem_core::stream::StreamAssembler;
use golem_core::Message;
use models::{collect, generate, openai, stream, FACES, KEY};
use server::{stream_end, text_body, text_chunk, Framing, Part, Reply, Server};
use std::sync::mpsc;
use std::time::Duration;

fn hello() -> Request {
    Request::new(vec![Message::user("Say hello")])
}

#[test]
fn generate_sends_the_request_and_decodes_the_answer() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, text_body("Hello!"))]);
        let response = generate(face, &openai(&server.url()), &hello()).unwrap();
        assert_eq!(response.message.content, "Hello!", "{face:?}");
        assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (5, 2));
        let seen = &server.requests()[0];
        assert_eq!(seen.path, "/v1/chat/completions");
        assert_eq!(seen.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
        assert_eq!(seen.json()["model"], "gpt-test");
        assert!(!seen.json().get("stream").and_then(|s| s.as_bool()).unwrap_or(false));
    }
}

#[test]
fn a_stream_reaches_the_sink_before_the_server_finishes() {
    for face in FACES {
        let (release, gate) = mpsc::channel();
        let server = Server::start(vec![Reply::sse([text_chunk("Hel")])
            .then(Part::Gate(gate))
            .data(text_chunk("lo"))
            .data(stream_end())]);
        let model = openai(&server.url());
        let (first_tx, first_rx) = mpsc::channel();
        let call = std::thread::spawn(move || {
            let mut texts = Vec::new();
            let result = stream(face, &model, &hello(), |delta| {
                if let Delta::Text { text } = &delta {
                    texts.push(text.clone());
                    let _ = first_tx.send(text.clone());
                }
                Ok(())
            });
            (texts, result)
        });
        // The server holds the rest of the body until this delta is seen.
        let first =
            first_rx.recv_timeout(Duration::from_secs(10)).expect("the first delta arrives before the body ends");
        assert_eq!(first, "Hel", "{face:?}");
        release.send(()).unwrap();
        let (texts, result) = call.join().unwrap();
        let response = result.unwrap();
        assert_eq!(texts.concat(), "Hello");
        assert_eq!(response.message.content, "Hello");
        assert_eq!(response.usage.total_tokens(), 7);
        let seen = server.requests()[0].json();
        assert_eq!(seen["stream"], true);
        assert_eq!(seen["stream_options"]["include_usage"], true);
    }
}

#[test]
fn streamed_deltas_assemble_to_the_returned_response() {
    for face in FACES {
        let body = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/recorded/openai/chat_stream_parallel_tool_calls/01.response.sse"),
        )
        .unwrap();
        // Cut the recording into uneven pieces, as a network would.
        let pieces: Vec<Vec<u8>> = body.chunks(97).map(<[u8]>::to_vec).collect();
        let server = Server::start(vec![Reply::sse(pieces)]);
        let (deltas, result) = collect(face, &openai(&server.url()), &hello());
        let response = result.unwrap();
        let mut assembler = StreamAssembler::new().with_provider("openai");
        for delta in deltas {
            assembler.push(&delta).unwrap();
        }
        assert_eq!(assembler.finish(), response.message, "{face:?} (SPEC MODEL-04)");
        assert_eq!(response.message.tool_calls.len(), 2);
    }
}

#[test]
fn a_sink_error_stops_the_call_without_reading_on() {
    for face in FACES {
        let (_hold, gate) = mpsc::channel::<()>();
        let server = Server::start(vec![Reply::sse([text_chunk("one")]).then(Part::Gate(gate)).data(stream_end())]);
        // Were the client to keep reading, it would wait on the gate until
        // the read timeout and fail with a timeout instead.
        let error =
            stream(face, &openai(&server.url()), &hello(), |_| Err("the user closed the window".into())).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::SinkAborted, "{face:?}");
        assert!(std::error::Error::source(&error).unwrap().to_string().contains("closed the window"));
    }
}

#[test]
fn a_stream_without_its_terminal_marker_is_truncated_and_retryable() {
    for face in FACES {
        let server = Server::start(vec![Reply::sse([text_chunk("Hel"), text_chunk("lo")])]);
        let (deltas, result) = collect(face, &openai(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Truncated, "{face:?}");
        assert!(error.retryable);
        assert_eq!(deltas.len(), 2, "what arrived was forwarded");
    }
}

#[test]
fn a_malformed_stream_chunk_is_a_retryable_decode_error() {
    for face in FACES {
        let server = Server::start(vec![Reply::sse([text_chunk("ok"), b"data: {not json\n\n".to_vec(), stream_end()])]);
        let error = collect(face, &openai(&server.url()), &hello()).1.unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Decode, "{face:?}");
        assert!(error.retryable);
    }
}

#[test]
fn undecodable_json_is_a_retryable_decode_error() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, r#"{"choices": [{"index": 0, "mess"#)]);
        let error = generate(face, &openai(&server.url()), &hello()).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Decode, "{face:?}");
        assert!(error.retryable);
    }
}

#[test]
fn a_reset_mid_stream_is_a_retryable_transport_error() {
    for face in FACES {
        let server = Server::start(vec![Reply::sse([text_chunk("Hel")]).then(Part::Reset)]);
        let (deltas, result) = collect(face, &openai(&server.url()), &hello());
        let error = result.unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Transport, "{face:?}: {error}");
        assert!(error.retryable);
        assert_eq!(deltas, vec![Delta::text("Hel")]);
    }
}

#[test]
fn a_body_cut_after_the_head_is_retryable() {
    for face in FACES {
        let cut = Reply::new(200).framing(Framing::DeclaredLength(500)).data(&text_body("Hi")[..20]).then(Part::Reset);
        let server = Server::start(vec![cut]);
        let error = generate(face, &openai(&server.url()), &hello()).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Transport, "{face:?}");
        assert!(error.retryable);
    }
}

#[test]
fn rate_limits_carry_retry_after_in_seconds_or_as_a_date() {
    for face in FACES {
        let server = Server::start(vec![
            Reply::json(
                429,
                r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
            )
            .header("retry-after", "3")
            .header("x-request-id", "req_429"),
            Reply::json(503, r#"{"error":{"message":"overloaded"}}"#)
                .header("date", "Wed, 21 Oct 2015 07:28:00 GMT")
                .header("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"),
        ]);
        let model = openai(&server.url());
        let error = generate(face, &model, &hello()).unwrap_err();
        assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(429), true), "{face:?}");
        assert_eq!(error.retry_after, Some(Duration::from_secs(3)));
        assert_eq!((error.code.as_str(), error.request_id.as_str()), ("rate_limit_exceeded", "req_429"));
        // The streamed path classifies an error status the same way.
        let error = collect(face, &model, &hello()).1.unwrap_err();
        assert_eq!((error.status, error.retryable), (Some(503), true));
        assert_eq!(error.retry_after, Some(Duration::from_secs(30)));
    }
}

#[test]
fn an_auth_failure_is_fatal_and_never_shows_the_key() {
    for face in FACES {
        let echo = format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}","code":"invalid_api_key"}}}}"#);
        let server = Server::start(vec![Reply::json(401, echo)]);
        let model = openai(&server.url());
        let error = generate(face, &model, &hello()).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Auth, false), "{face:?}");
        let shown = format!("{error} {error:?} {model:?} {:?}", model.config());
        assert!(!shown.contains(KEY), "{shown}");
        assert!(error.message.contains("Incorrect API key"));
    }
}

#[test]
fn a_refused_connection_is_retryable_and_an_unknown_model_is_not() {
    for face in FACES {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let error = generate(face, &openai(&format!("http://127.0.0.1:{port}")), &hello()).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Transport, true), "{face:?}");
        assert!(!format!("{error:?}").contains(KEY));

        let body = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/recorded/errors/openai_chat_404_model_not_found/01.response.json"),
        )
        .unwrap();
        let server = Server::start(vec![Reply::json(404, body)]);
        let error = generate(face, &openai(&server.url()), &hello()).unwrap_err();
        assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(404), false));
        assert_eq!(error.code, "model_not_found");
    }
}

#[test]
fn the_client_offers_both_faces_and_reports_its_capabilities() {
    let model = openai("http://127.0.0.1:9");
    assert!(Model::as_async(&model).is_some());
    assert!(AsyncModel::as_blocking(&model).is_some());
    let caps = Model::capabilities(&model);
    assert!(caps.native_schema_with_tools && caps.forced_tool_choice);
    assert_eq!(caps, AsyncModel::capabilities(&model));
    assert!(caps.honours_timeout, "both default transports stop at a request's timeout");
}

/// Issue 37: each face says whether its own transport stops at a call's
/// deadline — the async driver leaves a plain call's deadline to a model
/// whose async face does — and an async transport that does not say so is
/// taken not to.
#[test]
fn each_face_reports_whether_its_own_transport_honours_a_timeout() {
    use golem_core::model::BoxFuture;
    use golem_providers::http::HttpRequest;
    use golem_providers::transport::{AsyncHttpResponse, AsyncIoTransport, AsyncTransport, TransportError};
    use std::sync::Arc;
    struct Unbounded(AsyncIoTransport);
    impl AsyncTransport for Unbounded {
        fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<AsyncHttpResponse, TransportError>> {
            self.0.send(request)
        }
    }
    assert!(AsyncIoTransport::default().honours_timeout());
    let model = golem_providers::OpenAi::builder()
        .model("gpt-test")
        .base_url("http://127.0.0.1:9")
        .api_key(KEY)
        .async_transport(Arc::new(Unbounded(AsyncIoTransport::default())))
        .build()
        .unwrap();
    assert!(Model::capabilities(&model).honours_timeout, "the blocking face's transport does");
    assert!(!AsyncModel::capabilities(&model).honours_timeout, "the async face's does not say so");
}

/// Issue 37: the async face bounds the whole call by the request's
/// timeout, so a silent server ends the call at the deadline as a timeout
/// (the async driver counts on it when it arms no timer of its own).
#[test]
fn the_async_face_stops_a_silent_call_at_the_requests_timeout() {
    let (_hold, gate) = mpsc::channel::<()>();
    let server = Server::start(vec![Reply::json(200, text_body("late")).before_head(server::Part::Gate(gate))]);
    let model = openai(&server.url());
    let mut request = hello();
    request.timeout = Some(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let error = async_io::block_on(AsyncModel::generate_async(&model, &request)).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Timeout, "{error:?}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(300), "stopped after {waited:?}, before the deadline");
    assert!(waited < Duration::from_secs(5), "stopped after {waited:?}: the read timeout, not the deadline");
}

//! Recorded Gemini traffic (tests/fixtures/recorded/gemini): our encoder
//! reproduces each recorded request body from the equivalent golem
//! request (semantically equal JSON, the spellings golem does not use
//! normalised, see `expected_body`), and our decoders turn each recorded
//! response — a `generateContent` body, an SSE stream, or the JSON-array
//! stream of a server that was not asked for SSE — into the expected golem
//! response (golden files in tests/golden/), identically at every
//! chunking; cut anywhere, a stream is a retryable truncation.
//! SPEC PROV-GEM-01..08, STREAM-05/06/07, THINK-01/03.

use crate::gemini::{codec_for_recorded, expected_body, recorded, request_from_contents};
use crate::support::{self, case_dir, cassette_head, golden, interactions, response_json};
use base64::Engine as _;
use golem_core::message::{Message, Role};
use golem_core::model::{ModelErrorKind, Request, Response};
use golem_core::stream::response_deltas;
use golem_providers::codec::HttpCodec;
use golem_providers::gemini::Codec;
use golem_providers::http::Method;
use serde_json::Value;

const CASES: [&str; 4] = [
    "generate_content_function_call_thought_signature",
    "stream_function_call_thought_signature",
    "stream_function_calls_multi_turn",
    "stream_json_array_gzip_thought_signatures",
];

/// The JSON-array case was recorded from `streamGenerateContent` without
/// `alt=sse`; its `.json` files are stream bodies.
fn streamed(case: &str, file: &str) -> bool {
    file.ends_with(".sse") || case.starts_with("stream_")
}

fn decode_recorded(codec: &Codec, request: &Request, case: &str, n: usize, file: &str) -> Response {
    support::decode_recorded(codec, request, ("gemini", case, n), file, streamed(case, file))
}

fn request_body(case: &str, n: usize) -> Value {
    support::recorded_request("gemini", case, n)
}

/// A signature's bytes: pydantic-ai echoes them in URL-safe base64, the
/// API sends standard base64.
fn signature_bytes(signature: &str) -> Vec<u8> {
    let standard = signature.replace('-', "+").replace('_', "/");
    base64::engine::general_purpose::STANDARD.decode(standard).unwrap()
}

/// What the next recorded request says the model answered, against what
/// we decoded: same text, same calls in order with the same arguments and
/// signature bytes (the ids differ: the recorders made up their own).
fn assert_continues(case: &str, n: usize, ours: &Message, theirs: &Message) {
    assert_eq!(theirs.role, Role::Assistant);
    assert_eq!(ours.content, theirs.content, "{case} {n}: text");
    assert_eq!(ours.tool_calls.len(), theirs.tool_calls.len(), "{case} {n}: calls");
    for (a, b) in ours.tool_calls.iter().zip(&theirs.tool_calls) {
        assert_eq!((&a.name, a.args.parse().unwrap()), (&b.name, b.args.parse().unwrap()), "{case} {n}");
        assert_eq!(signature_bytes(&a.signature), signature_bytes(&b.signature), "{case} {n}: signature");
    }
}

#[test]
fn requests_match_the_recordings_and_continue_the_conversation() {
    for case in CASES {
        let manifest: Value = serde_json::from_slice(&recorded(case, "manifest.json")).unwrap();
        let mut answered: Option<Message> = None;
        for (n, _, file) in interactions(&format!("gemini/{case}")) {
            let recorded_body = request_body(case, n);
            let request = request_from_contents(&recorded_body);
            if let Some(ours) = answered.take() {
                let theirs = request.messages.iter().rev().find(|m| m.role == Role::Assistant).unwrap();
                assert_continues(case, n, &ours, theirs);
            }
            let codec = codec_for_recorded(case, &recorded_body);
            let stream = streamed(case, &file);
            let http = codec.encode(&request, stream).unwrap();
            assert_eq!(http.method, Method::Post);
            let mut uri = manifest["interactions"][n - 1]["uri"].as_str().unwrap().to_string();
            if stream && !uri.ends_with("?alt=sse") {
                uri.push_str("?alt=sse"); // golem always asks for SSE
            }
            assert_eq!(http.url, uri, "{case} {n}: URL");
            assert_eq!(http.header("x-goog-api-key").unwrap().expose(), crate::gemini::KEY);
            let ours: Value = serde_json::from_slice(&http.body).unwrap();
            assert_eq!(ours, expected_body(&recorded_body), "{case} {n}: request body");
            answered = Some(decode_recorded(&codec, &request, case, n, &file).message);
        }
    }
}

#[test]
fn responses_decode_to_the_goldens() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("gemini/{case}")) {
            let body = request_body(case, n);
            let codec = codec_for_recorded(case, &body);
            let response = decode_recorded(&codec, &request_from_contents(&body), case, n, &file);
            golden(&format!("gemini__{case}__{n:02}"), &response_json(&response));
        }
    }
}

/// STREAM-05: a whole response and the stream of its deltas build one
/// message.
#[test]
fn parse_equals_assemble_of_its_deltas() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("gemini/{case}")) {
            let body = request_body(case, n);
            let codec = codec_for_recorded(case, &body);
            let response = decode_recorded(&codec, &request_from_contents(&body), case, n, &file);
            let deltas = response_deltas(&response, 3);
            support::assert_assembles("gemini", &deltas, &response, &format!("{case} {n}"));
        }
    }
}

#[test]
fn every_recorded_stream_is_chunking_invariant_and_truncated_when_cut() {
    for case in CASES {
        for (n, _, file) in interactions(&format!("gemini/{case}")).into_iter().filter(|(_, _, f)| streamed(case, f)) {
            let request = request_from_contents(&request_body(case, n));
            let codec = codec_for_recorded(case, &request_body(case, n));
            support::assert_recorded_stream(&codec, &request, &recorded(case, &file), &format!("{case} {file}"));
        }
    }
}

#[test]
fn the_recorded_json_array_stream_arrives_gzipped_through_the_client() {
    use crate::models::{collect, FACES};
    use crate::server::{Framing, Reply, Server};
    use std::io::Write;
    let case = "stream_json_array_gzip_thought_signatures";
    for face in FACES {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&recorded(case, "01.response.json")).unwrap();
        let body = gz.finish().unwrap();
        let pieces: Vec<Vec<u8>> = body.chunks(50).map(<[u8]>::to_vec).collect();
        let mut reply = Reply::new(200)
            .header("content-type", "application/json; charset=UTF-8")
            .header("content-encoding", "gzip")
            .framing(Framing::Chunked);
        for piece in pieces {
            reply = reply.data(piece);
        }
        let server = Server::start(vec![reply]);
        let request = request_from_contents(&request_body(case, 1));
        let (deltas, result) = collect(face, &crate::gemini::client(&server.url()), &request);
        let response = result.unwrap();
        assert_eq!(response.finish_reason, golem_core::FinishReason::ToolCall, "{face:?}");
        assert_eq!(response.message.tool_calls[0].name, "multiply");
        assert!(response.message.tool_calls[0].signature.starts_with("Et0BCtoBAXLI2nwMB4mo"));
        assert_eq!(deltas.len(), 1, "one whole call");
    }
}

#[test]
fn recorded_error_bodies_are_classified() {
    let case = "gemini_404_model_not_found";
    let dir = case_dir(&format!("errors/{case}"));
    let body = std::fs::read(dir.join("01.response.json")).unwrap();
    let head = cassette_head(&format!("errors/{case}"), 1);
    let request = Request::new(vec![golem_core::Message::user("hello")]);
    for error in
        [crate::gemini::codec().decode(&request, &head, &body).unwrap_err(), crate::gemini::codec().error(&head, &body)]
    {
        assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(404), false));
        assert_eq!(error.code, "NOT_FOUND");
        assert!(error.message.starts_with("models/gemini-3.6-flahs is not found for API version v1beta"));
    }
    let recorded_request: Value = serde_json::from_slice(&std::fs::read(dir.join("01.request.json")).unwrap()).unwrap();
    let ours: Value = serde_json::from_slice(&crate::gemini::codec().encode(&request, false).unwrap().body).unwrap();
    assert_eq!(ours, expected_body(&recorded_request));
}

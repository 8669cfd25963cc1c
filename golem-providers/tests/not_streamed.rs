//! A streamed request answered with a plain JSON body (issue 32 item 7):
//! a server that does not stream, or a proxy that buffers the stream into
//! one JSON reply. Every family's stream decoder says so — "the server did
//! not stream" — and the error is not retryable: another attempt would get
//! the same answer, where a cut stream ("ended before message_start") is
//! worth one. Recorded whole bodies of each family, at every chunking.

use crate::models::{collect, FACES};
use crate::server::{Reply, Server};
use crate::support::{case_dir, fixtures_dir, read, run_stream};
use golem_core::model::{ModelError, ModelErrorKind, Request};
use golem_core::Message;
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Config, Preset};

fn json_head() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![("content-type".into(), "application/json".into())])
}

fn assert_not_streamed(error: &ModelError, what: &str) {
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false), "{what}: {error}");
    assert!(error.message.contains("the server did not stream"), "{what}: {}", error.message);
}

/// The recorded body, whole and split at every byte, through `codec`'s
/// stream decoder.
fn every_split<C: HttpCodec>(codec: &C, family_case_file: &str) {
    let body = read(&fixtures_dir().join("recorded").join(family_case_file));
    let request = Request::new(vec![Message::user("hi")]);
    for cut in 0..body.len() {
        let (deltas, result) = run_stream(codec, &request, &json_head(), [&body[..cut], &body[cut..]]);
        assert!(deltas.is_empty(), "{family_case_file}: nothing of a JSON body is a delta");
        assert_not_streamed(&result.unwrap_err(), &format!("{family_case_file} split at {cut}"));
    }
}

#[test]
fn every_family_says_the_server_did_not_stream_and_does_not_retry() {
    let openai = golem_providers::openai::Codec::new(
        Config::builder(Preset::openai(), "gpt-4o").api_key("sk-not-streamed").build().unwrap(),
    );
    every_split(&openai, "openai/chat_tool_call_gpt4o/01.response.json");
    every_split(&crate::anthropic::codec(), "anthropic/messages_tool_use_with_thinking/01.response.json");
    every_split(&crate::gemini::codec(), "gemini/generate_content_function_call_thought_signature/01.response.json");
    every_split(&crate::bedrock::codec(), "bedrock/converse_tool_use_reasoning/01.response.json");
}

/// Blanks before the JSON body are held back until the first byte of
/// substance says what the body is: Bedrock's binary framing would read
/// them as a frame, and a first chunk of blanks alone then failed as a bad
/// frame length instead of "did not stream" (libFuzzer `bedrock_stream`).
#[test]
fn blanks_before_the_json_body_are_not_a_frame_at_any_split() {
    let json = read(&fixtures_dir().join("recorded").join("bedrock/converse_tool_use_reasoning/01.response.json"));
    // More blanks than a frame's prelude (12 bytes), so a parser fed them
    // early would have judged them as one.
    let body = [&b"  \n\n\r\n\t \n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"[..], &json].concat();
    let codec = crate::bedrock::codec();
    let request = Request::new(vec![Message::user("hi")]);
    for cut in 0..body.len() {
        let (deltas, result) = run_stream(&codec, &request, &json_head(), [&body[..cut], &body[cut..]]);
        assert!(deltas.is_empty());
        assert_not_streamed(&result.unwrap_err(), &format!("blanks then JSON, split at {cut}"));
    }
    // A body of blanks only is the parser's to judge, the same at every split.
    let blanks = b" \n \n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n";
    let whole = run_stream(&codec, &request, &json_head(), [&blanks[..], &blanks[..0]]).1.map(|r| r.message);
    for cut in 0..blanks.len() {
        let split = run_stream(&codec, &request, &json_head(), [&blanks[..cut], &blanks[cut..]]).1.map(|r| r.message);
        assert_eq!(format!("{split:?}"), format!("{whole:?}"), "blanks split at {cut}");
    }
}

#[test]
fn an_error_object_in_place_of_the_stream_is_quoted() {
    let body = br#"  {"error": {"message": "streaming is disabled for this deployment", "code": "stream_off"}}"#;
    let codec = crate::anthropic::codec();
    let (_, result) = run_stream(&codec, &Request::new(vec![Message::user("hi")]), &json_head(), [body]);
    let error = result.unwrap_err();
    assert_not_streamed(&error, "error object");
    assert!(error.message.contains("(application/json)") && error.message.contains("streaming is disabled"));
}

/// The same through a client, over both faces: one request, no retry
/// spent inside the call, the error the run machine sees.
#[test]
fn through_the_client_a_json_reply_to_a_stream_is_one_fatal_call() {
    let body = read(&case_dir("anthropic/messages_tool_use_with_thinking").join("01.response.json"));
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, body.clone())]);
        let (deltas, result) =
            collect(face, &crate::anthropic::client(&server.url()), &Request::new(vec![Message::user("hi")]));
        assert!(deltas.is_empty());
        assert_not_streamed(&result.unwrap_err(), &format!("{face:?}"));
        assert_eq!(server.requests().len(), 1);
    }
}

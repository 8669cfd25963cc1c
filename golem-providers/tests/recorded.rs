//! Recorded real traffic (tests/fixtures/recorded/openai and azure): our
//! encoder reproduces each recorded request body from the equivalent golem
//! request, and our decoder turns each recorded response — JSON or SSE —
//! into the expected golem response (golden files in tests/golden/).
//! SPEC PROV-OAI, PROV-AZ-01, STREAM-05/06.

use crate::support;

use golem_core::message::Message;
use golem_core::model::{Request, Response};
use golem_core::stream::StreamAssembler;
use golem_providers::azure;
use golem_providers::codec::HttpCodec;
use golem_providers::http::{HttpResponseHead, Method};
use golem_providers::openai::{Codec, Config, Preset};
use serde_json::Value;
use support::*;

const OPENAI_CASES: [&str; 4] = [
    "openai/chat_stream_tool_call_deltas_usage",
    "openai/chat_stream_parallel_tool_calls",
    "openai/chat_tool_call_roundtrip_gpt5mini",
    "openai/chat_tool_call_gpt4o",
];

const KEY: &str = "sk-fixture-secret-0123456789";

/// The recorded body with the differences golem makes on purpose removed.
/// Each is justified:
/// - null-valued fields: the API treats null as absent; pydantic-ai sends
///   `content: null` on tool-call turns, golem omits the field (PROV-OAI-03);
/// - `n: 1`: the API default; golem never asks for several choices;
/// - `tool_choice: "required"`: golem has no "any tool" choice on the wire —
///   it sends a named tool or `auto`, and only under Force (TOOL-11);
/// - `tools[].function.strict`: pydantic-ai opts into strict function
///   calling; golem's tool shape has no strict flag (PROV-OAI-02);
/// - `model` on Azure: the deployment in the URL names the model
///   (PROV-AZ-01).
fn expected_body(recorded: &Value, azure: bool) -> Value {
    let mut body = recorded.clone();
    drop_nulls(&mut body);
    let map = body.as_object_mut().unwrap();
    if map.get("n") == Some(&Value::from(1)) {
        map.remove("n");
    }
    if map.get("tool_choice") == Some(&Value::from("required")) {
        map.remove("tool_choice");
    }
    if azure {
        map.remove("model");
    }
    for tool in map.get_mut("tools").and_then(Value::as_array_mut).into_iter().flatten() {
        tool["function"].as_object_mut().unwrap().remove("strict");
    }
    body
}

fn openai_codec(model: &str) -> Codec {
    Codec::new(Config::builder(Preset::openai(), model).api_key(KEY).build().unwrap())
}

/// Decode a recorded response, whole body or stream, checking on the way
/// that a stream's deltas assemble to its response (STREAM-05, MODEL-04).
fn decode_recorded<C: HttpCodec>(codec: &C, request: &Request, case: &str, n: usize, file: &str) -> Response {
    let head = cassette_head(case, n);
    let body = read(&case_dir(case).join(file));
    if file.ends_with(".sse") {
        let (deltas, result) = run_stream(codec, request, &head, [&body]);
        let response = result.unwrap_or_else(|e| panic!("{case} {file}: {e}"));
        let mut assembler = StreamAssembler::new().with_provider("openai");
        deltas.iter().for_each(|d| assembler.push(d).unwrap());
        assert_eq!(assembler.finish(), response.message, "{case} {file}: deltas must assemble to the response");
        response
    } else {
        codec.decode(request, &head, &body).unwrap_or_else(|e| panic!("{case} {file}: {e}"))
    }
}

fn golden_name(case: &str, n: usize) -> String {
    format!("{}__{n:02}", case.replace('/', "__"))
}

#[test]
fn openai_requests_match_the_recordings_and_continue_the_conversation() {
    for case in OPENAI_CASES {
        let mut history: Option<Vec<Message>> = None;
        for (n, _, file) in interactions(case) {
            let recorded = read_json(&case_dir(case).join(format!("{n:02}.request.json")));
            let request = request_from_recorded(&recorded);
            if let Some(history) = &history {
                // The recorded follow-up starts with the previous request plus
                // the assistant turn exactly as our decoder produced it.
                assert_eq!(&request.messages[..history.len()], &history[..], "{case} {n}: conversation continuity");
            }
            let codec = openai_codec(recorded["model"].as_str().unwrap());
            let stream = recorded["stream"].as_bool().unwrap_or(false);
            let http = codec.encode(&request, stream).unwrap();
            assert_eq!(http.method, Method::Post);
            assert_eq!(http.url, "https://api.openai.com/v1/chat/completions");
            assert_eq!(http.header("authorization").unwrap().expose(), format!("Bearer {KEY}"));
            assert!(http.header("authorization").unwrap().is_secret());
            assert_eq!(http.header("content-type").unwrap().expose(), "application/json");
            let ours: Value = serde_json::from_slice(&http.body).unwrap();
            assert_eq!(ours, expected_body(&recorded, false), "{case} {n}: request body");

            let response = decode_recorded(&codec, &request, case, n, &file);
            let mut next = request.messages.to_vec();
            next.push(response.message);
            history = Some(next);
        }
    }
}

#[test]
fn openai_responses_decode_to_the_goldens() {
    for case in OPENAI_CASES {
        for (n, _, file) in interactions(case) {
            let recorded = read_json(&case_dir(case).join(format!("{n:02}.request.json")));
            let request = request_from_recorded(&recorded);
            let codec = openai_codec(recorded["model"].as_str().unwrap());
            let response = decode_recorded(&codec, &request, case, n, &file);
            golden(&golden_name(case, n), &response_json(&response));
        }
    }
}

/// Every recorded SSE body yields the same deltas and response delivered
/// whole, byte by byte, and split in two at every position (STREAM-06).
#[test]
fn every_recorded_stream_is_chunking_invariant() {
    for case in OPENAI_CASES {
        for (n, _, file) in interactions(case).into_iter().filter(|(_, _, f)| f.ends_with(".sse")) {
            let recorded = read_json(&case_dir(case).join(format!("{n:02}.request.json")));
            let request = request_from_recorded(&recorded);
            let codec = openai_codec("gpt-4o");
            let head = HttpResponseHead::new(200, vec![]);
            let body = read(&case_dir(case).join(&file));
            let (deltas, result) = run_stream(&codec, &request, &head, [&body]);
            let whole = result.unwrap();

            let (bytewise, result) = run_stream(&codec, &request, &head, body.chunks(1));
            assert_eq!(bytewise, deltas, "{case} {file}: byte by byte");
            assert_eq!(result.unwrap(), whole);

            for cut in 0..=body.len() {
                let (split, result) = run_stream(&codec, &request, &head, split_at(&body, &[cut]));
                assert_eq!(split, deltas, "{case} {file}: split at {cut}");
                assert_eq!(result.as_ref().unwrap(), &whole, "{case} {file}: split at {cut}");
            }
        }
    }
}

#[test]
fn azure_request_matches_the_recording() {
    let case = "azure/azure_openai_chat_deployment";
    let recorded = read_json(&case_dir(case).join("01.request.json"));
    let config =
        azure::Config::builder("https://pydanticai7521574644.openai.azure.com/", "gpt-4o", "2024-12-01-preview")
            .api_key(KEY)
            .build()
            .unwrap();
    let codec = azure::Codec::new(config);
    let request = request_from_recorded(&recorded);
    let http = codec.encode(&request, false).unwrap();
    let manifest = read_json(&case_dir(case).join("manifest.json"));
    assert_eq!(http.url, manifest["interactions"][0]["uri"].as_str().unwrap());
    assert_eq!(http.header("api-key").unwrap().expose(), KEY);
    assert!(http.header("authorization").is_none());
    let ours: Value = serde_json::from_slice(&http.body).unwrap();
    assert_eq!(ours, expected_body(&recorded, true));
    assert!(ours.get("model").is_none());

    let response = decode_recorded(&codec, &request, case, 1, "01.response.json");
    golden(&golden_name(case, 1), &response_json(&response));
}

#[test]
fn recorded_azure_head_yields_its_request_id() {
    let head = cassette_head("azure/azure_openai_chat_deployment", 1);
    assert_eq!(head.request_id(), Some("1d93fae1-cb8e-4789-8fb6-d26577a3cb77"));
}

/// The converter used above builds the same request one writes by hand.
#[test]
fn recorded_request_conversion_matches_a_hand_written_request() {
    use golem_core::message::ToolCall;
    use golem_core::model::WireToolChoice;

    use serde_json::json;
    use std::sync::Arc;

    let recorded = read_json(&case_dir("openai/chat_tool_call_roundtrip_gpt5mini").join("02.request.json"));
    let by_hand = {
        let mut request = golem_core::Request::new(vec![
            Message::user("What's the weather in Paris?"),
            Message::assistant_calls(vec![ToolCall::new(
                "call_aDdJTteHrpMdhdkEkyxjxEHH",
                "get_weather",
                r#"{"city":"Paris"}"#,
            )]),
            Message::tool_result("call_aDdJTteHrpMdhdkEkyxjxEHH", "get_weather", "Sunny, 22C in Paris"),
        ]);
        request.tools = Arc::new(vec![golem_core::tool::ToolDefinition::new(
            "get_weather",
            "Get the current weather for a city.",
            json!({
                "additionalProperties": false,
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "type": "object"
            }),
        )]);
        request.output_schema = None;
        request.tool_choice = Some(WireToolChoice::Auto);
        request
    };
    assert_eq!(request_from_recorded(&recorded), by_hand);
    let body: Value =
        serde_json::from_slice(&openai_codec("gpt-5-mini").encode(&by_hand, false).unwrap().body).unwrap();
    assert_eq!(body, expected_body(&recorded, false));
}

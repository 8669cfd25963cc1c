//! The Gemini codec on behaviour the recordings do not show: tool choice,
//! generation and thinking settings, structured output (JSON Schema by
//! default, the legacy subset on request), media of every kind, function
//! responses correlated by position, thought and signature replay
//! (THINK-03/04) and their decoding, finish reasons, usage, streams,
//! `google.rpc.Status` errors with RetryInfo, token counting, config
//! validation and capabilities.
//! SPEC PROV-GEM-01..08, THINK-01..04, MM-02..04, STREAM-04..08, USAGE-02.

use crate::gemini::{call_part, chunk, codec, codec_with, event, retry_info, status_body, with_usage, KEY};
use crate::support::run_stream;
use bytes::Bytes;
use golem_core::message::{FinishReason, Message, Part, PartKind, ThinkingBlock, ToolCall};
use golem_core::model::{Delta, ModelErrorKind, OutputSchema, Request, WireToolChoice};
use golem_core::tool::ToolDefinition;
use golem_providers::codec::{HttpCodec, TokenCounting};
use golem_providers::gemini::{Codec, Config, ConfigError, SafetySetting, Thinking, Tuning};
use golem_providers::http::HttpResponseHead;
use serde_json::{json, Value};
use std::time::Duration;

fn body(codec: &Codec, request: &Request) -> Value {
    serde_json::from_slice(&codec.encode(request, false).unwrap().body).unwrap()
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "Weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
}

fn with_tools(messages: Vec<Message>) -> Request {
    Request::new(messages).with_tools(vec![weather_tool()])
}

fn decode(body: &Value) -> Result<golem_core::Response, golem_core::ModelError> {
    codec().decode(
        &Request::new(vec![Message::user("x")]),
        &HttpResponseHead::new(200, vec![]),
        body.to_string().as_bytes(),
    )
}

fn stream(bytes: &[u8]) -> (Vec<Delta>, Result<golem_core::Response, golem_core::ModelError>) {
    run_stream(&codec(), &Request::new(vec![Message::user("x")]), &HttpResponseHead::new(200, vec![]), [bytes])
}

#[test]
fn forced_tool_choice_is_mode_any_limited_to_the_tool_then_auto() {
    let mut request = with_tools(vec![Message::user("weather?")]);
    let codec = codec();
    assert!(body(&codec, &request).get("toolConfig").is_none(), "no choice, no toolConfig");
    request.tool_choice = Some(WireToolChoice::Tool("get_weather".into()));
    let wire = body(&codec, &request);
    assert_eq!(
        wire["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}})
    );
    assert_eq!(
        wire["tools"],
        json!([{"functionDeclarations": [{"name": "get_weather", "description": "Weather in a city.",
            "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}])
    );
    request.tool_choice = Some(WireToolChoice::Auto);
    assert_eq!(body(&codec, &request)["toolConfig"], json!({"functionCallingConfig": {"mode": "AUTO"}}));
    let mut no_tools = Request::new(vec![Message::user("hi")]);
    no_tools.tool_choice = Some(WireToolChoice::Auto);
    assert!(body(&codec, &no_tools).get("toolConfig").is_none(), "a choice means nothing without tools");

    let capabilities = codec.capabilities();
    assert!(capabilities.forced_tool_choice);
    assert!(!capabilities.native_schema_with_tools, "PROV-GEM-05: tool mode when tools are present");
}

#[test]
fn settings_go_in_generation_config_only_when_set() {
    let plain = body(&codec(), &Request::new(vec![Message::user("hi")]));
    assert!(plain.get("generationConfig").is_none() && plain.get("safetySettings").is_none());
    let empty_thinking = codec_with(|b| b.thinking(Thinking::new()));
    assert!(body(&empty_thinking, &Request::new(vec![Message::user("hi")])).get("generationConfig").is_none());

    let codec = codec_with(|b| {
        b.tuning(Tuning::new().temperature(0.0).top_p(0.9).top_k(40).max_output_tokens(1024).stop("END").seed(7))
            .thinking(Thinking::new().include_thoughts(true).budget(-1))
            .safety_setting(SafetySetting::new("HARM_CATEGORY_HARASSMENT", "BLOCK_ONLY_HIGH"))
    });
    let request = Request::new(vec![Message::system("One."), Message::user("hi"), Message::system("Two.")]);
    let wire = body(&codec, &request);
    assert_eq!(
        wire["generationConfig"],
        json!({"temperature": 0.0, "topP": 0.9, "topK": 40, "maxOutputTokens": 1024, "stopSequences": ["END"],
               "seed": 7, "thinkingConfig": {"includeThoughts": true, "thinkingBudget": -1}})
    );
    assert_eq!(
        wire["safetySettings"],
        json!([{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}])
    );
    assert_eq!(wire["systemInstruction"], json!({"parts": [{"text": "One."}, {"text": "Two."}]}));
    assert_eq!(wire["contents"], json!([{"role": "user", "parts": [{"text": "hi"}]}]));
    let level = codec_with(|b| b.thinking(Thinking::new().level("low")));
    assert_eq!(
        body(&level, &Request::new(vec![Message::user("hi")]))["generationConfig"],
        json!({"thinkingConfig": {"thinkingLevel": "low"}})
    );
}

#[test]
fn structured_output_goes_as_json_schema_and_never_beside_function_tools() {
    let schema =
        json!({"type": "object", "properties": {"t": {"type": ["number", "null"]}}, "additionalProperties": false});
    let request =
        Request::new(vec![Message::user("forecast")]).with_output_schema(OutputSchema::new("Forecast", schema.clone()));
    let wire = body(&codec(), &request);
    assert_eq!(wire["generationConfig"], json!({"responseMimeType": "application/json", "responseJsonSchema": schema}));

    let both = request.clone().with_tools(vec![weather_tool()]);
    let error = codec().encode(&both, false).unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Encode, false));
    assert!(error.message.contains("tool output mode"), "{}", error.message);

    // Legacy fields on request: a keyword the subset lacks is named, never dropped.
    let legacy = codec_with(|b| b.legacy_schemas(true));
    let error = legacy.encode(&request, false).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Encode);
    assert!(error.message.contains("keyword additionalProperties at /"), "{}", error.message);
    let open = json!({"type": "object", "properties": {"t": {"type": ["number", "null"], "description": "°C"}}});
    let fits = Request::new(vec![Message::user("forecast")]).with_output_schema(OutputSchema::new("Forecast", open));
    assert_eq!(
        body(&legacy, &fits)["generationConfig"]["responseSchema"],
        json!({"type": "object", "properties": {"t": {"type": "number", "nullable": true, "description": "°C"}}})
    );
    let tools = body(&legacy, &with_tools(vec![Message::user("x")]));
    assert_eq!(tools["tools"][0]["functionDeclarations"][0]["parameters"]["required"], json!(["city"]));
    let refs = Request::new(vec![Message::user("x")]).with_tools(vec![ToolDefinition::new(
        "t",
        "",
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}),
    )]);
    let error = legacy.encode(&refs, false).unwrap_err();
    assert!(
        error.message.contains("tool t") && error.message.contains("keyword $ref at /properties/a"),
        "{}",
        error.message
    );
}

#[test]
fn every_media_kind_goes_inline_or_by_uri() {
    let document = Part::from_url(PartKind::Document, "gs://bucket/report.pdf");
    let mut with_type = document.clone();
    with_type.media_type = "application/pdf".into();
    let request = Request::new(vec![Message::user("look").with_parts(vec![
        Part::image_data("image/png", Bytes::from_static(b"\x89PNG")),
        with_type,
        Part::from_data(PartKind::Audio, "audio/ogg", Bytes::from_static(b"OggS")),
        Part::from_url(PartKind::Video, "https://www.youtube.com/watch?v=x"),
        Part::image_url("data:image/gif;base64,R0lGOD=="),
    ])]);
    assert_eq!(
        body(&codec(), &request)["contents"][0]["parts"],
        json!([
            {"text": "look"},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
            {"fileData": {"fileUri": "gs://bucket/report.pdf", "mimeType": "application/pdf"}},
            {"inlineData": {"mimeType": "audio/ogg", "data": "T2dnUw=="}},
            {"fileData": {"fileUri": "https://www.youtube.com/watch?v=x"}},
            {"inlineData": {"mimeType": "image/gif", "data": "R0lGOD=="}}
        ])
    );
    let only_parts = Request::new(vec![Message::user("").with_parts(vec![document])]);
    assert_eq!(
        body(&codec(), &only_parts)["contents"][0]["parts"][0],
        json!({"fileData": {"fileUri": "gs://bucket/report.pdf"}})
    );

    let refused = |message: Message| codec().encode(&Request::new(vec![message]), false).unwrap_err();
    let on_model = refused(Message::assistant("x").with_parts(vec![Part::image_url("https://e.com/a.png")]));
    assert_eq!(on_model.kind, ModelErrorKind::Unsupported);
    assert!(on_model.message.contains("message 0: parts on a assistant message"), "{}", on_model.message);
    let malformed = refused(Message::user("x").with_parts(vec![Part::image_data("", Bytes::from_static(b"x"))]));
    assert_eq!(malformed.kind, ModelErrorKind::Encode);
    let not_base64 = refused(Message::user("x").with_parts(vec![Part::image_url("data:image/png,raw")]));
    assert_eq!(not_base64.kind, ModelErrorKind::Encode);
}

#[test]
fn function_responses_answer_their_calls_by_position_in_one_user_turn() {
    let chart = Part::image_data("image/webp", Bytes::from_static(b"RIFF"));
    let mut failed = Message::tool_result("call_1_1", "get_weather", "no such city");
    failed.failed = true;
    let request = with_tools(vec![
        Message::user("Paris and Atlantis?"),
        // Two calls to one tool, ids synthesized by decoding (PROV-COMMON-06).
        Message::assistant_calls(vec![
            ToolCall::new("call_1_1", "get_weather", r#"{"city":"Atlantis"}"#),
            ToolCall::new("call_1_2", "get_weather", r#"{"city":"Paris"}"#),
        ]),
        // Results in the other order: the wire follows the calls.
        Message::tool_result("call_1_2", "get_weather", "22C").with_parts(vec![chart]),
        failed,
        Message::user("and tomorrow?"),
    ]);
    let wire = body(&codec(), &request);
    let contents = wire["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3, "results, their media and the next user text share one user turn");
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [
            {"functionCall": {"name": "get_weather", "args": {"city": "Atlantis"}}},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
        ]}),
        "synthesized ids stay off the wire"
    );
    assert_eq!(
        contents[2]["parts"],
        json!([
            {"functionResponse": {"name": "get_weather", "response": {"error": "no such city"}}},
            {"functionResponse": {"name": "get_weather", "response": {"result": "22C"}}},
            {"text": "<tool_result tool_name=\"get_weather\" tool_call_id=\"call_1_2\">"},
            {"inlineData": {"mimeType": "image/webp", "data": "UklGRg=="}},
            {"text": "</tool_result>"},
            {"text": "and tomorrow?"}
        ])
    );

    // Ids the API gave are echoed on the call and its response.
    let given = with_tools(vec![
        Message::user("x"),
        Message::assistant_calls(vec![ToolCall::new("fc-77", "get_weather", "")]),
        Message::tool_result("fc-77", "", "sunny"),
    ]);
    let wire = body(&codec(), &given);
    assert_eq!(
        wire["contents"][1]["parts"][0]["functionCall"],
        json!({"name": "get_weather", "args": {}, "id": "fc-77"})
    );
    assert_eq!(
        wire["contents"][2]["parts"][0]["functionResponse"],
        json!({"name": "get_weather", "id": "fc-77", "response": {"result": "sunny"}}),
        "the name comes from the call answered"
    );
    let orphan = Request::new(vec![Message::tool_result("", "t", "x")]);
    assert_eq!(codec().encode(&orphan, false).unwrap_err().kind, ModelErrorKind::Encode);
    let nameless = Request::new(vec![Message::user("x"), Message::tool_result("c9", "", "x")]);
    assert_eq!(codec().encode(&nameless, false).unwrap_err().kind, ModelErrorKind::Encode);
    let cut = Request::new(vec![Message::assistant_calls(vec![ToolCall::new("", "t", r#"{"a":"#)])]);
    assert_eq!(
        body(&codec(), &cut)["contents"][0]["parts"][0]["functionCall"]["args"],
        json!({"truncated_args": "{\"a\":"}),
        "cut-off arguments go as an object (HIST-06)"
    );
}

#[test]
fn thoughts_and_signatures_are_replayed_per_think_03_and_04() {
    let mut message = Message::assistant("The answer is 42.").with_thinking(vec![
        ThinkingBlock::text("Let me think.").with_signature("SIG-THOUGHT").with_provider("gemini"),
        ThinkingBlock::text("Unstamped thought."),
        ThinkingBlock::text("Claude's.").with_signature("SIG-CLAUDE").with_provider("anthropic"),
        ThinkingBlock::redacted("OPAQUE-UNSTAMPED"),
        ThinkingBlock::redacted("SIG-TEXT").with_provider("gemini"),
    ]);
    message.tool_calls.push(ToolCall::new("call_1_1", "get_weather", r#"{"city":"Rome"}"#).with_signature("SIG-CALL"));
    let request = with_tools(vec![Message::user("q"), message]);
    assert_eq!(
        body(&codec(), &request)["contents"][1]["parts"],
        json!([
            {"text": "Let me think.", "thought": true, "thoughtSignature": "SIG-THOUGHT"},
            {"text": "Unstamped thought.", "thought": true},
            {"text": "The answer is 42.", "thoughtSignature": "SIG-TEXT"},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}, "thoughtSignature": "SIG-CALL"}
        ])
    );
    let silent = Request::new(vec![
        Message::user("q"),
        Message::new(golem_core::Role::Assistant)
            .with_thinking(vec![ThinkingBlock::redacted("S").with_provider("gemini")]),
    ]);
    assert_eq!(body(&codec(), &silent)["contents"][1]["parts"], json!([{"text": "", "thoughtSignature": "S"}]));
    let empty = Request::new(vec![Message::user("q"), Message::assistant("")]);
    assert_eq!(body(&codec(), &empty)["contents"][1]["parts"], json!([{"text": ""}]));
}

#[test]
fn thoughts_decode_into_blocks_and_go_back_as_they_came() {
    let parts = json!([
        {"text": "First, ", "thought": true},
        {"text": "the units.", "thought": true, "thoughtSignature": "SIG-A"},
        {"text": "Then the sum.", "thought": true},
        {"text": "It is "},
        {"text": "42.", "thoughtSignature": "SIG-TEXT"},
        {"executableCode": {"language": "PYTHON", "code": "print(42)"}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": "SIG-CALL"},
        {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}, "id": "fc-2"}}
    ]);
    let response = decode(&chunk(parts.clone(), Some("STOP"))).unwrap();
    let message = &response.message;
    assert_eq!(message.content, "It is 42.");
    assert_eq!(
        message.thinking,
        vec![
            ThinkingBlock::text("First, the units.").with_signature("SIG-A").with_provider("gemini"),
            ThinkingBlock::text("Then the sum.").with_provider("gemini"),
            ThinkingBlock::redacted("SIG-TEXT").with_provider("gemini"),
        ],
        "contiguous thought parts form one block; a signature ends it; a text part's signature is opaque"
    );
    assert_eq!(
        message.tool_calls,
        vec![
            ToolCall::new("call_1_1", "get_weather", r#"{"city":"Oslo"}"#).with_signature("SIG-CALL"),
            ToolCall::new("fc-2", "get_weather", r#"{"city":"Bergen"}"#),
        ]
    );
    assert_eq!(response.finish_reason, FinishReason::ToolCall);
    assert!(golem_core::history::validate(std::slice::from_ref(message)).is_ok(), "a valid history");

    let next = with_tools(vec![Message::user("x"), message.clone()]);
    assert_eq!(
        body(&codec(), &next)["contents"][1]["parts"],
        json!([
            {"text": "First, the units.", "thought": true, "thoughtSignature": "SIG-A"},
            {"text": "Then the sum.", "thought": true},
            {"text": "It is 42.", "thoughtSignature": "SIG-TEXT"},
            // The built-in's code part, kept whole where it stood (after the text).
            {"executableCode": {"language": "PYTHON", "code": "print(42)"}},
            {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": "SIG-CALL"},
            {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}, "id": "fc-2"}}
        ])
    );

    // A signature on an empty thought part signs the open block.
    let late = chunk(
        json!([{"text": "Hmm.", "thought": true}, {"text": "", "thought": true, "thoughtSignature": "SIG-L"}]),
        Some("STOP"),
    );
    assert_eq!(decode(&late).unwrap().message.thinking[0].signature, "SIG-L");
    // Streamed, the same parts in chunks give the same message.
    let events: Vec<u8> = parts
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .flat_map(|(i, p)| event(&chunk(json!([p]), (i == 7).then_some("STOP"))))
        .collect();
    let (deltas, streamed) = stream(&events);
    assert_eq!(streamed.unwrap().message, *message);
    let calls: Vec<&Delta> = deltas.iter().filter(|d| matches!(d, Delta::ToolCall { .. })).collect();
    assert_eq!(calls.len(), 2, "function calls arrive whole: one delta each");
}

#[test]
fn finish_reasons_map_per_prov_gem_06() {
    use FinishReason as F;
    for (wire, expected) in [
        ("STOP", F::Stop),
        ("MAX_TOKENS", F::Length),
        ("SAFETY", F::ContentFilter),
        ("RECITATION", F::ContentFilter),
        ("BLOCKLIST", F::ContentFilter),
        ("PROHIBITED_CONTENT", F::ContentFilter),
        ("SPII", F::ContentFilter),
        ("LANGUAGE", F::Other),
        ("MALFORMED_FUNCTION_CALL", F::Other),
        ("OTHER", F::Other),
    ] {
        assert_eq!(golem_providers::gemini::finish_reason(Some(wire)), expected, "{wire}");
        assert_eq!(decode(&chunk(json!([{"text": "x"}]), Some(wire))).unwrap().finish_reason, expected, "{wire}");
    }
    assert_eq!(decode(&chunk(json!([{"text": "x"}]), None)).unwrap().finish_reason, F::Unknown);
    let call = chunk(json!([call_part("t", json!({}))]), Some("STOP"));
    assert_eq!(decode(&call).unwrap().finish_reason, F::ToolCall, "a candidate with calls reports tool_call");
    let cut = chunk(json!([call_part("t", json!({}))]), Some("MAX_TOKENS"));
    assert_eq!(decode(&cut).unwrap().finish_reason, F::Length);
}

#[test]
fn a_safety_stop_is_content_filter_and_no_candidates_is_a_decode_error_with_the_block_reason() {
    let blocked = json!({"candidates": [{"finishReason": "SAFETY", "index": 0,
        "safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}]}]});
    let response = decode(&blocked).unwrap();
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
    assert_eq!(response.message.content, "");
    let (_, streamed) = stream(&event(&blocked));
    assert_eq!(streamed.unwrap().finish_reason, FinishReason::ContentFilter);

    let refused =
        json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 9}});
    for error in [decode(&refused).unwrap_err(), stream(&event(&refused)).1.unwrap_err()] {
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false));
        assert!(
            error.message.contains("no candidates") && error.message.contains("PROHIBITED_CONTENT"),
            "{}",
            error.message
        );
    }
    let nothing = decode(&json!({"usageMetadata": {"promptTokenCount": 9}})).unwrap_err();
    assert_eq!(nothing.kind, ModelErrorKind::Decode);
    assert!(nothing.message.contains("no candidates"));
    let (_, result) = stream(&event(&json!({"usageMetadata": {"promptTokenCount": 9}})));
    assert_eq!(result.unwrap_err().kind, ModelErrorKind::Decode, "a stream that never answers");
}

#[test]
fn usage_counts_cached_input_and_thoughts_as_output() {
    let mut body = chunk(json!([{"text": "x"}]), Some("STOP"));
    body["usageMetadata"] = json!({"promptTokenCount": 100, "cachedContentTokenCount": 60, "candidatesTokenCount": 7,
        "thoughtsTokenCount": 20, "totalTokenCount": 127});
    let usage = decode(&body).unwrap().usage;
    assert_eq!(usage, golem_core::Usage::new(100, 27).with_cache_read_tokens(60).with_reasoning_tokens(20));
    assert_eq!(usage.uncached_input_tokens(), 40);
    assert_eq!(decode(&chunk(json!([{"text": "x"}]), Some("STOP"))).unwrap().usage, golem_core::Usage::default());
}

#[test]
fn streams_forward_every_text_part_and_take_the_last_usage() {
    let body = [
        event(&with_usage(chunk(json!([{"text": "a"}, {"text": "b"}]), None), 10, 1)),
        b": keep-alive comment\n\n".to_vec(),
        event(&chunk(json!([{"text": "c"}]), None)),
        event(&with_usage(chunk(json!([{"text": ""}]), Some("STOP")), 12, 3)),
    ]
    .concat();
    let (deltas, result) = stream(&body);
    assert_eq!(deltas, vec![Delta::text("a"), Delta::text("b"), Delta::text("c")], "upstream forwarded only the last");
    let response = result.unwrap();
    assert_eq!(response.message.content, "abc");
    assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (12, 3));

    let array =
        format!("[{},\r\n{}]", chunk(json!([{"text": "x"}]), None), chunk(json!([{"text": "y"}]), Some("STOP")));
    assert_eq!(stream(array.as_bytes()).1.unwrap().message.content, "xy", "JSON-array framing");
}

#[test]
fn a_stream_without_a_finish_reason_is_a_retryable_truncation_and_garbage_a_retryable_decode_error() {
    for body in [event(&chunk(json!([{"text": "Hel"}]), None)), Vec::new(), b"\n\n".to_vec(), b"[".to_vec()] {
        let error = stream(&body).1.unwrap_err();
        assert_eq!(
            (error.kind, error.retryable),
            (ModelErrorKind::Truncated, true),
            "{:?}",
            String::from_utf8_lossy(&body)
        );
    }
    let malformed =
        [event(&chunk(json!([{"text": "Hel"}]), None)), b"data: {\"candidates\": [oops\n\n".to_vec()].concat();
    let (deltas, result) = stream(&malformed);
    let error = result.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true), "{error}");
    assert_eq!(deltas, vec![Delta::text("Hel")]);
    let blanks = stream(&vec![b' '; (1 << 20) + 1]).1.unwrap_err();
    assert_eq!(blanks.kind, ModelErrorKind::Decode, "blanks are bounded like any line");
    let not_object = stream(b"[1]").1.unwrap_err();
    assert_eq!(not_object.kind, ModelErrorKind::Decode);
    let trailing = stream(format!("[{}] x", chunk(json!([]), Some("STOP"))).as_bytes()).1.unwrap_err();
    assert_eq!(trailing.kind, ModelErrorKind::Decode);
}

#[test]
fn an_error_chunk_is_the_classified_api_error_with_its_retry_info() {
    let error_chunk = json!({"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED",
        "details": retry_info("2.5s")}});
    let body = [event(&chunk(json!([{"text": "Hel"}]), None)), event(&error_chunk)].concat();
    let error = stream(&body).1.unwrap_err();
    assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(429), true));
    assert_eq!(error.code, "RESOURCE_EXHAUSTED");
    assert_eq!(error.retry_after, Some(Duration::from_millis(2500)));
    assert!(error.is_rate_limited());
    let unavailable = json!({"error": {"message": "overloaded", "status": "UNAVAILABLE"}});
    let error = stream(&event(&unavailable)).1.unwrap_err();
    assert_eq!((error.status, error.retryable), (Some(503), true), "the status name stands in for a missing code");
}

#[test]
fn error_bodies_are_classified_with_retry_info_and_the_key_scrubbed() {
    let request = Request::new(vec![Message::user("x")]);
    let decode_error = |status: u16, headers: Vec<(&str, &str)>, body: &str| {
        let headers = headers.into_iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        codec().decode(&request, &HttpResponseHead::new(status, headers), body.as_bytes()).unwrap_err()
    };
    let quota = decode_error(
        429,
        vec![("x-request-id", "rq-1")],
        &status_body(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", retry_info("13s")),
    );
    assert_eq!((quota.kind, quota.retryable, quota.code.as_str()), (ModelErrorKind::Api, true, "RESOURCE_EXHAUSTED"));
    assert_eq!(quota.retry_after, Some(Duration::from_secs(13)));
    assert_eq!(quota.request_id, "rq-1");
    let header_first =
        decode_error(429, vec![("retry-after", "4")], &status_body(429, "RESOURCE_EXHAUSTED", "q", retry_info("13s")));
    assert_eq!(header_first.retry_after, Some(Duration::from_secs(4)), "a Retry-After header is read first");
    let unavailable =
        decode_error(503, vec![], &status_body(503, "UNAVAILABLE", "The model is overloaded.", json!([])));
    assert_eq!((unavailable.status, unavailable.retryable, unavailable.retry_after), (Some(503), true, None));
    let invalid = decode_error(400, vec![], &status_body(400, "INVALID_ARGUMENT", "Invalid JSON payload.", json!([])));
    assert_eq!(
        (invalid.kind, invalid.retryable, invalid.code.as_str()),
        (ModelErrorKind::Api, false, "INVALID_ARGUMENT")
    );
    let denied =
        decode_error(403, vec![], &status_body(403, "PERMISSION_DENIED", &format!("Key {KEY} denied."), json!([])));
    assert_eq!((denied.kind, denied.retryable), (ModelErrorKind::Auth, false));
    assert!(!denied.message.contains(KEY) && denied.message.contains("[redacted]"), "{}", denied.message);
    let bad_key = decode_error(
        400,
        vec![],
        &status_body(
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            json!([{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]),
        ),
    );
    assert_eq!((bad_key.kind, bad_key.status, bad_key.retryable), (ModelErrorKind::Auth, Some(400), false));
    let wrapped = decode_error(500, vec![], &format!("[{}]", status_body(500, "INTERNAL", "oops", json!([]))));
    assert_eq!((wrapped.code.as_str(), wrapped.message.as_str(), wrapped.retryable), ("INTERNAL", "oops", true));
    let html = decode_error(502, vec![], "<html>Bad Gateway</html>");
    assert_eq!((html.message.as_str(), html.retryable), ("HTTP status 502: <html>Bad Gateway</html>", true));
    let overflow = decode_error(
        400,
        vec![],
        &status_body(
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
            json!([]),
        ),
    );
    assert!(overflow.is_context_overflow());
}

#[test]
fn count_tokens_counts_the_whole_request() {
    let codec = codec();
    let request = with_tools(vec![Message::system("Be brief."), Message::user("hi")]);
    let http = codec.encode_count_tokens(&request).unwrap();
    assert_eq!(http.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens");
    assert!(http.header("x-goog-api-key").unwrap().is_secret());
    let wire: Value = serde_json::from_slice(&http.body).unwrap();
    let inner = &wire["generateContentRequest"];
    assert_eq!(inner["model"], "models/gemini-2.5-flash");
    assert_eq!(inner["contents"], json!([{"role": "user", "parts": [{"text": "hi"}]}]));
    assert_eq!(inner["systemInstruction"], json!({"parts": [{"text": "Be brief."}]}));
    assert_eq!(inner["tools"][0]["functionDeclarations"][0]["name"], "get_weather");
    let ok = HttpResponseHead::new(200, vec![]);
    assert_eq!(codec.decode_count_tokens(&ok, br#"{"totalTokens": 31, "promptTokensDetails": []}"#).unwrap(), 31);
    assert_eq!(codec.decode_count_tokens(&ok, b"{}").unwrap(), 0, "Google's JSON leaves zeros out");
    assert_eq!(codec.decode_count_tokens(&ok, b"[]").unwrap_err().kind, ModelErrorKind::Decode);
    let error = codec
        .decode_count_tokens(
            &HttpResponseHead::new(429, vec![]),
            status_body(429, "RESOURCE_EXHAUSTED", "q", retry_info("1s")).as_bytes(),
        )
        .unwrap_err();
    assert_eq!(error.retry_after, Some(Duration::from_secs(1)));
}

#[test]
fn config_is_validated_at_construction() {
    let ok = |b: golem_providers::gemini::ConfigBuilder| b.build().unwrap();
    let err = |b: golem_providers::gemini::ConfigBuilder| b.build().unwrap_err();
    let base = || Config::builder("gemini-2.5-flash").api_key("k-1");
    ok(base().tuning(Tuning::new().temperature(2.0).top_p(1.0)));
    assert!(matches!(err(base().tuning(Tuning::new().temperature(2.01))), ConfigError::InvalidTuning { .. }));
    assert!(matches!(err(base().tuning(Tuning::new().top_p(-0.1))), ConfigError::InvalidTuning { .. }));
    assert!(matches!(err(base().tuning(Tuning::new().max_output_tokens(0))), ConfigError::InvalidTuning { .. }));
    assert!(matches!(
        err(base().thinking(Thinking::new().budget(2).level("high"))),
        ConfigError::InvalidThinking { .. }
    ));
    assert!(matches!(err(base().thinking(Thinking::new().budget(-2))), ConfigError::InvalidThinking { .. }));
    assert!(matches!(
        err(base().safety_setting(SafetySetting::new("HARM x", "BLOCK"))),
        ConfigError::InvalidTuning { .. }
    ));
    for model in ["", "models/../x", "a b", "models//x", "gemini?alt=json"] {
        assert!(
            matches!(err(base().model(model)), ConfigError::InvalidModel { .. } | ConfigError::Missing { .. }),
            "{model:?}"
        );
    }
    assert_eq!(ok(base().model("tunedModels/my-tune-7")).model_path(), "tunedModels/my-tune-7");
    assert_eq!(ok(base().model("models/gemini-2.5-pro")).model_path(), "models/gemini-2.5-pro");
    assert_eq!(
        err(Config::builder("gemini-2.5-flash")),
        ConfigError::Missing { provider: "Gemini", field: "an API key", var: Some("GEMINI_API_KEY or GOOGLE_API_KEY") }
    );
    let gateway = ok(Config::builder("gemini-2.5-flash").base_url("http://127.0.0.1:9/"));
    assert_eq!(
        (gateway.base_url(), gateway.api_key()),
        ("http://127.0.0.1:9", None),
        "away from Google the key is optional"
    );
    assert_eq!(err(base().api_key(format!("{KEY}\n"))), ConfigError::InvalidKey);
    assert!(matches!(err(base().base_url("generativelanguage.googleapis.com")), ConfigError::InvalidBaseUrl { .. }));

    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    };
    let both = Config::from_env(env(&[("GEMINI_API_KEY", "gem"), ("GOOGLE_API_KEY", "goo")])).unwrap();
    assert_eq!((both.api_key().unwrap().expose(), both.model()), ("gem", "gemini-2.5-flash"));
    let google = Config::from_env(env(&[("GEMINI_API_KEY", " "), ("GOOGLE_API_KEY", "goo")])).unwrap();
    assert_eq!(google.api_key().unwrap().expose(), "goo", "blank counts as unset");
    assert!(Config::from_env(env(&[])).is_err());
    let local =
        Config::from_env(env(&[("GEMINI_BASE_URL", "http://localhost:8080"), ("GEMINI_MODEL", "gemma-3")])).unwrap();
    assert_eq!((local.base_url(), local.model()), ("http://localhost:8080", "gemma-3"));
}

#[test]
fn keys_never_show_and_never_go_in_the_url() {
    let codec = codec_with(|b| b.base_url("https://gateway.example"));
    let request = Request::new(vec![Message::user("hi")]);
    for stream in [false, true] {
        let http = codec.encode(&request, stream).unwrap();
        assert!(!http.url.contains(KEY));
        assert_eq!(http.header("x-goog-api-key").unwrap().expose(), KEY);
        let shown = format!("{http:?} {codec:?} {:?}", codec.config());
        assert!(!shown.contains(KEY), "{shown}");
    }
    let leaky = status_body(400, "INVALID_ARGUMENT", &format!("bad key {KEY}"), json!([]));
    let (_, result) = run_stream(&codec, &request, &HttpResponseHead::new(200, vec![]), [format!("data: {leaky}\n\n")]);
    let error = result.unwrap_err();
    assert!(!format!("{error} {error:?}").contains(KEY));
    let garbage = codec.error(&HttpResponseHead::new(502, vec![]), format!("<html>{KEY}</html>").as_bytes());
    assert!(!format!("{garbage} {garbage:?}").contains(KEY));
    let reflecting = HttpResponseHead::new(200, vec![("x-request-id".into(), format!("rq-1 {KEY}"))]);
    let (_, result) = run_stream(&codec, &request, &reflecting, [b"data: {\"candidates\": [{\"content\": {}}]}\n\n"]);
    let cut = result.unwrap_err();
    assert_eq!(
        (cut.kind, cut.request_id.as_str()),
        (ModelErrorKind::Truncated, "rq-1 [redacted]"),
        "a reflected key is scrubbed"
    );
}

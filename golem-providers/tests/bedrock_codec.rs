//! The Bedrock codec on behaviour the recordings do not show, pinned
//! against the botocore service model (tests/fixtures/specs/
//! bedrock-runtime-2023-09-30.service-2.json): tool choice behind its flag,
//! thinking and effort, structured output, cache points, media and
//! documents, reasoning replay (THINK-03/04), in-stream exceptions and
//! truncation, error headers, config validation and capabilities.
//! SPEC PROV-BR-03..06, THINK-01..04, MM-02..04.

use crate::bedrock::{builder, codec, credentials, event, exception, metadata, recorded, stop, text_delta};
use crate::support::run_stream;
use bytes::Bytes;
use golem_core::message::{Message, Part, PartKind, Role, ThinkingBlock, ToolCall};
use golem_core::model::{Delta, ModelErrorKind, OutputSchema, Request, WireToolChoice};
use golem_core::tool::ToolDefinition;
use golem_providers::bedrock::{CachePoint, CacheTtl, Codec, Config, ConfigError, Thinking, Tuning};
use golem_providers::codec::{HttpCodec, TokenCounting};
use golem_providers::http::HttpResponseHead;
use golem_providers::sigv4::Credentials;
use serde_json::{json, Value};
use std::sync::Arc;

fn body(codec: &Codec, request: &Request) -> Value {
    serde_json::from_slice(&codec.encode(request, false).unwrap().body).unwrap()
}

fn with_tools(messages: Vec<Message>) -> Request {
    let mut request = Request::new(messages);
    request.tools = Arc::new(vec![ToolDefinition::new(
        "get_weather",
        "Weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    )]);
    request
}

fn with_config(
    f: impl FnOnce(golem_providers::bedrock::ConfigBuilder) -> golem_providers::bedrock::ConfigBuilder,
) -> Codec {
    Codec::new(f(builder("https://bedrock-runtime.us-east-1.amazonaws.com")).build().unwrap())
}

#[test]
fn tool_choice_is_sent_only_behind_the_flag_and_never_with_thinking() {
    let mut request = with_tools(vec![Message::user("weather?")]);
    request.tool_choice = Some(WireToolChoice::Tool("get_weather".into()));
    let off = codec();
    assert!(body(&off, &request)["toolConfig"].get("toolChoice").is_none());
    assert!(!off.capabilities().forced_tool_choice);

    let on = with_config(|b| b.tool_choice(true));
    assert!(on.capabilities().forced_tool_choice);
    let wire = body(&on, &request);
    assert_eq!(wire["toolConfig"]["toolChoice"], json!({"tool": {"name": "get_weather"}}));
    assert_eq!(
        wire["toolConfig"]["tools"][0],
        json!({"toolSpec": {"name": "get_weather", "description": "Weather in a city.",
               "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}}}})
    );
    request.tool_choice = Some(WireToolChoice::Auto);
    assert_eq!(body(&on, &request)["toolConfig"]["toolChoice"], json!({"auto": {}}));

    let thinking = with_config(|b| b.tool_choice(true).thinking(Thinking::Adaptive));
    assert!(!thinking.capabilities().forced_tool_choice, "PROV-BR-03: off with thinking");
    assert!(body(&thinking, &request)["toolConfig"].get("toolChoice").is_none());
    let disabled = with_config(|b| b.tool_choice(true).thinking(Thinking::Disabled));
    assert!(disabled.capabilities().forced_tool_choice);
}

#[test]
fn settings_go_where_the_service_model_puts_them() {
    let codec = with_config(|b| {
        b.tuning(Tuning::new().max_tokens(4096).temperature(0.0).top_p(0.9).stop("END"))
            .thinking(Thinking::Enabled { budget_tokens: 2048 })
            .effort("high")
    });
    let mut request = Request::new(vec![Message::system("One."), Message::system("Two."), Message::user("hi")]);
    request.output_schema = Some(Arc::new(OutputSchema::new(
        "my::Forecast",
        json!({"type": "object", "properties": {"t": {"type": "number"}}}),
    )));
    let wire = body(&codec, &request);
    assert_eq!(wire["system"], json!([{"text": "One."}, {"text": "Two."}]));
    assert_eq!(
        wire["inferenceConfig"],
        json!({"maxTokens": 4096, "temperature": 0.0, "topP": 0.9, "stopSequences": ["END"]})
    );
    assert_eq!(wire["additionalModelRequestFields"], json!({"thinking": {"type": "enabled", "budget_tokens": 2048}}));
    let format = &wire["outputConfig"]["textFormat"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["structure"]["jsonSchema"]["name"], "output", "PROV-BR-03: always `output`");
    let schema: Value = serde_json::from_str(format["structure"]["jsonSchema"]["schema"].as_str().unwrap()).unwrap();
    assert_eq!(schema, request.output_schema.as_ref().unwrap().schema, "the schema goes as a string");
    assert_eq!(wire["outputConfig"]["effort"], "high");
    assert!(wire.get("toolConfig").is_none(), "no tools, no toolConfig");

    for (thinking, wire_form) in
        [(Thinking::Adaptive, json!({"type": "adaptive"})), (Thinking::Disabled, json!({"type": "disabled"}))]
    {
        let codec = with_config(|b| b.thinking(thinking));
        assert_eq!(
            body(&codec, &Request::new(vec![Message::user("x")]))["additionalModelRequestFields"]["thinking"],
            wire_form
        );
    }
}

#[test]
fn cache_points_end_the_last_turn_and_the_one_the_previous_request_ended_with() {
    let codec = with_config(|b| b.cache_point(CachePoint::new()));
    let request = Request::new(vec![Message::user("a"), Message::assistant("b"), Message::user("c")]);
    let wire = body(&codec, &request);
    let point = json!({"cachePoint": {"type": "default"}});
    assert_eq!(wire["messages"][2]["content"], json!([{"text": "c"}, point]));
    assert_eq!(wire["messages"][0]["content"], json!([{"text": "a"}, point]));
    assert_eq!(wire["messages"][1]["content"], json!([{"text": "b"}]));
    let hour = with_config(|b| b.cache_point(CachePoint::new().ttl(CacheTtl::OneHour)));
    assert_eq!(
        body(&hour, &request)["messages"][2]["content"][1],
        json!({"cachePoint": {"type": "default", "ttl": "1h"}})
    );
    assert!(!body(&crate::bedrock::codec(), &request).to_string().contains("cachePoint"), "off after no_cache");
}

#[test]
fn images_and_documents_go_as_bytes_with_request_unique_names() {
    let png = Part::image_data("image/png", Bytes::from_static(b"\x89PNG"));
    let mut pdf = Part::image_data("application/pdf", Bytes::from_static(b"%PDF-1.7"));
    pdf.kind = PartKind::Document;
    let mut md = Part::image_data("text/markdown; charset=utf-8", Bytes::from_static(b"# hi"));
    md.kind = PartKind::Document;
    let request = Request::new(vec![
        Message::user("look").with_parts(vec![png.clone(), pdf.clone()]),
        Message::assistant("ok"),
        Message::user("").with_parts(vec![md, pdf]),
    ]);
    let wire = body(&codec(), &request);
    assert_eq!(
        wire["messages"][0]["content"],
        json!([
            {"text": "look"},
            {"image": {"format": "png", "source": {"bytes": "iVBORw=="}}},
            {"document": {"format": "pdf", "name": "doc-0-1", "source": {"bytes": "JVBERi0xLjc="}}}
        ])
    );
    let last = &wire["messages"][2]["content"];
    assert_eq!(last[0]["document"]["name"], "doc-2-0", "no empty text block before the parts");
    assert_eq!(last[0]["document"]["format"], "md");
    assert_eq!(last[1]["document"]["name"], "doc-2-1");

    let refused =
        |part: Part| codec().encode(&Request::new(vec![Message::user("x").with_parts(vec![part])]), false).unwrap_err();
    let by_url = refused(Part::image_url("https://example.com/a.png"));
    assert_eq!(by_url.kind, ModelErrorKind::Unsupported);
    assert!(by_url.message.contains("message 0 part 0 (image) by URL"), "{}", by_url.message);
    assert_eq!(refused(Part::image_data("image/tiff", Bytes::from_static(b"x"))).kind, ModelErrorKind::Unsupported);
    let mut audio = Part::image_data("audio/wav", Bytes::from_static(b"RIFF"));
    audio.kind = PartKind::Audio;
    assert_eq!(refused(audio).kind, ModelErrorKind::Unsupported);
    let malformed = Part::image_data("", Bytes::from_static(b"x"));
    assert_eq!(refused(malformed).kind, ModelErrorKind::Encode);
}

#[test]
fn tool_results_carry_media_and_failure_inside_the_block_and_merge_into_one_turn() {
    let chart = Part::image_data("image/webp", Bytes::from_static(b"RIFF"));
    let mut failed = Message::tool_result("tu_2", "get_weather", "no such city");
    failed.failed = true;
    let request = with_tools(vec![
        Message::user("weather?"),
        Message::assistant_calls(vec![
            ToolCall::new("tu_1", "get_weather", r#"{"city":"Paris"}"#),
            ToolCall::new("tu_2", "get_weather", r#"{"city":"Atlantis"}"#),
        ]),
        Message::tool_result("tu_1", "get_weather", "").with_parts(vec![chart]),
        failed,
        Message::user("and tomorrow?"),
    ]);
    let wire = body(&codec(), &request);
    let messages = wire["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "results and the next user text share one user turn");
    assert_eq!(
        messages[1]["content"],
        json!([
            {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {"city": "Paris"}}},
            {"toolUse": {"toolUseId": "tu_2", "name": "get_weather", "input": {"city": "Atlantis"}}}
        ])
    );
    assert_eq!(
        messages[2]["content"],
        json!([
            {"toolResult": {"toolUseId": "tu_1", "status": "success",
                            "content": [{"image": {"format": "webp", "source": {"bytes": "UklGRg=="}}}]}},
            {"toolResult": {"toolUseId": "tu_2", "status": "error", "content": [{"text": "no such city"}]}},
            {"text": "and tomorrow?"}
        ])
    );
    let orphan = Request::new(vec![Message::tool_result("", "t", "x")]);
    assert_eq!(codec().encode(&orphan, false).unwrap_err().kind, ModelErrorKind::Encode);
    // Cut-off arguments go as an object (HIST-06), a call without an id with the decoder's id.
    let cut = Request::new(vec![Message::assistant_calls(vec![ToolCall::new("", "t", r#"{"a":"#)])]);
    assert_eq!(
        body(&codec(), &cut)["messages"][0]["content"][0],
        json!({"toolUse": {"toolUseId": "call_1_1", "name": "t", "input": {"truncated_args": "{\"a\":"}}})
    );
}

// Field by field: `ThinkingBlock` is becoming `#[non_exhaustive]` (issue 11).
#[allow(clippy::field_reassign_with_default)]
fn block(text: &str, signature: &str, redacted: &str, provider: &str) -> ThinkingBlock {
    let mut block = ThinkingBlock::default();
    block.text = text.into();
    block.signature = signature.into();
    block.redacted = redacted.into();
    block.provider = provider.into();
    block
}

#[test]
fn reasoning_is_replayed_first_and_only_to_its_own_family() {
    let mut assistant = Message::assistant("Checking.");
    assistant.tool_calls = vec![ToolCall::new("tu_1", "get_weather", "{}")];
    assistant.thinking = vec![
        block("mine", "sig-1", "", "bedrock"),
        block("", "", "cmVkYWN0ZWQ=", "bedrock"),
        block("anthropic's", "sig-a", "", "anthropic"),
        block("gemini's", "sig-g", "", "gemini"),
        block("unstamped and signed", "sig-u", "", ""),
        block("unstamped, unsigned", "", "", ""),
        // Unsigned reasoning (DeepSeek R1's) is refused back by the
        // models that write it (issue 32): kept in history, never sent.
        block("bedrock, unsigned", "", "", "bedrock"),
    ];
    let request = with_tools(vec![Message::user("q"), assistant, Message::tool_result("tu_1", "get_weather", "sun")]);
    let content = body(&codec(), &request)["messages"][1]["content"].clone();
    assert_eq!(
        content,
        json!([
            {"reasoningContent": {"reasoningText": {"text": "mine", "signature": "sig-1"}}},
            {"reasoningContent": {"redactedContent": "cmVkYWN0ZWQ="}},
            {"reasoningContent": {"reasoningText": {"text": "unstamped and signed", "signature": "sig-u"}}},
            {"text": "Checking."},
            {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {}}}
        ])
    );
}

/// THINK-01/03: the recorded reasoning + tool call decodes to a signed
/// block, and the next request sends it back unchanged, before the text
/// and the tool call.
#[test]
fn a_reasoning_round_trip_with_a_tool_call_replays_the_signature_unchanged() {
    let case = "converse_tool_use_reasoning";
    let first: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
    let codec = crate::bedrock::codec_for_recorded(case, &first);
    let request = crate::bedrock::request_from_converse(&first);
    let response =
        codec.decode(&request, &HttpResponseHead::new(200, vec![]), &recorded(case, "01.response.json")).unwrap();
    let recorded_response: Value = serde_json::from_slice(&recorded(case, "01.response.json")).unwrap();
    let signature = recorded_response["output"]["message"]["content"][0]["reasoningContent"]["reasoningText"]
        ["signature"]
        .as_str()
        .unwrap();
    assert_eq!(response.message.thinking.len(), 1);
    assert_eq!(response.message.thinking[0].signature, signature);
    assert_eq!(response.message.thinking[0].provider, "bedrock");
    assert_eq!(response.message.tool_calls[0].id, "tooluse_W9DaUFg4Tj2cRPpndqxWSg");

    // Through durable JSON and back (MSG), then into the next request.
    let stored: Message = serde_json::from_str(&serde_json::to_string(&response.message).unwrap()).unwrap();
    let mut next = request.clone();
    next.messages_mut().push(stored);
    next.messages_mut().push(Message::tool_result("tooluse_W9DaUFg4Tj2cRPpndqxWSg", "get_user_country", "Mexico"));
    let wire = body(&codec, &next);
    let replayed = &wire["messages"][1]["content"];
    assert_eq!(replayed[0]["reasoningContent"]["reasoningText"]["signature"], signature);
    assert_eq!(replayed[1]["text"], "I'll need to check what country you're from to answer that question.");
    assert!(replayed[2].get("toolUse").is_some());
    let second: Value = serde_json::from_slice(&recorded(case, "02.request.json")).unwrap();
    assert_eq!(wire["messages"], second["messages"], "exactly the recorded follow-up");
}

fn stream(chunks: &[Vec<u8>]) -> (Vec<Delta>, Result<golem_core::Response, golem_core::ModelError>) {
    run_stream(&codec(), &Request::new(vec![Message::user("x")]), &HttpResponseHead::new(200, vec![]), chunks)
}

#[test]
fn exception_frames_are_classified_api_errors() {
    for (kind, status, retryable) in [
        ("throttlingException", 429, true),
        ("modelTimeoutException", 408, true),
        ("internalServerException", 500, true),
        ("modelStreamErrorException", 424, false),
        ("serviceUnavailableException", 503, true),
        ("validationException", 400, false),
        ("somethingNewException", 500, true),
    ] {
        let (deltas, result) = stream(&[text_delta(0, "Hel"), exception(kind, "Too many requests, please wait.")]);
        assert_eq!(deltas, vec![Delta::text("Hel")], "{kind}: what came before was forwarded");
        let error = result.unwrap_err();
        assert_eq!(
            (error.kind, error.status, error.retryable),
            (ModelErrorKind::Api, Some(status), retryable),
            "{kind}"
        );
        assert_eq!(error.code, kind);
        assert_eq!(error.message, "Too many requests, please wait.");
    }
}

/// Issue 32 item 7: every exception a ConverseStream may carry stands
/// for the status botocore's model gives its shape, so an error mid-stream
/// is retried exactly when its twin over plain HTTP would be.
#[test]
fn exception_statuses_are_the_ones_the_service_model_gives() {
    let spec = crate::support::read_json(
        &crate::support::fixtures_dir().join("specs/bedrock-runtime-2023-09-30.service-2.json"),
    );
    let members = spec["shapes"]["ConverseStreamOutput"]["members"].as_object().unwrap();
    let mut seen = 0;
    for (name, member) in members {
        let shape = &spec["shapes"][member["shape"].as_str().unwrap()];
        let Some(status) = shape["error"]["httpStatusCode"].as_u64() else { continue };
        seen += 1;
        assert_eq!(u64::from(golem_providers::bedrock::exception_status(name)), status, "{name}");
        let over_http =
            golem_providers::classify::api_error(&HttpResponseHead::new(status as u16, vec![]), "m", name, None);
        let (_, result) = stream(&[exception(name, "m")]);
        assert_eq!(result.unwrap_err().retryable, over_http.retryable, "{name}: as over plain HTTP");
    }
    assert!(seen >= 5, "the model names the stream's exceptions");
}

#[test]
fn streams_without_message_stop_or_cut_mid_frame_are_retryable_truncations() {
    let (_, result) = stream(&[text_delta(0, "Hel"), metadata(1, 1)]);
    let error = result.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true));
    assert!(error.message.contains("messageStop"));

    let frame = stop("end_turn");
    let (_, result) = stream(&[text_delta(0, "Hel"), frame[..frame.len() - 3].to_vec()]);
    let error = result.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true));
    assert!(error.message.contains("inside an event-stream frame"), "{}", error.message);

    let mut bad_crc = stop("end_turn");
    let n = bad_crc.len();
    bad_crc[n - 1] ^= 0xff;
    let (_, result) = stream(&[text_delta(0, "Hel"), bad_crc]);
    let error = result.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true));
    assert!(error.message.contains("checksum"), "{}", error.message);

    let (_, result) =
        stream(&[event("contentBlockDelta", &json!({"contentBlockIndex": 0, "delta": {"text": 1}})), b"".to_vec()]);
    assert!(result.is_err());
    let garbage = golem_providers::eventstream::encode_frame(
        &[golem_providers::eventstream::Header {
            name: ":event-type".into(),
            value: golem_providers::eventstream::HeaderValue::String("messageStop".into()),
        }],
        b"{not json",
    );
    let error = stream(&[garbage]).1.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true));
}

#[test]
fn content_blocks_keep_their_kind_and_tool_calls_without_input_get_an_empty_object() {
    let start = |index: u64, id: &str, name: &str| {
        event(
            "contentBlockStart",
            &json!({"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": id, "name": name}}}),
        )
    };
    let reasoning = |index: u64, delta: Value| {
        event("contentBlockDelta", &json!({"contentBlockIndex": index, "delta": {"reasoningContent": delta}}))
    };
    let stop_block = |index: u64| event("contentBlockStop", &json!({"contentBlockIndex": index}));
    let (deltas, result) = stream(&[
        reasoning(0, json!({"text": "think"})),
        reasoning(0, json!({"signature": "sig"})),
        reasoning(1, json!({"redactedContent": "b3BhcXVl"})),
        text_delta(2, "Hi"),
        start(3, "tu_a", "noargs"),
        stop_block(3),
        start(4, "", "later"),
        event("contentBlockDelta", &json!({"contentBlockIndex": 4, "delta": {"toolUse": {"input": "{\"x\":"}}})),
        event("contentBlockDelta", &json!({"contentBlockIndex": 4, "delta": {"toolUse": {"input": "1}"}}})),
        stop("tool_use"),
        metadata(10, 4),
    ]);
    let response = result.unwrap();
    assert_eq!(response.finish_reason, golem_core::FinishReason::ToolCall);
    let m = &response.message;
    assert_eq!((m.thinking[0].text.as_str(), m.thinking[0].signature.as_str()), ("think", "sig"));
    assert_eq!(m.thinking[1].redacted, "b3BhcXVl");
    assert_eq!(m.content, "Hi");
    assert_eq!((m.tool_calls[0].id.as_str(), m.tool_calls[0].args.as_str()), ("tu_a", "{}"));
    assert_eq!((m.tool_calls[1].id.as_str(), m.tool_calls[1].args.as_str()), ("call_1_2", "{\"x\":1}"));
    assert!(deltas.contains(&Delta::ToolCall {
        index: 0,
        id: String::new(),
        name: String::new(),
        args: "{}".into(),
        signature: String::new()
    }));

    // A delta of the wrong kind for its block, or for a block never opened, is a decode error.
    for bad in [
        vec![text_delta(0, "a"), reasoning(0, json!({"text": "b"}))],
        vec![event("contentBlockDelta", &json!({"contentBlockIndex": 7, "delta": {"toolUse": {"input": "{}"}}}))],
        vec![start(0, "t", "n"), text_delta(0, "x")],
        vec![event("contentBlockDelta", &json!({"delta": {"text": "no index"}}))],
    ] {
        let error = stream(&bad).1.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false), "{error}");
    }
}

#[test]
fn usage_adds_cache_figures_to_input_and_stop_reasons_map() {
    let usage = golem_providers::bedrock::usage(
        &json!({"inputTokens": 10, "outputTokens": 3, "cacheReadInputTokens": 100, "cacheWriteInputTokens": 7}),
    );
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens),
        (117, 3, 100, 7)
    );
    assert_eq!(usage.uncached_input_tokens(), 10);
    use golem_core::FinishReason as F;
    for (reason, expected) in [
        ("end_turn", F::Stop),
        ("stop_sequence", F::Stop),
        ("max_tokens", F::Length),
        ("tool_use", F::ToolCall),
        ("guardrail_intervened", F::ContentFilter),
        ("content_filtered", F::ContentFilter),
        ("model_context_window_exceeded", F::Other),
    ] {
        assert_eq!(golem_providers::bedrock::finish_reason(Some(reason)), expected, "{reason}");
    }
    assert_eq!(golem_providers::bedrock::finish_reason(None), F::Unknown);
}

#[test]
fn error_bodies_take_the_code_from_the_header_and_the_message_from_either_case() {
    let request = Request::new(vec![Message::user("x")]);
    let head = |status: u16, headers: &[(&str, &str)]| {
        HttpResponseHead::new(status, headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect())
    };
    let error = codec()
        .decode(
            &request,
            &head(
                403,
                &[(
                    "x-amzn-errortype",
                    "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.coral.service/",
                )],
            ),
            br#"{"Message":"User is not authorized to perform: bedrock:InvokeModel"}"#,
        )
        .unwrap_err();
    assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Auth, Some(403), false));
    assert_eq!(error.code, "AccessDeniedException");
    assert_eq!(error.message, "User is not authorized to perform: bedrock:InvokeModel");
    let error = codec()
        .decode(
            &request,
            &head(429, &[("retry-after", "2")]),
            br#"{"__type":"com.amazon.coral#ThrottlingException","message":"slow"}"#,
        )
        .unwrap_err();
    assert_eq!((error.code.as_str(), error.retryable), ("ThrottlingException", true));
    assert_eq!(error.retry_after, Some(std::time::Duration::from_secs(2)));
    let error = codec().decode(&request, &head(502, &[]), b"<html>Bad Gateway</html>").unwrap_err();
    assert!(error.message.contains("HTTP status 502: <html>Bad Gateway</html>") && error.retryable);
    let error = codec().decode(&request, &HttpResponseHead::new(200, vec![]), b"{\"output\": 1}").unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false));
    let error = codec().decode(&request, &HttpResponseHead::new(200, vec![]), b"{\"outp").unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true));
}

#[test]
fn configs_are_validated_at_construction() {
    let base = || Config::builder("us-east-1", "anthropic.claude-3-7-sonnet-20250219-v1:0").credentials(credentials());
    assert!(matches!(Config::builder("", "m").credentials(credentials()).build(), Err(ConfigError::Missing { .. })));
    assert!(matches!(
        Config::builder("us-east-1", " ").credentials(credentials()).build(),
        Err(ConfigError::Missing { .. })
    ));
    assert!(matches!(
        Config::builder("US East", "m").credentials(credentials()).build(),
        Err(ConfigError::InvalidRegion { .. })
    ));
    assert!(matches!(
        Config::builder("us-east-1", "m").build(),
        Err(ConfigError::Missing { field: "credentials", .. })
    ));
    assert!(matches!(base().base_url("ftp://x").build(), Err(ConfigError::InvalidBaseUrl { .. })));
    let newline = Credentials::new("AKID\n", "secret");
    let error = Config::builder("us-east-1", "m").credentials(newline).build().unwrap_err();
    assert_eq!(error, ConfigError::InvalidKey);
    let token = Credentials::new("AKID", "secret").with_session_token("tok en");
    assert!(matches!(Config::builder("us-east-1", "m").credentials(token).build(), Err(ConfigError::InvalidKey)));
    assert!(matches!(base().tuning(Tuning::new().temperature(1.01)).build(), Err(ConfigError::InvalidTuning { .. })));
    assert!(matches!(base().tuning(Tuning::new().top_p(-0.1)).build(), Err(ConfigError::InvalidTuning { .. })));
    assert!(matches!(base().tuning(Tuning::new().max_tokens(0)).build(), Err(ConfigError::InvalidTuning { .. })));
    assert!(matches!(base().effort(" ").build(), Err(ConfigError::InvalidThinking { .. })));
    // THINK-02 for Anthropic models: 1024 ≤ budget < max_tokens.
    assert!(matches!(
        base().thinking(Thinking::Enabled { budget_tokens: 1023 }).build(),
        Err(ConfigError::InvalidThinking { .. })
    ));
    let over = base().tuning(Tuning::new().max_tokens(2048)).thinking(Thinking::Enabled { budget_tokens: 2048 });
    assert!(matches!(over.build(), Err(ConfigError::InvalidThinking { .. })));
    assert!(base()
        .tuning(Tuning::new().max_tokens(2049))
        .thinking(Thinking::Enabled { budget_tokens: 2048 })
        .build()
        .is_ok());
    assert!(
        base().thinking(Thinking::Enabled { budget_tokens: 1024 }).build().is_ok(),
        "no max_tokens: Bedrock's default"
    );
    let nova = Config::builder("us-east-1", "amazon.nova-pro-v1:0").credentials(credentials());
    assert!(
        nova.thinking(Thinking::Enabled { budget_tokens: 10 }).build().is_ok(),
        "other families have their own rules"
    );
    let config = base().base_url("http://127.0.0.1:9/").build().unwrap();
    assert_eq!(config.base_url(), "http://127.0.0.1:9");
}

/// PROV-BR-01: `from_env` reads the three credential variables, the
/// region from `AWS_REGION` before `AWS_DEFAULT_REGION`, the model and an
/// optional base URL; an empty value is unset, and a missing one is named.
#[test]
fn from_env_reads_the_aws_variables_and_names_a_missing_one() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    };
    let config = Config::from_env(vars(&[
        ("AWS_ACCESS_KEY_ID", "AKIDENV"),
        ("AWS_SECRET_ACCESS_KEY", "env-secret"),
        ("AWS_SESSION_TOKEN", "env-token"),
        ("AWS_REGION", "eu-west-3"),
        ("AWS_DEFAULT_REGION", "us-east-2"),
        ("BEDROCK_MODEL", "eu.amazon.nova-lite-v1:0"),
        ("BEDROCK_BASE_URL", "http://127.0.0.1:9/"),
    ]))
    .unwrap();
    assert_eq!(
        (config.region(), config.model(), config.base_url()),
        ("eu-west-3", "eu.amazon.nova-lite-v1:0", "http://127.0.0.1:9")
    );
    let credentials = config.credentials().credentials().unwrap();
    assert_eq!(credentials.access_key_id().expose(), "AKIDENV");
    assert_eq!(credentials.session_token().map(|t| t.expose()), Some("env-token"));

    let config = Config::from_env(vars(&[
        ("AWS_ACCESS_KEY_ID", "AKIDENV"),
        ("AWS_SECRET_ACCESS_KEY", "env-secret"),
        ("AWS_SESSION_TOKEN", " "),
        ("AWS_REGION", ""),
        ("AWS_DEFAULT_REGION", "us-east-2"),
        ("BEDROCK_MODEL", "amazon.nova-lite-v1:0"),
    ]))
    .unwrap();
    assert_eq!(config.region(), "us-east-2", "an empty AWS_REGION falls back");
    assert_eq!(config.base_url(), "https://bedrock-runtime.us-east-2.amazonaws.com");
    assert!(config.credentials().credentials().unwrap().session_token().is_none());

    let error = Config::from_env(vars(&[
        ("AWS_ACCESS_KEY_ID", "AKIDENV"),
        ("AWS_REGION", "us-east-1"),
        ("BEDROCK_MODEL", "amazon.nova-lite-v1:0"),
    ]))
    .unwrap_err();
    assert_eq!(
        error,
        ConfigError::Missing { provider: "Bedrock", field: "a secret access key", var: Some("AWS_SECRET_ACCESS_KEY") }
    );
    assert!(error.to_string().contains("AWS_SECRET_ACCESS_KEY"));
}

#[test]
fn capabilities_are_reported_from_the_config() {
    let caps = codec().capabilities();
    assert!(caps.native_schema_with_tools && !caps.forced_tool_choice);
}

#[test]
fn count_tokens_requests_and_answers_follow_the_service_model() {
    let codec = codec();
    let request = with_tools(vec![Message::system("Be brief."), Message::user("hi")]);
    let http = codec.encode_count_tokens(&request).unwrap();
    assert!(http.url.ends_with("/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/count-tokens"));
    let wire: Value = serde_json::from_slice(&http.body).unwrap();
    let converse = &wire["input"]["converse"];
    assert_eq!(converse["messages"], json!([{"role": "user", "content": [{"text": "hi"}]}]));
    assert_eq!(converse["system"], json!([{"text": "Be brief."}]));
    assert!(converse["toolConfig"]["tools"].is_array());
    assert_eq!(converse.as_object().unwrap().len(), 3, "only the fields CountTokens takes");
    assert_eq!(codec.decode_count_tokens(&HttpResponseHead::new(200, vec![]), br#"{"inputTokens": 42}"#), Ok(42));
    assert!(codec.decode_count_tokens(&HttpResponseHead::new(200, vec![]), b"{}").is_err());
    let error = codec.decode_count_tokens(&HttpResponseHead::new(400, vec![]), br#"{"message":"no"}"#).unwrap_err();
    assert_eq!(error.status, Some(400));
    let _ = Role::User;
}

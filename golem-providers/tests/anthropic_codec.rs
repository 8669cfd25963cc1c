//! The Anthropic codec on hand-built requests and streams: body shape,
//! turn merging and block order, tool choice and thinking, structured
//! output, caching, media, thinking replay across provider families,
//! block-index bookkeeping and in-band errors.
//! SPEC PROV-ANT-02..07, THINK-02..05, MM-02..04, USAGE-02, HIST-06.

use crate::anthropic::{
    block_delta, block_start, block_stop, codec, codec_with, event, message_body, message_delta, message_start,
    message_stop, stream_of, KEY,
};
use crate::support::{assert_split_invariant, run_stream};
use golem_core::message::{Message, Part, PartKind, Role, ThinkingBlock, ToolArgs, ToolCall};
use golem_core::model::{Delta, ModelErrorKind, OutputSchema, Request, WireToolChoice};
use golem_core::tool::ToolDefinition;
use golem_core::FinishReason;
use golem_providers::anthropic::{CacheControl, CacheTtl, Codec, Config, ConfigError, Thinking, Tuning};
use golem_providers::codec::{HttpCodec, TokenCounting};
use golem_providers::http::HttpResponseHead;
use serde_json::{json, Value};

fn body(codec: &Codec, request: &Request) -> Value {
    serde_json::from_slice(&codec.encode(request, false).unwrap().body).unwrap()
}

fn ok() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![])
}

fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "weather",
        "Weather for a city",
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    )
}

fn assistant(content: &str, thinking: Vec<ThinkingBlock>, calls: Vec<ToolCall>) -> Message {
    let mut message = Message::new(Role::Assistant).with_thinking(thinking);
    message.content = content.to_string();
    message.tool_calls = calls;
    message
}

#[test]
fn system_texts_join_and_tuning_fields_are_sent_when_set() {
    let tuned =
        codec_with(|b| b.tuning(Tuning::new().max_tokens(2000).temperature(0.0).top_p(0.9).top_k(40).stop("END")));
    let request = Request::new(vec![Message::system("One."), Message::system("Two."), Message::user("hi")]);
    let sent = body(&tuned, &request);
    assert_eq!(sent["system"], "One.\n\nTwo.");
    assert_eq!((sent["max_tokens"].clone(), sent["temperature"].clone()), (json!(2000), json!(0.0)));
    assert_eq!((sent["top_p"].clone(), sent["top_k"].clone()), (json!(0.9), json!(40)));
    assert_eq!(sent["stop_sequences"], json!(["END"]));
    let plain = body(&codec(), &Request::new(vec![Message::user("hi")]));
    for field in ["system", "temperature", "top_p", "top_k", "stop_sequences", "thinking", "tools", "tool_choice"] {
        assert!(plain.get(field).is_none(), "{field} unset stays off the wire");
    }
}

#[test]
fn tool_results_lead_one_user_turn_and_assistant_blocks_go_thinking_text_calls() {
    let signed = ThinkingBlock::text("Let me look.").with_signature("sig-1").with_provider("anthropic");
    let calls = vec![
        ToolCall::new("toolu_1", "weather", ToolArgs::new(r#"{"city":"Paris"}"#)),
        ToolCall::new("toolu_2", "weather", ToolArgs::new("")),
    ];
    let mut failed = Message::tool_result("toolu_2", "weather", "no such city");
    failed.failed = true;
    let request = Request::new(vec![
        Message::user("Weather?"),
        assistant("Checking.", vec![signed], calls),
        Message::tool_result("toolu_1", "weather", "sunny"),
        failed,
        Message::user("Thanks"),
    ])
    .with_tools(vec![weather()]);
    let sent = body(&codec(), &request);
    let messages = sent["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "tool results and the next user text merge into one user turn");
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "thinking", "thinking": "Let me look.", "signature": "sig-1"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {}},
        ])
    );
    assert_eq!(
        messages[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "no such city", "is_error": true},
            {"type": "text", "text": "Thanks"},
        ])
    );
    assert_eq!(
        sent["tools"],
        json!([{"name": "weather", "description": "Weather for a city",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}])
    );
}

#[test]
fn tool_choice_is_sent_under_force_only_and_never_while_thinking() {
    let forced = Request::new(vec![Message::user("go")])
        .with_tools(vec![weather()])
        .with_tool_choice(WireToolChoice::Tool("weather".into()));
    assert_eq!(body(&codec(), &forced)["tool_choice"], json!({"type": "tool", "name": "weather"}));
    let auto = forced.clone().with_tool_choice(WireToolChoice::Auto);
    assert_eq!(body(&codec(), &auto)["tool_choice"], json!({"type": "auto"}));
    let thinking =
        codec_with(|b| b.tuning(Tuning::new().max_tokens(4096)).thinking(Thinking::Enabled { budget_tokens: 1024 }));
    let sent = body(&thinking, &forced);
    assert!(sent.get("tool_choice").is_none(), "PROV-ANT-04: {sent}");
    assert_eq!(sent["thinking"], json!({"type": "enabled", "budget_tokens": 1024}));
    assert!(!thinking.capabilities().forced_tool_choice && codec().capabilities().forced_tool_choice);
    assert!(codec().capabilities().native_schema_with_tools);
}

#[test]
fn thinking_budgets_are_checked_at_construction() {
    let base = || Config::builder("claude-sonnet-4-5").api_key(KEY);
    assert!(base()
        .thinking(Thinking::Enabled { budget_tokens: 1023 })
        .tuning(Tuning::new().max_tokens(4096))
        .build()
        .is_err());
    assert!(base()
        .thinking(Thinking::Enabled { budget_tokens: 4096 })
        .tuning(Tuning::new().max_tokens(4096))
        .build()
        .is_err());
    assert!(base()
        .thinking(Thinking::Enabled { budget_tokens: 1024 })
        .tuning(Tuning::new().max_tokens(1025))
        .build()
        .is_ok());
    assert!(base().thinking(Thinking::Adaptive).effort("high").build().is_ok());
    assert!(base().effort(" ").build().is_err());
    assert!(base().tuning(Tuning::new().temperature(1.1)).build().is_err());
    assert!(base().beta("bad beta").build().is_err());
    assert!(Config::builder("claude").base_url("http://127.0.0.1:1").build().is_ok(), "a stand-in needs no key");
}

/// Issue 32 item 7: Anthropic documents extended thinking as incompatible
/// with changes to `temperature` or `top_k`, and `top_p` as limited to
/// [0.95, 1] while thinking; such a config is refused at build, with a
/// typed error, instead of failing at the API on every call.
#[test]
fn thinking_with_sampling_it_excludes_is_refused_at_build() {
    let thinking = |tuning: Tuning, mode: Thinking| {
        Config::builder("claude-sonnet-4-5").api_key(KEY).tuning(tuning.max_tokens(4096)).thinking(mode).build()
    };
    let enabled = Thinking::Enabled { budget_tokens: 2048 };
    for (tuning, what) in [
        (Tuning::new().temperature(0.2), "temperature"),
        (Tuning::new().temperature(0.0), "temperature"),
        (Tuning::new().top_k(40), "top_k"),
        (Tuning::new().top_p(0.9), "top_p"),
    ] {
        for mode in [enabled, Thinking::Adaptive] {
            let error = thinking(tuning.clone(), mode).unwrap_err();
            assert!(matches!(error, ConfigError::InvalidThinking { .. }), "{what} with {mode:?}: {error:?}");
            assert!(error.to_string().contains(what), "{error}");
        }
        assert!(thinking(tuning.clone(), Thinking::Disabled).is_ok(), "{what} without thinking");
        assert!(Config::builder("m").api_key(KEY).tuning(tuning).build().is_ok(), "{what} alone");
    }
    // What the API takes while thinking: temperature 1, top_p in [0.95, 1].
    assert!(thinking(Tuning::new().temperature(1.0).top_p(0.95), enabled).is_ok());
    assert!(thinking(Tuning::new().top_p(1.0), Thinking::Adaptive).is_ok());
}

#[test]
fn structured_output_and_effort_share_output_config() {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": false});
    let request =
        Request::new(vec![Message::user("q")]).with_output_schema(OutputSchema::new("Answer", schema.clone()));
    let sent = body(&codec_with(|b| b.thinking(Thinking::Adaptive).effort("low")), &request);
    assert_eq!(sent["output_config"], json!({"format": {"type": "json_schema", "schema": schema}, "effort": "low"}));
    assert_eq!(sent["thinking"], json!({"type": "adaptive"}));
    assert!(sent.get("effort").is_none(), "effort lives in output_config");
}

#[test]
fn cache_breakpoints_sit_on_the_system_and_on_the_previous_and_last_frontier() {
    let request = Request::new(vec![
        Message::system("Long instructions."),
        Message::user("first"),
        assistant("reply", vec![], vec![]),
        Message::user("second"),
    ]);
    let sent = body(&codec_with(|b| b.cache_control(CacheControl::new())), &request);
    let mark = json!({"type": "ephemeral"});
    assert_eq!(sent["system"], json!([{"type": "text", "text": "Long instructions.", "cache_control": mark}]));
    let messages = sent["messages"].as_array().unwrap();
    assert_eq!(messages[2]["content"], json!([{"type": "text", "text": "second", "cache_control": mark}]));
    assert_eq!(messages[0]["content"][0]["cache_control"], mark, "where the previous request ended");
    assert!(messages[1]["content"][0].get("cache_control").is_none());
    let hour = body(&codec_with(|b| b.cache_control(CacheControl::new().ttl(CacheTtl::OneHour))), &request);
    assert_eq!(hour["messages"][2]["content"][0]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
}

#[test]
fn usage_counts_cached_tokens_in_the_input() {
    let mut whole = message_body(json!([{"type": "text", "text": "hi"}]), "end_turn");
    whole["usage"] = json!({"input_tokens": 10, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200, "output_tokens": 7});
    let request = Request::new(vec![Message::user("hi")]);
    let response = codec().decode(&request, &ok(), whole.to_string().as_bytes()).unwrap();
    let usage = response.usage;
    assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens), (1210, 1000, 200));
    assert_eq!((usage.output_tokens, usage.uncached_input_tokens()), (7, 10));
}

#[test]
fn media_goes_as_image_and_document_blocks_and_audio_is_refused() {
    let png = Part::image_data("image/png", vec![0x89, b'P', b'N', b'G']);
    let pdf = Part::from_url(PartKind::Document, "https://example.com/a.pdf");
    let request = Request::new(vec![Message::user("look").with_parts(vec![
        Part::image_url("https://example.com/cat.jpg"),
        png,
        pdf,
    ])]);
    let content = body(&codec(), &request)["messages"][0]["content"].clone();
    assert_eq!(content[0], json!({"type": "text", "text": "look"}));
    assert_eq!(content[1], json!({"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}}));
    assert_eq!(
        content[2],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}})
    );
    assert_eq!(content[3], json!({"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}}));

    let mut chart = Message::tool_result("toolu_1", "chart", "here");
    chart.parts = vec![Part::image_data("image/gif", vec![1, 2, 3])];
    let request = Request::new(vec![
        Message::user("chart"),
        assistant("", vec![], vec![ToolCall::new("toolu_1", "chart", ToolArgs::new("{}"))]),
        chart,
    ]);
    let result = body(&codec(), &request)["messages"][2]["content"][0].clone();
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "here"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "AQID"}}]),
        "MM-04"
    );

    let audio = Request::new(vec![Message::user("listen").with_parts(vec![Part::from_data(
        PartKind::Audio,
        "audio/wav",
        vec![1],
    )])]);
    let error = codec().encode(&audio, false).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Unsupported);
    assert!(error.message.contains("message 0 part 0 (audio)"), "{}", error.message);
    let tiff = Request::new(vec![Message::user("x").with_parts(vec![Part::image_data("image/tiff", vec![1])])]);
    assert_eq!(codec().encode(&tiff, false).unwrap_err().kind, ModelErrorKind::Unsupported);
}

#[test]
fn thinking_from_another_family_is_dropped_and_unstamped_signed_blocks_are_replayed() {
    let blocks = vec![
        ThinkingBlock::text("gemini thought").with_signature("g-sig").with_provider("gemini"),
        ThinkingBlock::text("bedrock thought").with_signature("b-sig").with_provider("bedrock"),
        ThinkingBlock::text("go history").with_signature("go-sig"),
        ThinkingBlock::text("unsigned, unstamped"),
        ThinkingBlock::redacted("opaque"),
        ThinkingBlock::text("ours").with_signature("a-sig").with_provider("anthropic"),
    ];
    let request = Request::new(vec![Message::user("q"), assistant("a", blocks, vec![]), Message::user("more")]);
    let content = body(&codec(), &request)["messages"][1]["content"].clone();
    assert_eq!(
        content,
        json!([
            {"type": "thinking", "thinking": "go history", "signature": "go-sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "thinking", "thinking": "ours", "signature": "a-sig"},
            {"type": "text", "text": "a"},
        ]),
        "THINK-04"
    );
}

#[test]
fn a_stream_maps_block_indexes_to_kinds_and_ordinals() {
    let stream = [
        message_start(3),
        block_start(0, json!({"type": "redacted_thinking", "data": "R1"})),
        block_stop(0),
        block_start(1, json!({"type": "thinking", "thinking": "", "signature": ""})),
        block_delta(1, json!({"type": "thinking_delta", "thinking": "hmm"})),
        block_delta(1, json!({"type": "signature_delta", "signature": "S2"})),
        block_stop(1),
        block_start(2, json!({"type": "text", "text": ""})),
        block_delta(2, json!({"type": "text_delta", "text": "Hi"})),
        block_stop(2),
        block_start(3, json!({"type": "tool_use", "id": "toolu_9", "name": "weather", "input": {}})),
        block_delta(3, json!({"type": "input_json_delta", "partial_json": "{\"city\":"})),
        block_delta(3, json!({"type": "input_json_delta", "partial_json": "\"Oslo\"}"})),
        block_stop(3),
        message_delta("tool_use", 9),
        message_stop(),
    ]
    .concat();
    let request = Request::new(vec![Message::user("q")]);
    assert_split_invariant(&codec(), &request, &ok(), &stream, "hand-built");
    let (deltas, result) = run_stream(&codec(), &request, &ok(), [&stream]);
    let response = result.unwrap();
    assert_eq!(
        deltas[0],
        Delta::Thinking { index: 0, text: String::new(), signature: String::new(), redacted: "R1".into() }
    );
    assert_eq!(response.message.thinking[1].text, "hmm");
    assert_eq!(response.message.thinking[1].signature, "S2");
    assert_eq!(response.message.tool_calls[0].args.as_str(), r#"{"city":"Oslo"}"#);
    assert_eq!(
        (response.finish_reason, response.usage.input_tokens, response.usage.output_tokens),
        (FinishReason::ToolCall, 3, 9)
    );
}

#[test]
fn deltas_for_unknown_or_mismatched_blocks_are_decode_errors() {
    let request = Request::new(vec![Message::user("q")]);
    let cases = [
        ("an unknown index", vec![message_start(1), block_delta(4, json!({"type": "text_delta", "text": "x"}))]),
        (
            "the wrong kind",
            vec![
                message_start(1),
                block_start(0, json!({"type": "thinking", "thinking": ""})),
                block_delta(0, json!({"type": "text_delta", "text": "x"})),
            ],
        ),
        (
            "a start twice",
            vec![
                message_start(1),
                block_start(0, json!({"type": "text", "text": ""})),
                block_start(0, json!({"type": "text", "text": ""})),
            ],
        ),
        ("a huge index", vec![message_start(1), block_start(1 << 40, json!({"type": "text", "text": ""}))]),
    ];
    for (what, events) in cases {
        let (_, result) = run_stream(&codec(), &request, &ok(), [events.concat()]);
        let error = result.unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Decode, "{what}: {error}");
    }
}

#[test]
fn server_tool_blocks_are_skipped_and_a_plain_response_equals_its_stream() {
    let content = json!([
        {"type": "thinking", "thinking": "plan", "signature": "S"},
        {"type": "text", "text": "Looking it up."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Lima"}},
    ]);
    let request = Request::new(vec![Message::user("q")]);
    let plain =
        codec().decode(&request, &ok(), message_body(content.clone(), "tool_use").to_string().as_bytes()).unwrap();
    let (_, streamed) = run_stream(&codec(), &request, &ok(), [stream_of(&content, "tool_use")]);
    let streamed = streamed.unwrap();
    assert_eq!(streamed.message.content, plain.message.content);
    assert_eq!(streamed.message.thinking, plain.message.thinking);
    assert_eq!(streamed.message.tool_calls[0].args.parse().unwrap(), plain.message.tool_calls[0].args.parse().unwrap());

    let server = [
        message_start(1),
        block_start(0, json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}})),
        block_delta(0, json!({"type": "input_json_delta", "partial_json": "{\"query\":\"x\"}"})),
        block_stop(0),
        block_start(1, json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []})),
        block_stop(1),
        block_start(2, json!({"type": "text", "text": "Found."})),
        block_stop(2),
        message_delta("end_turn", 3),
        event(&json!({"type": "some_future_event"})),
        message_stop(),
    ]
    .concat();
    let response = run_stream(&codec(), &request, &ok(), [server]).1.unwrap();
    assert_eq!(response.message.content, "Found.");
    assert!(response.message.tool_calls.is_empty());
}

#[test]
fn stop_reasons_map_to_finish_reasons() {
    let request = Request::new(vec![Message::user("q")]);
    let cases = [
        ("end_turn", FinishReason::Stop),
        ("stop_sequence", FinishReason::Stop),
        ("max_tokens", FinishReason::Length),
        ("tool_use", FinishReason::ToolCall),
        ("refusal", FinishReason::ContentFilter),
        ("pause_turn", FinishReason::Other),
    ];
    for (reason, expected) in cases {
        let body = message_body(json!([{"type": "text", "text": "x"}]), reason).to_string();
        assert_eq!(codec().decode(&request, &ok(), body.as_bytes()).unwrap().finish_reason, expected, "{reason}");
    }
}

#[test]
fn calls_without_ids_get_deterministic_ones_and_odd_bodies_are_typed_errors() {
    let request = Request::new(vec![Message::user("q")]);
    let body = message_body(json!([{"type": "tool_use", "name": "weather", "input": null}]), "tool_use").to_string();
    let response = codec().decode(&request, &ok(), body.as_bytes()).unwrap();
    assert_eq!(response.message.tool_calls[0].id, "toolu_1_1");
    assert_eq!(response.message.tool_calls[0].args.as_str(), "{}");
    for (bad, retryable) in [(&b"[1, 2]"[..], false), (b"{\"type\": \"message\"}", false), (b"not json", true)] {
        let error = codec().decode(&request, &ok(), bad).unwrap_err();
        assert_eq!(
            (error.kind, error.retryable),
            (ModelErrorKind::Decode, retryable),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
    let overloaded = br#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
    let error = codec().decode(&request, &ok(), overloaded).unwrap_err();
    assert_eq!((error.kind, error.status, error.retryable), (ModelErrorKind::Api, Some(529), true));
}

/// TOOL-05: arguments that are not valid JSON at the end of a stream are
/// the tool's business (a correctable rejection), not a decode failure;
/// and what a failed stream assembled so far is its partial evidence.
#[test]
fn invalid_tool_input_passes_through_and_a_failed_stream_keeps_its_partial_message() {
    use golem_providers::codec::StreamDecoder;
    let request = Request::new(vec![Message::user("q")]);
    let stream = [
        message_start(1),
        block_start(0, json!({"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}})),
        block_delta(0, json!({"type": "input_json_delta", "partial_json": "{\"city\": "})),
        block_stop(0),
        message_delta("tool_use", 4),
        message_stop(),
    ]
    .concat();
    let response = run_stream(&codec(), &request, &ok(), [&stream]).1.unwrap();
    assert_eq!(response.message.tool_calls[0].args.as_str(), "{\"city\": ");

    let mut decoder = codec().stream_decoder(&request, &ok());
    decoder.feed(&[message_start(1), block_start(0, json!({"type": "text", "text": "Half an ans"}))].concat());
    while decoder.next_delta().is_some() {}
    decoder.feed(b"event: content_block_delta\ndata: {broken\n\n");
    let error = std::iter::from_fn(|| decoder.next_delta()).find_map(Result::err).unwrap();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, true));
    assert_eq!(decoder.partial().content, "Half an ans");
}

#[test]
fn from_env_reads_the_three_variables_and_a_stand_in_gets_no_key_header() {
    let vars = [("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080/"), ("ANTHROPIC_MODEL", "claude-haiku-4-5")];
    let lookup = |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string());
    let config = Config::from_env(lookup).unwrap();
    assert_eq!((config.model(), config.base_url()), ("claude-haiku-4-5", "http://127.0.0.1:8080"));
    let http = Codec::new(config).encode(&Request::new(vec![Message::user("hi")]), true).unwrap();
    assert_eq!(http.url, "http://127.0.0.1:8080/v1/messages");
    assert!(http.header("x-api-key").is_none());
    assert!(Config::from_env(|_| None).is_err(), "Anthropic's endpoint needs a key");
    let beta = codec_with(|b| b.beta("files-api-2025-04-14").beta("context-1m-2025-08-07"));
    let http = beta.encode(&Request::new(vec![Message::user("hi")]), false).unwrap();
    assert_eq!(http.header("anthropic-beta").unwrap().expose(), "files-api-2025-04-14,context-1m-2025-08-07");
}

#[test]
fn count_tokens_sends_what_counts_and_reads_input_tokens() {
    let request = Request::new(vec![Message::system("S"), Message::user("hi")]).with_tools(vec![weather()]);
    let codec = codec_with(|b| {
        b.tuning(Tuning::new().max_tokens(4096).temperature(1.0)).thinking(Thinking::Enabled { budget_tokens: 2048 })
    });
    let http = codec.encode_count_tokens(&request).unwrap();
    assert_eq!(http.url, "https://api.anthropic.com/v1/messages/count_tokens");
    let sent: Value = serde_json::from_slice(&http.body).unwrap();
    let mut fields: Vec<&str> = sent.as_object().unwrap().keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(fields, ["messages", "model", "system", "thinking", "tools"]);
    assert_eq!(codec.decode_count_tokens(&ok(), br#"{"input_tokens": 42}"#).unwrap(), 42);
    assert_eq!(codec.decode_count_tokens(&ok(), b"{}").unwrap_err().kind, ModelErrorKind::Decode);
    let denied = br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    assert_eq!(
        codec.decode_count_tokens(&HttpResponseHead::new(401, vec![]), denied).unwrap_err().kind,
        ModelErrorKind::Auth
    );
}

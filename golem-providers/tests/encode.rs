//! Request mapping beyond the recordings (SPEC PROV-OAI-02/03/04, MM-01..04,
//! OUT-08, THINK-03, HIST-06, PROV-COMMON-06), checked against golden
//! bodies and exact JSON.

use crate::support;

use bytes::Bytes;
use golem_core::message::{Message, Part, PartKind, Role, ThinkingBlock, ToolCall};
use golem_core::model::{ModelErrorKind, Request, WireToolChoice};
use golem_core::tool::ToolDefinition;
use golem_providers::chat_completions::{Dialect, IdRule, Tuning};
use golem_providers::codec::HttpCodec;
use golem_providers::openai::{Codec, Config, Preset};
use serde_json::{json, Value};
use std::sync::Arc;

fn codec(preset: Preset, tuning: Tuning) -> Codec {
    Codec::new(Config::builder(preset, "m").api_key("sk-encode-test").tuning(tuning).build().unwrap())
}

fn body(codec: &Codec, request: &Request, stream: bool) -> Value {
    serde_json::from_slice(&codec.encode(request, stream).unwrap().body).unwrap()
}

fn openai() -> Codec {
    codec(Preset::openai(), Tuning::new())
}

fn weather_tool() -> ToolDefinition {
    golem_core::tool::ToolDefinition::new(
        "weather",
        "Weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
}

fn part(kind: PartKind, media_type: &str, data: &[u8]) -> Part {
    {
        let mut part = golem_core::Part::from_url(kind, String::new());
        part.url = String::new();
        part.data = Bytes::copy_from_slice(data);
        part.media_type = media_type.into();
        part
    }
}

#[test]
fn unset_fields_stay_off_the_wire_and_set_ones_go_on() {
    let request = Request::new(vec![Message::user("hi")]);
    let plain = body(&openai(), &request, false);
    assert_eq!(plain, json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": false}));

    let tuning = Tuning::new()
        .temperature(0.0)
        .top_p(0.5)
        .max_tokens(100)
        .reasoning_effort("low")
        .parallel_tool_calls(false)
        .stop("END")
        .seed(7)
        .presence_penalty(-1.0)
        .frequency_penalty(0.5)
        .user("u1")
        .service_tier("flex");
    let tuned = body(&codec(Preset::openai(), tuning.clone()), &request, true);
    assert_eq!(
        tuned,
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
               "temperature": 0.0, "top_p": 0.5, "max_completion_tokens": 100, "reasoning_effort": "low",
               "stop": ["END"], "seed": 7, "presence_penalty": -1.0, "frequency_penalty": 0.5, "user": "u1",
               "service_tier": "flex", "stream": true, "stream_options": {"include_usage": true}}),
        "parallel_tool_calls needs tools to be sent"
    );
    let groq = body(&codec(Preset::groq(), tuning), &request, false);
    assert_eq!(groq["max_tokens"], json!(100), "compatible presets use max_tokens");
    assert!(groq.get("max_completion_tokens").is_none());
}

#[test]
fn tools_tool_choice_and_parallel_calls() {
    let mut request = Request::new(vec![Message::user("weather?")]);
    request.tools = Arc::new(vec![weather_tool()]);
    let tuning = Tuning::new().parallel_tool_calls(true);
    let no_choice = body(&codec(Preset::openai(), tuning), &request, false);
    assert_eq!(
        no_choice["tools"],
        json!([{"type": "function", "function": {"name": "weather", "description": "Weather for a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}])
    );
    assert_eq!(no_choice["parallel_tool_calls"], json!(true));
    assert!(no_choice.get("tool_choice").is_none(), "no tool choice unless forced (TOOL-11)");

    request.tool_choice = Some(WireToolChoice::Tool("weather".into()));
    assert_eq!(
        body(&openai(), &request, false)["tool_choice"],
        json!({"type": "function", "function": {"name": "weather"}})
    );
    request.tool_choice = Some(WireToolChoice::Auto);
    assert_eq!(body(&openai(), &request, false)["tool_choice"], json!("auto"));
    // Presets without a recorded tool_choice omit it (PROV-OAI-04).
    request.tool_choice = Some(WireToolChoice::Tool("weather".into()));
    assert!(body(&codec(Preset::groq(), Tuning::new()), &request, false).get("tool_choice").is_none());
    assert!(!Preset::groq().capabilities().forced_tool_choice);
    assert!(Preset::openai().capabilities().forced_tool_choice);
}

#[test]
fn assistant_turns_send_calls_as_json_strings_and_never_thinking() {
    let thinking = ThinkingBlock::text("secret reasoning").with_provider("openai");
    let calls = vec![
        ToolCall::new("call_1", "weather", r#"{"city": "Paris"}"#),
        ToolCall::new("call_2", "weather", ""),
        ToolCall::new("call_3", "weather", r#"{"city": "Par"#),
    ];
    let request = Request::new(vec![
        Message::user("q"),
        Message::assistant_calls(calls).with_thinking(vec![thinking]),
        Message::tool_result("call_1", "weather", "sunny"),
        {
            let mut message = Message::tool_result("call_2", "weather", "no such city");
            message.failed = true;
            message
        },
        Message::tool_result("call_3", "weather", ""),
        Message::assistant("Done."),
    ]);
    let json = body(&openai(), &request, false);
    assert_eq!(
        json["messages"],
        json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
                {"id": "call_3", "type": "function", "function": {"name": "weather", "arguments": "{\"truncated_args\":\"{\\\"city\\\": \\\"Par\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "call_2", "content": "{\"error\":\"no such city\"}"},
            {"role": "tool", "tool_call_id": "call_3", "content": ""},
            {"role": "assistant", "content": "Done."}
        ])
    );
    assert!(!String::from_utf8_lossy(&openai().encode(&request, false).unwrap().body).contains("secret reasoning"));
}

#[test]
fn stored_calls_without_ids_get_the_ids_decoding_would_give() {
    let request = Request::new(vec![
        Message::user("q"),
        Message::assistant("first"),
        Message::assistant_calls(vec![ToolCall::new("", "weather", "{}")]),
        Message::tool_result("call_2_1", "weather", "ok"),
    ]);
    let json = body(&openai(), &request, false);
    assert_eq!(json["messages"][2]["tool_calls"][0]["id"], json!("call_2_1"));
    let mut orphan = request.clone();
    orphan.messages_mut()[3].tool_call_id.clear();
    let error = openai().encode(&orphan, false).unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Encode, false));
}

#[test]
fn user_parts_follow_the_text_images_documents_and_audio() {
    let parts = vec![
        Part::image_url("https://example.com/cat.png"),
        Part::image_data("image/png", Bytes::from_static(b"PNG")),
        part(PartKind::Document, "application/pdf", b"%PDF"),
        part(PartKind::Audio, "audio/x-wav", b"RIFF"),
        part(PartKind::Audio, "audio/mpeg", b"ID3"),
    ];
    let request = Request::new(vec![
        Message::user("look").with_parts(parts.clone()),
        Message::user("").with_parts(parts[..1].to_vec()),
    ]);
    let json = body(&openai(), &request, false);
    assert_eq!(
        json["messages"][0]["content"],
        json!([
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,UE5H"}},
            {"type": "file", "file": {"filename": "doc-0-2.pdf", "file_data": "data:application/pdf;base64,JVBERg=="}},
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
            {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}}
        ])
    );
    assert_eq!(
        json["messages"][1]["content"],
        json!([{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}])
    );
}

#[test]
fn unsupported_parts_fail_before_any_request_naming_the_part_and_a_fix() {
    let cases = [
        (
            {
                let mut part = golem_core::Part::from_url(PartKind::Video, String::new());
                part.url = "https://x/v.mp4".into();
                part.data = Bytes::new();
                part.media_type = String::new();
                part
            },
            "video",
        ),
        (
            {
                let mut part = golem_core::Part::from_url(PartKind::Document, String::new());
                part.url = "https://x/d.pdf".into();
                part.data = Bytes::new();
                part.media_type = String::new();
                part
            },
            "inline only",
        ),
        (part(PartKind::Document, "text/csv", b"a,b"), "PDF"),
        (part(PartKind::Audio, "audio/ogg", b"Ogg"), "wav or mp3"),
    ];
    for (part, hint) in cases {
        let request = Request::new(vec![Message::user("x").with_parts(vec![part])]);
        let error = openai().encode(&request, false).unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Unsupported, false));
        assert!(error.message.contains("message 0 part 0"), "{}", error.message);
        assert!(error.message.contains(hint), "{}", error.message);
    }
    let invalid = {
        let mut part = golem_core::Part::from_url(PartKind::Image, String::new());
        part.url = String::new();
        part.data = Bytes::from_static(b"x");
        part.media_type = String::new();
        part
    };
    let error = openai().encode(&Request::new(vec![Message::user("x").with_parts(vec![invalid])]), false).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Encode);
    let system = Message::system("s").with_parts(vec![Part::image_url("https://x/i.png")]);
    assert_eq!(openai().encode(&Request::new(vec![system]), false).unwrap_err().kind, ModelErrorKind::Unsupported);
    let mut no_images = Dialect::FULL;
    no_images.images = false;
    let codec = Codec::new(Config::builder(Preset::openai(), "m").api_key("k-123").dialect(no_images).build().unwrap());
    let request = Request::new(vec![Message::user("x").with_parts(vec![Part::image_url("https://x/i.png")])]);
    assert_eq!(codec.encode(&request, false).unwrap_err().kind, ModelErrorKind::Unsupported);
}

#[test]
fn tool_result_media_goes_on_one_user_message_after_the_run_of_tool_messages() {
    let request = Request::new(vec![
        Message::user("charts please"),
        Message::assistant_calls(vec![
            ToolCall::new("c1", "chart", "{}"),
            ToolCall::new("c\"2", "plain", "{}"),
            ToolCall::new("c3", "chart", "{}"),
        ]),
        Message::tool_result("c1", "chart", "chart one").with_parts(vec![Part::image_url("https://x/1.png")]),
        Message::tool_result("c\"2", "plain", "no media"),
        Message::tool_result("c3", "chart", "chart three").with_parts(vec![
            Part::image_data("image/jpeg", Bytes::from_static(b"J")),
            part(PartKind::Document, "application/pdf", b"P"),
        ]),
        Message::assistant("Here they are."),
    ]);
    let json = body(&openai(), &request, false);
    let messages = json["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 7);
    assert_eq!(messages[2], json!({"role": "tool", "tool_call_id": "c1", "content": "chart one"}));
    assert_eq!(messages[4], json!({"role": "tool", "tool_call_id": "c3", "content": "chart three"}));
    assert_eq!(
        messages[5],
        json!({"role": "user", "content": [
            {"type": "text", "text": "<tool_result tool_name=\"chart\" tool_call_id=\"c1\">"},
            {"type": "image_url", "image_url": {"url": "https://x/1.png"}},
            {"type": "text", "text": "</tool_result>"},
            {"type": "text", "text": "<tool_result tool_name=\"chart\" tool_call_id=\"c3\">"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,Sg=="}},
            {"type": "file", "file": {"filename": "doc-4-1.pdf", "file_data": "data:application/pdf;base64,UA=="}},
            {"type": "text", "text": "</tool_result>"}
        ]})
    );
    assert_eq!(messages[6]["role"], json!("assistant"));
    // A run ending the request still gets its media message.
    let tail = Request::new(request.messages[..3].to_vec());
    let json = body(&openai(), &tail, false);
    assert_eq!(json["messages"].as_array().unwrap().last().unwrap()["role"], json!("user"));
}

#[test]
fn output_schemas_are_strict_only_when_every_object_qualifies() {
    let strict = json!({"type": "object", "additionalProperties": false, "required": ["items"],
        "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}},
        "$defs": {"Item": {"type": "object", "additionalProperties": false, "required": ["a", "b"],
            "properties": {"a": {"type": "string"}, "b": {"anyOf": [{"type": "null"}, {"type": "object",
                "properties": {}, "additionalProperties": false}]}}}}});
    let mut loose_nested = strict.clone();
    loose_nested["$defs"]["Item"]["required"] = json!(["a"]);
    let mut open_nested = strict.clone();
    open_nested["$defs"]["Item"]["properties"]["b"]["anyOf"][1]["additionalProperties"] = json!(true);
    let table = [
        (strict, true),
        (loose_nested, false),
        (open_nested, false),
        (json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}), false),
        (json!({"type": "string"}), false),
        // Not in the strict subset: oneOf, schemars' integer formats, defaults.
        (
            json!({"type": "object", "additionalProperties": false, "required": ["s"],
            "properties": {"s": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}),
            false,
        ),
        (
            json!({"type": "object", "additionalProperties": false, "required": ["n"],
            "properties": {"n": {"type": "integer", "format": "uint32", "minimum": 0}}}),
            false,
        ),
        (
            json!({"type": "object", "additionalProperties": false, "required": ["n"],
            "properties": {"n": {"type": "integer", "default": 3}}}),
            false,
        ),
        (
            json!({"type": "object", "additionalProperties": false, "required": ["at"],
            "properties": {"at": {"type": "string", "format": "date-time"}}}),
            true,
        ),
        (json!({"anyOf": [{"type": "object", "additionalProperties": false, "properties": {}}]}), false),
    ];
    for (schema, expected) in table {
        let mut request = Request::new(vec![Message::user("q")]);
        request.output_schema = Some(Arc::new(golem_core::model::OutputSchema::new("Forecast", schema.clone())));
        let json = body(&openai(), &request, false);
        assert_eq!(
            json["response_format"],
            json!({"type": "json_schema", "json_schema": {"name": "Forecast", "strict": expected, "schema": schema}})
        );
    }
    let mut unnamed = Request::new(vec![Message::user("q")]);
    unnamed.output_schema =
        Some(Arc::new(golem_core::model::OutputSchema::new(String::new(), json!({"type": "object"}))));
    assert_eq!(body(&openai(), &unnamed, false)["response_format"]["json_schema"]["name"], json!("output"));
}

#[test]
fn mistral_gets_stable_nine_character_ids_and_stored_ids_stay() {
    let request = Request::new(vec![
        Message::user("q"),
        Message::assistant_calls(vec![
            ToolCall::new("call_ZR5UUuTt3pf61kjwAJIYdVMj", "t", "{}"),
            ToolCall::new("abcDEF123", "t", "{}"),
        ]),
        Message::tool_result("call_ZR5UUuTt3pf61kjwAJIYdVMj", "t", "one"),
        Message::tool_result("abcDEF123", "t", "two"),
    ]);
    let mistral = codec(Preset::mistral(), Tuning::new());
    assert_eq!(Preset::mistral().dialect.id_rule, IdRule::Alphanumeric9);
    let json = body(&mistral, &request, false);
    let mapped = json["messages"][1]["tool_calls"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(mapped.len(), 9);
    assert!(mapped.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert_eq!(json["messages"][2]["tool_call_id"], json!(mapped));
    assert_eq!(json["messages"][1]["tool_calls"][1]["id"], json!("abcDEF123"));
    assert_eq!(json["messages"][3]["tool_call_id"], json!("abcDEF123"));
    assert_eq!(body(&mistral, &request, false), json, "deterministic");
    assert_eq!(request.messages[1].tool_calls[0].id, "call_ZR5UUuTt3pf61kjwAJIYdVMj");
    // Golden: the mapping is a wire contract across releases.
    assert_eq!(
        mapped,
        golem_providers::chat_completions::ids::wire_id("call_ZR5UUuTt3pf61kjwAJIYdVMj", IdRule::Alphanumeric9)
    );
    support::golden("mistral_ids", &json!({"call_ZR5UUuTt3pf61kjwAJIYdVMj": mapped}));
}

#[test]
fn features_a_preset_lacks_are_refused_not_dropped() {
    let mut dialect = Dialect::FULL;
    dialect.tools = false;
    dialect.json_schema = false;
    let codec = Codec::new(Config::builder(Preset::openai(), "m").api_key("k-123").dialect(dialect).build().unwrap());
    let mut with_tools = Request::new(vec![Message::user("q")]);
    with_tools.tools = Arc::new(vec![weather_tool()]);
    assert_eq!(codec.encode(&with_tools, false).unwrap_err().kind, ModelErrorKind::Unsupported);
    let mut with_schema = Request::new(vec![Message::user("q")]);
    with_schema.output_schema = Some(Arc::new(golem_core::model::OutputSchema::new("o", json!({"type": "object"}))));
    assert_eq!(codec.encode(&with_schema, false).unwrap_err().kind, ModelErrorKind::Unsupported);
    let mut no_usage = Dialect::FULL;
    no_usage.stream_usage = false;
    let codec = Codec::new(Config::builder(Preset::openai(), "m").api_key("k-123").dialect(no_usage).build().unwrap());
    assert!(body(&codec, &Request::new(vec![Message::user("q")]), true).get("stream_options").is_none());
}

#[test]
fn an_empty_assistant_turn_still_has_content_and_roles_map() {
    let request = Request::new(vec![Message::system("s"), Message::new(Role::Assistant), Message::user("")]);
    assert_eq!(
        body(&openai(), &request, false)["messages"],
        json!([{"role": "system", "content": "s"}, {"role": "assistant", "content": ""}, {"role": "user", "content": ""}])
    );
}

/// SPEC EXTRA-01: run and conversation ids are local evidence, never wire
/// data. Every message of a conversation stamped with ids encodes to the
/// same body as the unstamped conversation, for OpenAI presets and Azure.
#[test]
fn extra_01_run_and_conversation_ids_never_reach_the_wire() {
    let mut assistant = Message::assistant_calls(vec![ToolCall::new("call_1", "weather", r#"{"city":"Lagos"}"#)]);
    assistant.content = "Let me check.".into();
    let plain = vec![
        Message::system("Be brief."),
        Message::user("Weather in Lagos?"),
        assistant,
        Message::tool_result("call_1", "weather", "31C"),
        Message::assistant("Sunny, 31C."),
    ];
    let stamped: Vec<Message> = plain
        .iter()
        .cloned()
        .map(|mut m| {
            m.run_id = "0190b6a8-7c00-7000-8000-00000000aaaa".into();
            m.conversation_id = "0190b6a8-7c00-7000-8000-00000000bbbb".into();
            m
        })
        .collect();
    let request = |messages: Vec<Message>| {
        let mut request = Request::new(messages);
        request.tools = Arc::new(vec![weather_tool()]);
        request
    };
    let check = |name: &str, encode: &dyn Fn(&Request, bool) -> Vec<u8>| {
        for stream in [false, true] {
            let with_ids = encode(&request(stamped.clone()), stream);
            let without = encode(&request(plain.clone()), stream);
            assert_eq!(with_ids, without, "{name} stream={stream}");
            let text = String::from_utf8_lossy(&with_ids);
            assert!(!text.contains("0190b6a8") && !text.contains("unId") && !text.contains("onversation"), "{text}");
        }
    };
    for preset in Preset::all() {
        let codec = codec(preset, Tuning::new());
        check(preset.name, &|r, stream| codec.encode(r, stream).unwrap().body.to_vec());
    }
    let azure = golem_providers::azure::Codec::new(
        golem_providers::azure::Config::builder("https://x.openai.azure.com", "d", "2024-12-01-preview")
            .api_key("k-1234")
            .build()
            .unwrap(),
    );
    check("azure", &|r, stream| azure.encode(r, stream).unwrap().body.to_vec());
}

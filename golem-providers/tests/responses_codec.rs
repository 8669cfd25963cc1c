//! The Responses codec on what the recordings do not cover: the recorded
//! error bodies classified, the errors a 200 can carry (an `error` event,
//! `response.failed`, a failed body), streams that break the item rules,
//! and requests — tools and their strictness, forced tool choice, the
//! output schema, media, failed tool results, the thinking of other
//! families, Azure's URL and header, the settings.
//! SPEC PROV-RESP-01..04, PROV-COMMON-03/04/05, MM-01..04, THINK-04, ERR-06, STREAM-07/08.

use crate::responses::{codec, recorded, KEY};
use crate::support::run_stream;
use golem_core::message::{Message, Part, PartKind, ThinkingBlock, ToolCall};
use golem_core::model::{ModelErrorKind, OutputSchema, Request, WireToolChoice};
use golem_core::tool::ToolDefinition;
use golem_core::{Delta, FinishReason};
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::responses::{Codec, Config, Tuning, FAMILY};
use golem_providers::ConfigError;
use serde_json::{json, Value};
use std::sync::Arc;

fn hello() -> Request {
    Request::new(vec![Message::user("hi")])
}

fn body_of(codec: &Codec, request: &Request) -> Value {
    serde_json::from_slice(&codec.encode(request, false).unwrap().body).unwrap()
}

fn stream(events: &[Value]) -> Vec<u8> {
    events.iter().flat_map(|e| format!("data: {e}\n\n").into_bytes()).collect()
}

fn ok() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![("x-request-id".into(), "req_42".into())])
}

#[test]
fn recorded_error_bodies_are_classified_by_status_and_code() {
    let cases = [
        ("openai_responses_400_invalid_temperature", 400, "decimal_below_min_value", ModelErrorKind::Api),
        ("openai_responses_stream_400_model_not_found", 400, "model_not_found", ModelErrorKind::Api),
        ("openai_responses_400_context_length_exceeded", 400, "context_length_exceeded", ModelErrorKind::Api),
        ("openai_responses_401_invalid_api_key", 401, "invalid_api_key", ModelErrorKind::Auth),
    ];
    for (case, status, code, kind) in cases {
        let body = recorded(&format!("errors/{case}"), "01.response.json");
        let error = codec().decode(&hello(), &HttpResponseHead::new(status, vec![]), &body).unwrap_err();
        assert_eq!((error.kind, error.status, error.code.as_str(), error.retryable), (kind, Some(status), code, false));
        assert!(!error.message.is_empty(), "{case}");
    }
    let overflow = recorded("errors/openai_responses_400_context_length_exceeded", "01.response.json");
    assert!(codec()
        .decode(&hello(), &HttpResponseHead::new(400, vec![]), &overflow)
        .unwrap_err()
        .is_context_overflow());
    // The reasoning item replayed without its message: the API's words, not retried.
    let body = recorded("errors/openai_responses_400_reasoning_item_without_following_item", "02.response.json");
    let error = codec().decode(&hello(), &HttpResponseHead::new(400, vec![]), &body).unwrap_err();
    assert!(error.message.contains("without its required following item"), "{error}");
    assert!(!error.retryable);
}

#[test]
fn a_429_and_5xx_are_retryable_with_their_retry_after() {
    let body = br#"{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}"#;
    let head = HttpResponseHead::new(429, vec![("retry-after-ms".into(), "700".into())]);
    let error = codec().decode(&hello(), &head, body).unwrap_err();
    assert_eq!((error.retryable, error.retry_after), (true, Some(std::time::Duration::from_millis(700))));
    let error = codec().decode(&hello(), &HttpResponseHead::new(503, vec![]), b"<html>busy</html>").unwrap_err();
    assert_eq!((error.status, error.retryable), (Some(503), true));
    let quota = br#"{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}"#;
    assert!(!codec().decode(&hello(), &HttpResponseHead::new(429, vec![]), quota).unwrap_err().retryable);
}

#[test]
fn errors_inside_a_200_are_classified_by_their_code_and_carry_the_request_id() {
    let server_error =
        json!({"type": "error", "code": "server_error", "message": "The server had an error", "param": null});
    let failed = |code: &str| {
        json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed",
            "error": {"code": code, "message": "it failed"}, "output": []}})
    };
    for (event, retryable, code) in [
        (server_error, true, "server_error"),
        (failed("rate_limit_exceeded"), true, "rate_limit_exceeded"),
        (failed("invalid_prompt"), false, "invalid_prompt"),
        // A compatible server's error object, without a type.
        (json!({"error": {"message": "overloaded", "type": "server_error", "code": null}}), true, "server_error"),
    ] {
        let body = stream(&[json!({"type": "response.created", "response": {"status": "in_progress"}}), event]);
        let (_, result) = run_stream(&codec(), &hello(), &ok(), [&body]);
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable, error.code.as_str()), (ModelErrorKind::Api, retryable, code));
        assert_eq!(error.request_id, "req_42");
    }
    let body =
        json!({"id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "boom"}, "output": []});
    let error = codec().decode(&hello(), &ok(), body.to_string().as_bytes()).unwrap_err();
    assert_eq!((error.code.as_str(), error.retryable), ("server_error", true));
}

#[test]
fn the_key_never_reaches_an_error() {
    let body = format!(r#"{{"error": {{"message": "Incorrect API key provided: {KEY}", "code": "invalid_api_key"}}}}"#);
    let error = codec().decode(&hello(), &HttpResponseHead::new(401, vec![]), body.as_bytes()).unwrap_err();
    assert!(!format!("{error:?}").contains(KEY) && error.message.contains("[redacted]"), "{error:?}");
    let event = json!({"type": "error", "code": "server_error", "message": format!("echo {KEY}")});
    let (_, result) = run_stream(&codec(), &hello(), &ok(), [stream(&[event])]);
    assert!(!format!("{:?}", result.unwrap_err()).contains(KEY));
    let http = codec().encode(&hello(), true).unwrap();
    assert!(!format!("{http:?}").contains(KEY));
    assert_eq!(http.header("authorization").unwrap().expose(), format!("Bearer {KEY}"));
}

#[test]
fn streams_that_break_the_item_rules_are_decode_errors_not_panics() {
    let added = |at: u64, item: Value| json!({"type": "response.output_item.added", "output_index": at, "item": item});
    let call = json!({"type": "function_call", "call_id": "call_1", "name": "f", "arguments": ""});
    let cases = [
        vec![json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"})],
        vec![added(0, call.clone()), added(0, call.clone())],
        vec![
            added(0, json!({"type": "message"})),
            json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{"}),
        ],
        vec![added(4096, call.clone())],
        vec![json!({"type": "response.output_text.delta", "delta": "no index"})],
        vec![json!({"type": "response.output_item.done", "output_index": 0})],
    ];
    for events in cases {
        let (_, result) = run_stream(&codec(), &hello(), &ok(), [stream(&events)]);
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false), "{events:?}: {error}");
    }
    let (_, result) = run_stream(&codec(), &hello(), &ok(), [b"data: {\"type\": oops\n\n".as_slice()]);
    assert_eq!(result.unwrap_err().kind, ModelErrorKind::Decode);
    let error = codec().decode(&hello(), &ok(), br#"{"id": "resp_1", "status": "completed"}"#).unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false));
    assert!(codec().decode(&hello(), &ok(), b"{\"output\": [").unwrap_err().retryable);
}

#[test]
fn a_server_that_sends_items_whole_or_only_in_the_final_response_decodes_the_same() {
    let message = json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi"}]});
    let call = json!({"type": "function_call", "call_id": "call_9", "name": "f", "arguments": "{\"a\":1}"});
    let response = json!({"id": "resp_1", "status": "completed", "output": [message, call],
        "usage": {"input_tokens": 3, "output_tokens": 2}});
    let plain = codec().decode(&hello(), &ok(), response.to_string().as_bytes()).unwrap();
    let only_final = stream(&[json!({"type": "response.completed", "response": response})]);
    let (deltas, streamed) = run_stream(&codec(), &hello(), &ok(), [only_final]);
    assert_eq!(streamed.unwrap(), plain);
    assert!(deltas.contains(&Delta::text("Hi")));
    assert_eq!((plain.message.tool_calls[0].args.as_str(), plain.finish_reason), ("{\"a\":1}", FinishReason::ToolCall));
    // A call whose arguments never came is `{}` (SPEC HIST-06).
    let bare = json!({"type": "function_call", "call_id": "call_9", "name": "f"});
    let events = [
        json!({"type": "response.output_item.added", "output_index": 0, "item": bare}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ];
    let (_, result) = run_stream(&codec(), &hello(), &ok(), [stream(&events)]);
    assert_eq!(result.unwrap().message.tool_calls[0].args.as_str(), "{}");
}

#[test]
fn a_refusal_is_text_and_finishes_as_filtered() {
    let body = json!({"status": "completed", "output": [{"type": "message", "role": "assistant",
        "content": [{"type": "refusal", "refusal": "I can't help with that."}]}]});
    let response = codec().decode(&hello(), &ok(), body.to_string().as_bytes()).unwrap();
    assert_eq!(
        (response.message.content.as_str(), response.finish_reason),
        ("I can't help with that.", FinishReason::ContentFilter)
    );
}

#[test]
fn tools_are_strict_exactly_when_their_schema_qualifies_and_a_forced_choice_names_its_function() {
    let closed = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false});
    let open = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let mut request = hello();
    request.tools =
        Arc::new(vec![ToolDefinition::new("closed", "Closed.", closed), ToolDefinition::new("open", "", open)]);
    request.tool_choice = Some(WireToolChoice::Tool("open".into()));
    let codec =
        Codec::new(Config::builder("m").api_key("k").tuning(Tuning::new().parallel_tool_calls(false)).build().unwrap());
    let body = body_of(&codec, &request);
    assert_eq!(body["tools"][0]["strict"], true);
    assert_eq!(body["tools"][0]["description"], "Closed.");
    assert_eq!((&body["tools"][1]["strict"], body["tools"][1].get("description")), (&json!(false), None));
    assert_eq!(body["tool_choice"], json!({"type": "function", "name": "open"}));
    assert_eq!(body["parallel_tool_calls"], false);
    // Without tools, neither a choice nor parallel_tool_calls goes out.
    let mut bare = hello();
    bare.tool_choice = Some(WireToolChoice::Auto);
    let body = body_of(&codec, &bare);
    assert!(
        body.get("tool_choice").is_none() && body.get("parallel_tool_calls").is_none() && body.get("tools").is_none()
    );
}

#[test]
fn a_native_output_schema_is_text_format_json_schema() {
    let mut request = hello();
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false});
    request.output_schema = Some(Arc::new(OutputSchema::new("my::Count", schema.clone())));
    let body = body_of(&codec(), &request);
    assert_eq!(
        body["text"],
        json!({"format": {"type": "json_schema", "name": "my__Count", "schema": schema, "strict": true}})
    );
    request.output_schema = Some(Arc::new(OutputSchema::new("list", json!([1]))));
    assert_eq!(codec().encode(&request, false).unwrap_err().kind, ModelErrorKind::Encode);
}

#[test]
fn media_go_as_input_images_and_files_and_audio_is_refused_naming_the_part() {
    let mut user = Message::user("Look");
    user.parts = vec![
        Part::image_url("https://example.com/cat.png"),
        Part::image_data("image/png", vec![1, 2, 3]),
        Part::from_data(PartKind::Document, "application/pdf", vec![4, 5]),
        Part::from_url(PartKind::Document, "https://example.com/a.pdf"),
    ];
    let body = body_of(&codec(), &Request::new(vec![user]));
    assert_eq!(
        body["input"][0]["content"],
        json!([
            {"type": "input_text", "text": "Look"},
            {"type": "input_image", "image_url": "https://example.com/cat.png"},
            {"type": "input_image", "image_url": "data:image/png;base64,AQID"},
            {"type": "input_file", "filename": "doc-0-2.pdf", "file_data": "data:application/pdf;base64,BAU="},
            {"type": "input_file", "file_url": "https://example.com/a.pdf"},
        ])
    );
    let mut audio = Message::user("Listen");
    audio.parts = vec![Part::from_data(PartKind::Audio, "audio/wav", vec![0])];
    let error = codec().encode(&Request::new(vec![audio]), false).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Unsupported);
    assert!(error.message.contains("message 0 part 0 (audio)"), "{error}");
}

#[test]
fn tool_results_answer_their_call_failed_ones_as_errors_and_media_as_content() {
    let mut assistant =
        Message::assistant_calls(vec![ToolCall::new("call_1", "chart", "{}"), ToolCall::new("", "f", "")]);
    assistant.content = "Let me look.".into();
    let mut failed = Message::tool_result("call_1", "chart", "no data");
    failed.failed = true;
    let mut picture = Message::tool_result("call_1_2", "f", "see");
    picture.parts = vec![Part::image_url("https://example.com/c.png")];
    let body = body_of(&codec(), &Request::new(vec![Message::user("go"), assistant, failed, picture]));
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "Let me look."},
            {"type": "function_call", "call_id": "call_1", "name": "chart", "arguments": "{}"},
            {"type": "function_call", "call_id": "call_1_2", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "{\"error\":\"no data\"}"},
            {"type": "function_call_output", "call_id": "call_1_2", "output": [
                {"type": "input_text", "text": "see"},
                {"type": "input_image", "image_url": "https://example.com/c.png"}]},
        ])
    );
    let orphan = Message::tool_result("", "f", "x");
    assert_eq!(codec().encode(&Request::new(vec![orphan]), false).unwrap_err().kind, ModelErrorKind::Encode);
}

#[test]
fn only_this_familys_items_go_back_in_their_order_and_other_thinking_is_dropped() {
    let item = json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA-1"});
    let search = json!({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}});
    let mut assistant = Message::assistant("Sunny.");
    assistant.thinking = vec![
        ThinkingBlock::text("Plan.").with_signature(item.to_string()).with_provider(FAMILY),
        ThinkingBlock::text("More plan.").with_provider(FAMILY),
        ThinkingBlock::redacted(search.to_string()).with_provider(FAMILY),
        ThinkingBlock::text("Claude's").with_signature("sig-anthropic").with_provider("anthropic"),
        ThinkingBlock::text("DeepSeek's reasoning").with_provider("openai"),
        ThinkingBlock::text("loose text, nothing to carry it").with_provider(FAMILY),
        ThinkingBlock::redacted(json!({"type": "reasoning", "encrypted_content": "gAAA-2"}).to_string()),
    ];
    let body = body_of(&codec(), &Request::new(vec![Message::user("weather?"), assistant]));
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": "weather?"},
            {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA-1",
             "summary": [{"type": "summary_text", "text": "Plan."}, {"type": "summary_text", "text": "More plan."}]},
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
            {"type": "reasoning", "encrypted_content": "gAAA-2", "summary": []},
            {"role": "assistant", "content": "Sunny."},
        ])
    );
}

#[test]
fn settings_go_where_the_api_reads_them_and_what_it_lacks_is_refused_at_build() {
    let tuning = Tuning::new()
        .temperature(0.3)
        .top_p(0.9)
        .max_output_tokens(512)
        .reasoning_effort("high")
        .reasoning_summary("detailed")
        .truncation("auto")
        .service_tier("flex")
        .safety_identifier("user-7");
    let codec = Codec::new(
        Config::builder("gpt-5").api_key("k").tuning(tuning).store(true).encrypted_reasoning(false).build().unwrap(),
    );
    let body = body_of(&codec, &hello());
    for (field, value) in [
        ("temperature", json!(0.3)),
        ("top_p", json!(0.9)),
        ("max_output_tokens", json!(512)),
        ("reasoning", json!({"effort": "high", "summary": "detailed"})),
        ("truncation", json!("auto")),
        ("service_tier", json!("flex")),
        ("safety_identifier", json!("user-7")),
        ("store", json!(true)),
    ] {
        assert_eq!(body[field], value, "{field}");
    }
    assert!(body.get("include").is_none());
    for refused in [Tuning::new().stop("END"), Tuning::new().seed(7), Tuning::new().top_k(3)] {
        let error = Config::builder("m").api_key("k").tuning(refused).build().unwrap_err();
        assert!(matches!(error, ConfigError::InvalidTuning(_)), "{error}");
    }
}

#[test]
fn azure_gets_its_v1_url_and_api_key_header_or_a_bearer_token() {
    let config = Config::builder("gpt-5-nano")
        .azure_endpoint("https://res.openai.azure.com/")
        .api_key("az-key")
        .build()
        .unwrap();
    let http = Codec::new(config).encode(&hello(), false).unwrap();
    assert_eq!(http.url, "https://res.openai.azure.com/openai/v1/responses");
    assert_eq!(http.header("api-key").unwrap().expose(), "az-key");
    assert!(http.header("authorization").is_none());
    let body: Value = serde_json::from_slice(&http.body).unwrap();
    assert_eq!(body["model"], "gpt-5-nano", "the deployment goes in the body");
    let entra = Config::builder("d")
        .azure_endpoint("https://res.services.ai.azure.com/openai/v1")
        .bearer_token("tok")
        .build()
        .unwrap();
    let http = Codec::new(entra).encode(&hello(), false).unwrap();
    assert_eq!(http.url, "https://res.services.ai.azure.com/openai/v1/responses");
    assert_eq!(http.header("authorization").unwrap().expose(), "Bearer tok");
    let error = Config::builder("d").azure_endpoint("https://res.openai.azure.com").build().unwrap_err();
    assert_eq!(error.to_string(), "Azure OpenAI Responses needs an API key or bearer token");
    // A compatible server decides about keys; OpenAI itself needs one.
    assert!(Config::builder("gpt-oss").base_url("http://localhost:8000/v1").build().is_ok());
    assert!(Config::builder("gpt-5").build().is_err());
}

/// `chain_responses`: a history that continues an answer this codec
/// decoded (plain or streamed) sends its id and what follows; any other
/// history goes whole.
#[test]
fn a_chained_codec_continues_its_own_answers_and_sends_any_other_history_whole() {
    let config = Config::builder("gpt-5").api_key("k").chain_responses(true).build().unwrap();
    assert!(config.store());
    let chained = Codec::new(config);
    let call = json!({"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"});
    let answer = json!({"id": "resp_A", "status": "completed", "output": [call]});
    for streamed in [false, true] {
        let codec = chained.clone();
        let first = hello();
        let response = if streamed {
            let body = stream(&[json!({"type": "response.completed", "response": answer})]);
            run_stream(&codec, &first, &ok(), [body]).1.unwrap()
        } else {
            codec.decode(&first, &ok(), answer.to_string().as_bytes()).unwrap()
        };
        // What a run keeps is stamped with its ids: they do not count.
        let mut kept = response.message.clone();
        kept.run_id = golem_core::Id::from("run-1");
        let next = Request::new(vec![Message::user("hi"), kept, Message::tool_result("call_1", "f", "42")]);
        let body = body_of(&codec, &next);
        assert_eq!(body["previous_response_id"], "resp_A", "streamed: {streamed}");
        assert_eq!(body["input"], json!([{"type": "function_call_output", "call_id": "call_1", "output": "42"}]));
        assert_eq!(body["store"], true);
        // Another history — an edited first message — goes whole.
        let edited = Request::new(vec![
            Message::user("hello"),
            response.message.clone(),
            Message::tool_result("call_1", "f", "42"),
        ]);
        let body = body_of(&codec, &edited);
        assert!(body.get("previous_response_id").is_none());
        assert_eq!(body["input"].as_array().unwrap().len(), 3);
    }
    // Without chaining nothing is remembered.
    let plain = codec();
    let response = plain.decode(&hello(), &ok(), answer.to_string().as_bytes()).unwrap();
    let next = Request::new(vec![Message::user("hi"), response.message, Message::tool_result("call_1", "f", "42")]);
    assert!(body_of(&plain, &next).get("previous_response_id").is_none());
}

/// An open model on a compatible server (gpt-oss on vLLM) reasons in
/// `reasoning_text` content with no summary: that text is shown, and the
/// item goes back as it came, its content inside, no summary made up.
#[test]
fn reasoning_text_content_is_shown_and_goes_back_in_the_item_not_as_a_summary() {
    let item = json!({"type": "reasoning", "id": "rs_9", "summary": [],
        "content": [{"type": "reasoning_text", "text": "The user greets; greet back."}]});
    let message =
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello!"}]});
    let response = json!({"id": "resp_9", "status": "completed", "output": [item, message]});
    let plain = codec().decode(&hello(), &ok(), response.to_string().as_bytes()).unwrap();
    let added = |at: u64, item: &Value| json!({"type": "response.output_item.added", "output_index": at, "item": item});
    let events = [
        added(0, &json!({"type": "reasoning", "id": "rs_9", "summary": [], "content": []})),
        json!({"type": "response.reasoning_text.delta", "output_index": 0, "content_index": 0, "delta": "The user greets; "}),
        json!({"type": "response.reasoning_text.delta", "output_index": 0, "content_index": 0, "delta": "greet back."}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": response["output"][0]}),
        added(1, &json!({"type": "message", "role": "assistant", "content": []})),
        json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "Hello!"}),
        json!({"type": "response.completed", "response": response}),
    ];
    let (_, streamed) = run_stream(&codec(), &hello(), &ok(), [stream(&events)]);
    assert_eq!(streamed.unwrap(), plain);
    let thinking = &plain.message.thinking;
    assert_eq!((thinking.len(), thinking[0].text.as_str()), (1, "The user greets; greet back."));
    let next = Request::new(vec![Message::user("hi"), plain.message.clone(), Message::user("and?")]);
    let body = body_of(&codec(), &next);
    assert_eq!(body["input"][1], response["output"][0], "the item as it came");
    assert_eq!(body["input"][2], response["output"][1], "the message item as it came");
}

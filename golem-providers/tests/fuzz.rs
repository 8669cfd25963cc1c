//! Fuzz-style properties (SPEC ARCH-02): no input makes the SSE decoder,
//! the stream decoder or the response decoder panic, and the stream decoder
//! gives the same outcome for any chunking of the same bytes (STREAM-06).

use crate::support;

use golem_core::model::Request;
use golem_core::Message;
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Codec, Config, Preset};
use proptest::prelude::*;
use support::{run_stream, split_at};

fn codec() -> Codec {
    Codec::new(Config::builder(Preset::openai(), "m").api_key("sk-fuzz-key").build().unwrap())
}

/// Bytes that look like a chat stream often enough to reach deep states.
fn streamish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"data: [DONE]\n\n".to_vec()),
        Just(br#"{"choices":[{"index":0,"delta":{"content":"hi"}}]}"#.to_vec()),
        Just(br#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"id":"c","function":{"name":"t","arguments":"{"}}]}}]}"#.to_vec()),
        Just(br#"{"choices":[{"index":0,"delta":{"reasoning":"r"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}"#.to_vec()),
        Just(br#"{"error":{"message":"x","code":429}}"#.to_vec()),
        Just(br#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":1e400}}]}}]}"#.to_vec()),
        proptest::collection::vec(any::<u8>(), 0..12),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_stream_decoder_never_panics_and_ignores_chunking(body in streamish(), cuts in proptest::collection::vec(0usize..2000, 0..6)) {
        let request = Request::new(vec![Message::user("x")]);
        let head = HttpResponseHead::new(200, vec![]);
        let whole = run_stream(&codec(), &request, &head, [&body]);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(body.len())).collect();
        cuts.sort_unstable();
        let split = run_stream(&codec(), &request, &head, split_at(&body, &cuts));
        prop_assert_eq!(split.0, whole.0);
        prop_assert_eq!(split.1, whole.1);
    }

    #[test]
    fn random_bytes_never_panic_any_decoder(body in proptest::collection::vec(any::<u8>(), 0..1500), status in 100u16..600) {
        let request = Request::new(vec![Message::user("x")]);
        let head = HttpResponseHead::new(status, vec![("retry-after".into(), String::from_utf8_lossy(&body[..body.len().min(40)]).into_owned())]);
        let _ = codec().decode(&request, &head, &body);
        let _ = run_stream(&codec(), &request, &HttpResponseHead::new(200, vec![]), body.chunks(5));
    }

    #[test]
    fn json_shaped_garbage_never_panics_the_body_decoder(body in streamish()) {
        let request = Request::new(vec![]);
        let _ = codec().decode(&request, &HttpResponseHead::new(200, vec![]), &body[body.len().min(6)..]);
    }
}

/// Any JSON value a field might wrongly hold.
fn odd_value() -> BoxedStrategy<serde_json::Value> {
    use serde_json::json;
    prop_oneof![
        Just(json!(7)),
        Just(json!(-1)),
        Just(json!(1.5)),
        Just(json!(true)),
        Just(json!({})),
        Just(json!({"a": 1})),
        Just(json!([])),
        Just(json!(["x"])),
        Just(json!("text")),
    ]
    .boxed()
}

/// Mostly `good`, sometimes null, now and then of the wrong type.
fn typed(good: BoxedStrategy<serde_json::Value>) -> BoxedStrategy<serde_json::Value> {
    prop_oneof![12 => good, 2 => Just(serde_json::Value::Null), 1 => odd_value()].boxed()
}

/// Strings a field of text holds, empty and escaped ones included.
fn text() -> BoxedStrategy<serde_json::Value> {
    let words = ["hi", "", "  ", "line\nwith \"escapes\" \u{e9}", "text", "function", "{\"a\":1}"];
    proptest::sample::select(words.to_vec()).prop_map(serde_json::Value::from).boxed()
}

fn count() -> BoxedStrategy<serde_json::Value> {
    (0u64..1000).prop_map(serde_json::Value::from).boxed()
}

/// An object with some of `fields`, each from its own strategy.
fn object_of(fields: Vec<(&'static str, BoxedStrategy<serde_json::Value>)>) -> BoxedStrategy<serde_json::Value> {
    let (names, values): (Vec<_>, Vec<_>) = fields.into_iter().map(|(k, v)| (k, proptest::option::of(v))).unzip();
    values
        .prop_map(move |values| {
            let map = names.iter().zip(values).filter_map(|(k, v)| Some(((*k).to_string(), v?))).collect();
            serde_json::Value::Object(map)
        })
        .boxed()
}

/// An array of up to two items; sometimes null or of another type.
fn array_of(item: BoxedStrategy<serde_json::Value>) -> BoxedStrategy<serde_json::Value> {
    typed(proptest::collection::vec(item, 0..3).prop_map(serde_json::Value::Array).boxed())
}

fn finish_reasons() -> BoxedStrategy<serde_json::Value> {
    let finish = ["stop", "length", "tool_calls", "function_call", "content_filter", "other"];
    proptest::sample::select(finish.to_vec()).prop_map(serde_json::Value::from).boxed()
}

/// A response message or a chunk delta; each call is a `call`.
fn message_of(call: BoxedStrategy<serde_json::Value>) -> BoxedStrategy<serde_json::Value> {
    use serde_json::Value;
    let kind = prop_oneof![text(), Just(Value::from("function")), Just(Value::from("text"))].boxed();
    let part = object_of(vec![("type", typed(kind)), ("text", typed(text()))]);
    object_of(vec![
        ("role", typed(text())),
        ("reasoning_content", typed(text())),
        ("reasoning", typed(text())),
        ("content", prop_oneof![typed(text()), array_of(part)].boxed()),
        ("refusal", typed(text())),
        ("tool_calls", array_of(call)),
        ("function_call", typed(function())),
    ])
}

fn function() -> BoxedStrategy<serde_json::Value> {
    object_of(vec![("name", typed(text())), ("arguments", typed(text()))])
}

/// A tool call; `extra` adds fields (a stream fragment's index).
fn call_with(extra: Vec<(&'static str, BoxedStrategy<serde_json::Value>)>) -> BoxedStrategy<serde_json::Value> {
    use serde_json::Value;
    let ids = prop_oneof![text(), proptest::sample::select(vec!["call_a", "call_b"]).prop_map(Value::from)].boxed();
    let kind = prop_oneof![Just(Value::from("function")), text()].boxed();
    let mut fields = vec![("id", typed(ids)), ("type", typed(kind)), ("function", typed(function()))];
    fields.extend(extra);
    object_of(fields)
}

/// Chat Completions response bodies with every field mostly right, and
/// sometimes absent, null or of the wrong type.
fn responseish() -> impl Strategy<Value = Vec<u8>> {
    let message = message_of(call_with(vec![]));
    let usage = object_of(vec![
        ("prompt_tokens", typed(count())),
        ("completion_tokens", typed(count())),
        ("prompt_tokens_details", typed(object_of(vec![("cached_tokens", typed(count()))]))),
        ("completion_tokens_details", typed(object_of(vec![("reasoning_tokens", typed(count()))]))),
        ("prompt_cache_hit_tokens", typed(count())),
    ]);
    let choice =
        object_of(vec![("index", count()), ("message", typed(message)), ("finish_reason", typed(finish_reasons()))]);
    let error = object_of(vec![("message", text())]);
    object_of(vec![("choices", array_of(choice)), ("usage", typed(usage)), ("error", typed(error))])
        .prop_map(|body| serde_json::to_vec(&body).unwrap())
}

/// Chat Completions streams of chunks whose every field is mostly right,
/// and sometimes absent, null or of the wrong type.
fn chunkish() -> impl Strategy<Value = Vec<u8>> {
    use serde_json::Value;
    let index = prop_oneof![(0u64..3).prop_map(Value::from), Just(Value::from(5_000_000_000u64))].boxed();
    let delta = message_of(call_with(vec![("index", typed(index.clone()))]));
    let usage = object_of(vec![
        ("prompt_tokens", typed(count())),
        ("completion_tokens", typed(count())),
        ("prompt_tokens_details", typed(object_of(vec![("cached_tokens", typed(count()))]))),
    ]);
    let choice =
        object_of(vec![("index", typed(index)), ("delta", typed(delta)), ("finish_reason", typed(finish_reasons()))]);
    let error = object_of(vec![("message", text())]);
    let chunk = (
        object_of(vec![("id", text()), ("choices", array_of(choice)), ("usage", typed(usage))]),
        proptest::option::weighted(0.05, typed(error)),
    )
        .prop_map(|(mut chunk, error)| {
            if let (Value::Object(map), Some(error)) = (&mut chunk, error) {
                map.insert("error".into(), error);
            }
            chunk
        });
    (proptest::collection::vec(chunk, 0..6), any::<bool>()).prop_map(|(chunks, done)| {
        let mut body: Vec<u8> = chunks.iter().flat_map(|c| format!("data: {c}\n\n").into_bytes()).collect();
        if done {
            body.extend_from_slice(b"data: [DONE]\n\n");
        }
        body
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// The typed fast path of the body decoder agrees with the lenient
    /// `Value` path on every body it accepts (issue 20), however the fields
    /// are typed.
    #[test]
    fn the_fast_body_decoder_agrees_with_the_lenient_one(body in responseish()) {
        let mut data = vec![0];
        data.extend_from_slice(&body);
        golem_providers::fuzzing::chat_response(&data);
    }

    /// The typed chunk view of the stream decoder agrees with the lenient
    /// `Value` path, whole and cut anywhere (issue 20).
    #[test]
    fn the_fast_chunk_decoder_agrees_with_the_lenient_one(body in chunkish(), cut in any::<u8>()) {
        let mut data = vec![cut];
        data.extend_from_slice(&body);
        golem_providers::fuzzing::chat_stream(&data);
    }
}

proptest! {
    /// The bodies of the crate's fuzz entry points, run by `cargo test`.
    #[test]
    fn fuzz_entry_points_hold(data in proptest::collection::vec(any::<u8>(), 0..600), shaped in streamish()) {
        golem_providers::fuzzing::sse(&data);
        golem_providers::fuzzing::chat_stream(&data);
        golem_providers::fuzzing::chat_response(&data);
        golem_providers::fuzzing::http_date(&data);
        let mut seeded = vec![shaped.len().min(255) as u8 / 2];
        seeded.extend_from_slice(&shaped);
        golem_providers::fuzzing::sse(&seeded);
        golem_providers::fuzzing::chat_stream(&seeded);
        golem_providers::fuzzing::chat_response(&seeded);
        golem_providers::fuzzing::eventstream(&data);
        golem_providers::fuzzing::bedrock_stream(&data);
        golem_providers::fuzzing::bedrock_events(&data);
        golem_providers::fuzzing::bedrock_response(&data);
        golem_providers::fuzzing::embeddings(&data);
    }

    /// Bedrock event lines shaped like real ones, through the structured
    /// entry point (frames with valid checksums).
    #[test]
    fn bedrock_event_lines_hold(lines in proptest::collection::vec(bedrock_line(), 0..16), cut in any::<u8>()) {
        let mut data = vec![cut];
        data.extend_from_slice(lines.join("\n").as_bytes());
        golem_providers::fuzzing::bedrock_events(&data);
    }
}

fn bedrock_line() -> impl Strategy<Value = String> {
    let index = 0u32..4;
    prop_oneof![
        index.clone().prop_map(|i| format!(r#"contentBlockDelta {{"contentBlockIndex":{i},"delta":{{"text":"t"}}}}"#)),
        index.clone().prop_map(|i| format!(r#"contentBlockDelta {{"contentBlockIndex":{i},"delta":{{"reasoningContent":{{"text":"r","signature":"s"}}}}}}"#)),
        index.clone().prop_map(|i| format!(r#"contentBlockDelta {{"contentBlockIndex":{i},"delta":{{"reasoningContent":{{"redactedContent":"QQ=="}}}}}}"#)),
        index.clone().prop_map(|i| format!(r#"contentBlockStart {{"contentBlockIndex":{i},"start":{{"toolUse":{{"toolUseId":"t{i}","name":"f"}}}}}}"#)),
        index.clone().prop_map(|i| format!(r#"contentBlockDelta {{"contentBlockIndex":{i},"delta":{{"toolUse":{{"input":"{{}}"}}}}}}"#)),
        index.prop_map(|i| format!(r#"contentBlockStop {{"contentBlockIndex":{i}}}"#)),
        Just(r#"messageStop {"stopReason":"end_turn"}"#.to_string()),
        Just(r#"metadata {"usage":{"inputTokens":1,"outputTokens":2}}"#.to_string()),
        Just(r#"!throttlingException {"message":"slow"}"#.to_string()),
        Just("messageStart {".to_string()),
        "[a-zA-Z]{0,12} \\{.{0,20}",
    ]
}

/// Bytes that look like a Responses API stream often enough to reach the
/// item rules (issue 35).
fn responses_streamish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(br#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"f"}}"#.to_vec()),
        Just(br#"{"type":"response.output_item.added","output_index":1,"item":{"type":"reasoning","id":"rs_1"}}"#.to_vec()),
        Just(br#"{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\":"}"#.to_vec()),
        Just(br#"{"type":"response.reasoning_summary_text.delta","output_index":1,"summary_index":2,"delta":"think"}"#.to_vec()),
        Just(br#"{"type":"response.output_text.delta","output_index":2,"delta":"hi"}"#.to_vec()),
        Just(br#"{"type":"response.output_item.done","output_index":1,"item":{"type":"reasoning","id":"rs_1","encrypted_content":"e","summary":[]}}"#.to_vec()),
        Just(br#"{"type":"response.completed","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#.to_vec()),
        Just(br#"{"type":"error","code":"server_error","message":"x"}"#.to_vec()),
        proptest::collection::vec(any::<u8>(), 0..12),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_responses_decoders_never_panic_and_ignore_chunking(body in responses_streamish(), cut in any::<u8>()) {
        let mut data = vec![cut];
        data.extend_from_slice(&body);
        golem_providers::fuzzing::responses_stream(&data);
        golem_providers::fuzzing::responses_response(&data);
    }
}

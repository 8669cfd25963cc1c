//! Codec benchmarks (issue 5, 14, 12): SSE decode throughput, full Chat
//! Completions, Bedrock ConverseStream, Gemini and Anthropic stream decoding
//! side by side, and request encoding for histories of 10, 100 and 1000 messages
//! (cost must grow linearly), for each codec; and whole-response decoding
//! next to a hand-written parse (`response_decode`).
//!
//! The stream bodies are built from the recorded OpenAI chunks in
//! `tests/fixtures/recorded/openai` (a fixed synthetic chunk stands in when
//! the fixtures are absent), repeated to a few MiB and fed in 16 KiB pieces,
//! as a transport would. The Bedrock stream repeats the text frames of the
//! recorded ConverseStream bodies in `tests/fixtures/recorded/bedrock`,
//! the Gemini stream the text chunks of `tests/fixtures/recorded/gemini`,
//! the Anthropic stream the `text_delta` events of
//! `tests/fixtures/recorded/anthropic` (moved to one text block).
//!
//! `history_turn_encode` measures what an agent run pays per model call:
//! encoding turn N of a growing conversation through a codec that encoded
//! turn N-1 just before (an assistant tool call and its result appended),
//! next to the hand-written loop's cost of serialising the same history kept
//! as a `Vec<serde_json::Value>` (issue 20).
//!
//! Run with `cargo bench -p golem-providers --bench codec`.

use criterion::{black_box, criterion_main, BenchmarkId, Criterion, Throughput};
use golem_core::message::{Message, ToolCall};
use golem_core::model::Request;
use golem_core::tool::ToolDefinition;
use golem_providers::codec::{HttpCodec, StreamDecoder};
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Codec, Config, Preset};
use golem_providers::sse::SseDecoder;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

const CHUNK: usize = 16 * 1024;

/// The `data:` events of every recorded OpenAI stream except `[DONE]`.
fn recorded_events() -> Vec<String> {
    let fallback = "data: {\"id\":\"chatcmpl-x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello there\"},\"finish_reason\":null}],\"usage\":null}\n\n";
    recorded_sse_events("openai", |e| e.starts_with("data: {") && e.contains("chat.completion.chunk"), fallback)
}

/// The events of the recorded `.sse` bodies of `provider` that `keep`
/// accepts, sorted; `fallback` alone when the fixtures are absent.
fn recorded_sse_events(provider: &str, keep: impl Fn(&str) -> bool, fallback: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded").join(provider);
    let mut events = Vec::new();
    for case in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(case.path()).into_iter().flatten().flatten() {
            if file.path().extension().is_some_and(|e| e == "sse") {
                let text = std::fs::read_to_string(file.path()).unwrap_or_default();
                events.extend(text.split("\n\n").filter(|e| keep(e)).map(|e| format!("{e}\n\n")));
            }
        }
    }
    if events.is_empty() {
        events.push(fallback.to_string());
    }
    events.sort();
    events
}

/// A body of about `size` bytes made of recorded events.
fn sse_body(size: usize) -> Vec<u8> {
    let events = recorded_events();
    let mut body = Vec::with_capacity(size + 4096);
    while body.len() < size {
        for event in &events {
            body.extend_from_slice(event.as_bytes());
        }
    }
    body
}

/// A stream the Chat Completions decoder accepts in full: recorded text
/// deltas repeated, then a finish chunk and `[DONE]`.
fn chat_body(size: usize) -> Vec<u8> {
    let text_events: Vec<String> =
        recorded_events().into_iter().filter(|e| e.contains("\"content\":\"") && !e.contains("tool_calls")).collect();
    let mut body = Vec::with_capacity(size + 4096);
    while body.len() < size {
        for event in &text_events {
            body.extend_from_slice(event.as_bytes());
        }
    }
    body.extend_from_slice(
        b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    );
    body
}

fn sse_decode(c: &mut Criterion) {
    let body = sse_body(8 << 20);
    let mut group = c.benchmark_group("sse_decode");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.sample_size(20);
    group.bench_function("recorded_chunks_8MiB", |b| {
        b.iter(|| {
            let mut decoder = SseDecoder::new();
            let mut events = 0usize;
            for piece in body.chunks(CHUNK) {
                decoder.feed(piece);
                while let Some(event) = decoder.next() {
                    events += black_box(event.unwrap()).data.len();
                }
            }
            decoder.finish();
            while decoder.next().is_some() {}
            events
        })
    });
    group.finish();
}

/// Decode `body` as one streamed response, fed in transport-sized pieces.
fn decode_stream<C: HttpCodec>(codec: &C, body: &[u8]) -> golem_core::model::Response {
    let request = Request::new(vec![Message::user("hi")]);
    let mut decoder = codec.stream_decoder(&request, &HttpResponseHead::new(200, vec![]));
    for piece in body.chunks(CHUNK) {
        decoder.feed(piece);
        while let Some(delta) = decoder.next_delta() {
            black_box(delta.unwrap());
        }
    }
    decoder.end();
    while decoder.next_delta().is_some() {}
    decoder.finish().unwrap()
}

/// A stream-decoding benchmark group: `body` through `codec`, throughput
/// in bytes.
fn stream_group<C: HttpCodec>(c: &mut Criterion, group: &str, name: &str, codec: &C, body: &[u8]) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.sample_size(10);
    group.bench_function(name, |b| b.iter(|| decode_stream(codec, body)));
    group.finish();
}

fn chat_stream_decode(c: &mut Criterion) {
    let codec = Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap());
    stream_group(c, "chat_stream_decode", "recorded_text_chunks_2MiB", &codec, &chat_body(2 << 20));
}

/// The text-delta frames of the recorded ConverseStream bodies (a built
/// frame stands in when the fixtures are absent).
fn bedrock_text_frames() -> Vec<Vec<u8>> {
    use golem_providers::eventstream::FrameDecoder;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded/bedrock");
    let mut frames = Vec::new();
    for case in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(case.path()).into_iter().flatten().flatten() {
            if file.path().extension().is_some_and(|e| e == "bin") {
                let body = std::fs::read(file.path()).unwrap_or_default();
                let mut decoder = FrameDecoder::new();
                decoder.feed(&body);
                while let Some(Ok(frame)) = decoder.next_frame() {
                    let text = String::from_utf8_lossy(&frame.payload).into_owned();
                    if text.contains("\"delta\":{\"text\"") && text.contains("\"contentBlockIndex\":0") {
                        frames.push(golem_providers::eventstream::encode_frame(&frame.headers, &frame.payload));
                    }
                }
            }
        }
    }
    if frames.is_empty() {
        frames.push(bedrock_frame("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"Hello there"}}"#));
    }
    frames.sort();
    frames
}

fn bedrock_frame(kind: &str, payload: &str) -> Vec<u8> {
    use golem_providers::eventstream::{encode_frame, Header, HeaderValue};
    let header = |name: &str, value: &str| Header { name: name.into(), value: HeaderValue::String(value.into()) };
    let headers = vec![
        header(":event-type", kind),
        header(":content-type", "application/json"),
        header(":message-type", "event"),
    ];
    encode_frame(&headers, payload.as_bytes())
}

/// A ConverseStream body the decoder accepts in full: recorded text
/// frames repeated, then messageStop and metadata.
fn bedrock_body(size: usize) -> Vec<u8> {
    let frames = bedrock_text_frames();
    let mut body = Vec::with_capacity(size + 4096);
    while body.len() < size {
        for frame in &frames {
            body.extend_from_slice(frame);
        }
    }
    body.extend(bedrock_frame("messageStop", r#"{"stopReason":"end_turn"}"#));
    body.extend(bedrock_frame("metadata", r#"{"usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}"#));
    body
}

fn bedrock_codec() -> golem_providers::bedrock::Codec {
    let credentials = golem_providers::sigv4::Credentials::new("AKIDBENCH", "bench-secret");
    let config = golem_providers::bedrock::Config::builder("us-east-1", "us.anthropic.claude-sonnet-4-20250514-v1:0")
        .credentials(credentials)
        .build()
        .unwrap();
    golem_providers::bedrock::Codec::new(config)
}

fn bedrock_stream_decode(c: &mut Criterion) {
    stream_group(c, "bedrock_stream_decode", "recorded_text_frames_2MiB", &bedrock_codec(), &bedrock_body(2 << 20));
}

fn bedrock_request_encode(c: &mut Criterion) {
    let codec = bedrock_codec();
    let credentials = golem_providers::sigv4::Credentials::new("AKIDBENCH", "bench-secret");
    let mut group = c.benchmark_group("bedrock_request_encode_and_sign");
    for n in [10, 100, 1000] {
        let request = history(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &request, |b, request| {
            b.iter(|| {
                let http = codec.encode(black_box(request), false).unwrap();
                codec.sign(http, &credentials, std::time::SystemTime::UNIX_EPOCH).unwrap()
            })
        });
    }
    group.finish();
}

/// A conversation of `n` messages: user questions, assistant answers, and
/// every fourth turn a tool call with its result.
fn history(n: usize) -> Request {
    let mut messages = vec![Message::system("You are a helpful assistant. Answer briefly and cite tools.")];
    let mut i = 0;
    while messages.len() < n {
        messages.push(Message::user(format!("Question {i}: what is the weather like in city number {i} today?")));
        if i % 4 == 3 {
            let id = format!("call_{i:024}");
            messages.push(Message::assistant_calls(vec![ToolCall::new(
                &id,
                "weather",
                format!(r#"{{"city":"City {i}"}}"#),
            )]));
            messages.push(Message::tool_result(
                id,
                "weather",
                format!("Sunny, {} degrees, light wind from the west.", i % 30),
            ));
        }
        messages.push(Message::assistant(format!(
            "In city number {i} it is sunny with a light westerly wind; about {} degrees.",
            i % 30
        )));
        i += 1;
    }
    messages.truncate(n);
    let tools: Vec<ToolDefinition> = (0..3)
        .map(|t| {
            ToolDefinition::new(
                ["weather", "lookup", "convert"][t],
                "A tool used by the benchmark conversation.",
                json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}),
            )
        })
        .collect();
    Request::new(messages).with_tools(Arc::new(tools))
}

/// The text chunks of the recorded Gemini streams that carry no finish
/// reason.
fn gemini_text_events() -> Vec<String> {
    let text_only = |e: &str| {
        e.contains("{\"text\": \"") && !e.contains("finishReason") && !e.contains("\"\"}") && !e.contains('\r')
    };
    let fallback =
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hello there\"}],\"role\": \"model\"},\"index\": 0}]}\n\n";
    recorded_sse_events("gemini", text_only, fallback)
}

/// A `streamGenerateContent?alt=sse` body the decoder accepts in full:
/// recorded text chunks repeated, then a finishing chunk.
fn gemini_body(size: usize) -> Vec<u8> {
    let events = gemini_text_events();
    let mut body = Vec::with_capacity(size + 4096);
    while body.len() < size {
        for event in &events {
            body.extend_from_slice(event.as_bytes());
        }
    }
    body.extend_from_slice(
        b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}]},\"finishReason\": \"STOP\"}]}\n\n",
    );
    body
}

fn gemini_codec() -> golem_providers::gemini::Codec {
    let config = golem_providers::gemini::Config::builder("gemini-2.5-flash").api_key("bench-key").build().unwrap();
    golem_providers::gemini::Codec::new(config)
}

fn gemini_stream_decode(c: &mut Criterion) {
    stream_group(c, "gemini_stream_decode", "recorded_text_chunks_2MiB", &gemini_codec(), &gemini_body(2 << 20));
}

fn gemini_request_encode(c: &mut Criterion) {
    encode_group(c, "gemini_request_encode", &gemini_codec());
}

/// The `text_delta` events of the recorded Anthropic streams, each moved
/// to content block 0 so one text block takes them all.
fn anthropic_text_events() -> Vec<String> {
    let fallback = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello there\"}}\n\n";
    recorded_sse_events("anthropic", |e| e.contains("\"text_delta\""), fallback)
        .into_iter()
        .map(|event| {
            let data = event.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or_default();
            let mut value: serde_json::Value = serde_json::from_str(data.trim()).unwrap();
            value["index"] = json!(0);
            format!("event: content_block_delta\ndata: {value}\n\n")
        })
        .collect()
}

/// A Messages stream the decoder accepts in full: a start, the recorded
/// text deltas repeated, then the closing events.
fn anthropic_body(size: usize) -> Vec<u8> {
    let events = anthropic_text_events();
    let mut body = Vec::with_capacity(size + 4096);
    body.extend_from_slice(
        b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":9}}}\n\n",
    );
    body.extend_from_slice(b"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    while body.len() < size {
        for event in &events {
            body.extend_from_slice(event.as_bytes());
        }
    }
    body.extend_from_slice(b"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n");
    body.extend_from_slice(b"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n");
    body.extend_from_slice(b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    body
}

fn anthropic_codec() -> golem_providers::anthropic::Codec {
    let config = golem_providers::anthropic::Config::builder("claude-sonnet-4-5").api_key("bench-key").build().unwrap();
    golem_providers::anthropic::Codec::new(config)
}

fn anthropic_stream_decode(c: &mut Criterion) {
    let body = anthropic_body(2 << 20);
    stream_group(c, "anthropic_stream_decode", "recorded_text_deltas_2MiB", &anthropic_codec(), &body);
}

fn anthropic_request_encode(c: &mut Criterion) {
    encode_group(c, "anthropic_request_encode", &anthropic_codec());
}

/// A request-encoding benchmark group: histories of 10, 100 and 1000
/// messages through `codec`.
fn encode_group<C: HttpCodec>(c: &mut Criterion, group: &str, codec: &C) {
    let mut group = c.benchmark_group(group);
    for n in [10, 100, 1000] {
        let request = history(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &request, |b, request| {
            b.iter(|| codec.encode(black_box(request), false).unwrap())
        });
    }
    group.finish();
}

fn request_encode(c: &mut Criterion) {
    let codec = Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap());
    encode_group(c, "request_encode", &codec);
}

/// The history as a hand-written loop keeps it: Chat Completions messages as
/// JSON values.
fn as_values(messages: &[Message]) -> Vec<serde_json::Value> {
    messages
        .iter()
        .map(|m| match m.role {
            golem_core::message::Role::Tool => {
                json!({"role": "tool", "content": m.content, "tool_call_id": m.tool_call_id})
            }
            golem_core::message::Role::Assistant if !m.tool_calls.is_empty() => json!({
                "role": "assistant",
                "tool_calls": m.tool_calls.iter().map(|c| json!({
                    "id": c.id, "type": "function",
                    "function": {"name": c.name, "arguments": c.args.as_str()},
                })).collect::<Vec<_>>(),
            }),
            role => json!({"role": role.to_string(), "content": m.content}),
        })
        .collect()
}

/// Turn N of a growing conversation: the codec encoded the request of turn
/// N-1 (the same history without its last call and result) right before.
fn history_turn_encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("history_turn_encode");
    for n in [1, 10, 100, 1000] {
        let mut request = history(n);
        let id = format!("call_turn_{n}");
        request.messages_mut().push(Message::assistant_calls(vec![ToolCall::new(
            &id,
            "weather",
            r#"{"city":"Oslo"}"#,
        )]));
        request.messages_mut().push(Message::tool_result(id, "weather", "Rain, 4 degrees."));
        let previous =
            Request::new(request.messages[..request.messages.len() - 2].to_vec()).with_tools(request.tools.clone());
        group.throughput(Throughput::Elements(request.messages.len() as u64));
        group.bench_with_input(BenchmarkId::new("golem", n), &request, |b, request| {
            // By reference: dropping the codec (and its cache) stays out of
            // the measurement.
            b.iter_batched_ref(
                || {
                    let codec =
                        Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap());
                    codec.encode(&previous, false).unwrap();
                    codec
                },
                |codec| codec.encode(black_box(request), false).unwrap(),
                criterion::BatchSize::LargeInput,
            )
        });
        // No cache at all: the plain encoder every codec call used before.
        group.bench_with_input(BenchmarkId::new("uncached", n), &request, |b, request| {
            let codec = Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap());
            let config = codec.config();
            b.iter(|| {
                let model = Some(config.model());
                golem_providers::chat_completions::encode_body(
                    black_box(request),
                    model,
                    config.tuning(),
                    config.dialect(),
                    false,
                )
                .unwrap()
            })
        });
        // The worst case: nothing to reuse (a cache full of other
        // conversations), and the history is copied into the cache.
        group.bench_with_input(BenchmarkId::new("golem_cold", n), &request, |b, request| {
            b.iter_batched_ref(
                || Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap()),
                |codec| codec.encode(black_box(request), false).unwrap(),
                criterion::BatchSize::LargeInput,
            )
        });
        let values = as_values(&request.messages);
        group.bench_with_input(BenchmarkId::new("bare_values", n), &values, |b, values| {
            b.iter(|| serde_json::to_vec(&json!({"model": "gpt-4o", "messages": black_box(values)})).unwrap())
        });
    }
    group.finish();
}

/// A whole Chat Completions response as OpenAI sends it: the envelope's
/// bookkeeping fields, one choice, and usage with its details objects.
fn response_body(message: serde_json::Value, finish: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": "chatcmpl-BQ4wUf5Oq3Jx8Kc2aTnV5m6Yh7Lp1",
        "object": "chat.completion",
        "created": 1745900000,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": 412, "completion_tokens": 57, "total_tokens": 469,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
        },
        "service_tier": "default",
        "system_fingerprint": "fp_f5bdcc3276"
    }))
    .unwrap()
}

/// Decoding a whole (non-streamed) response: what every plain model call
/// pays once, next to the hand-written loop's parse into a `Value` and
/// read of the same fields (issue 20).
fn response_decode(c: &mut Criterion) {
    let codec = Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap());
    let request = Request::new(vec![Message::user("What is the weather in Oslo and Bergen?")]);
    let head = HttpResponseHead::new(200, vec![]);
    let text = response_body(
        json!({"role": "assistant", "content": "It is raining in Oslo (4 °C) and\nsunny in Bergen (9 °C).",
               "refusal": null, "annotations": []}),
        "stop",
    );
    let calls = response_body(
        json!({"role": "assistant", "content": null, "refusal": null, "annotations": [], "tool_calls": [
            {"id": "call_Jx8Kc2aTnV5m6Yh7Lp1Q4wUf", "type": "function",
             "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
            {"id": "call_aTnV5m6Yh7Lp1Q4wUfJx8Kc2", "type": "function",
             "function": {"name": "weather", "arguments": "{\"city\":\"Bergen\"}"}}]}),
        "tool_calls",
    );
    let mut group = c.benchmark_group("response_decode");
    for (name, body) in [("text", &text), ("two_tool_calls", &calls)] {
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_with_input(BenchmarkId::new("golem", name), body, |b, body| {
            b.iter(|| codec.decode(&request, &head, black_box(body)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("bare_value", name), body, |b, body| {
            b.iter(|| {
                let value: serde_json::Value = serde_json::from_slice(black_box(body)).unwrap();
                let message = &value["choices"][0]["message"];
                let content = message["content"].as_str().map(str::to_string);
                let calls: Vec<(String, String, String)> = message["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        let field = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
                        (field(&c["id"]), field(&c["function"]["name"]), field(&c["function"]["arguments"]))
                    })
                    .collect();
                (content, calls, value["usage"]["prompt_tokens"].as_u64())
            })
        });
    }
    group.finish();
}

/// Every benchmark of this file (what `criterion_group!` would generate,
/// written out so it can carry a doc comment).
fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    sse_decode(&mut criterion);
    chat_stream_decode(&mut criterion);
    bedrock_stream_decode(&mut criterion);
    request_encode(&mut criterion);
    history_turn_encode(&mut criterion);
    response_decode(&mut criterion);
    bedrock_request_encode(&mut criterion);
    gemini_stream_decode(&mut criterion);
    gemini_request_encode(&mut criterion);
    anthropic_stream_decode(&mut criterion);
    anthropic_request_encode(&mut criterion);
}

criterion_main!(benches);

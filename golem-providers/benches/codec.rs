//! Codec benchmarks (issue 5): SSE decode throughput, full Chat Completions
//! stream decoding, and request encoding for histories of 10, 100 and 1000
//! messages (cost must grow linearly).
//!
//! The stream bodies are built from the recorded OpenAI chunks in
//! `shared/fixtures/recorded/openai` (a fixed synthetic chunk stands in when
//! the fixtures are absent), repeated to a few MiB and fed in 16 KiB pieces,
//! as a transport would.
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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/recorded/openai");
    let mut events = Vec::new();
    for case in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(case.path()).into_iter().flatten().flatten() {
            if file.path().extension().is_some_and(|e| e == "sse") {
                let text = std::fs::read_to_string(file.path()).unwrap_or_default();
                events.extend(text.split("\n\n").filter(|e| e.starts_with("data: {")).map(|e| format!("{e}\n\n")));
            }
        }
    }
    if events.is_empty() {
        events.push(
            "data: {\"id\":\"chatcmpl-x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello there\"},\"finish_reason\":null}],\"usage\":null}\n\n"
                .to_string(),
        );
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

fn chat_stream_decode(c: &mut Criterion) {
    let body = chat_body(2 << 20);
    let codec = Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap());
    let request = Request::new(vec![Message::user("hi")]);
    let head = HttpResponseHead::new(200, vec![]);
    let mut group = c.benchmark_group("chat_stream_decode");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.sample_size(10);
    group.bench_function("recorded_text_chunks_2MiB", |b| {
        b.iter(|| {
            let mut decoder = codec.stream_decoder(&request, &head);
            for piece in body.chunks(CHUNK) {
                decoder.feed(piece);
                while let Some(delta) = decoder.next_delta() {
                    black_box(delta.unwrap());
                }
            }
            decoder.end();
            while decoder.next_delta().is_some() {}
            decoder.finish().unwrap()
        })
    });
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

fn request_encode(c: &mut Criterion) {
    let codec = Codec::new(Config::builder(Preset::openai(), "gpt-4o").api_key("sk-bench").build().unwrap());
    let mut group = c.benchmark_group("request_encode");
    for n in [10, 100, 1000] {
        let request = history(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &request, |b, request| {
            b.iter(|| codec.encode(black_box(request), false).unwrap())
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
    request_encode(&mut criterion);
}

criterion_main!(benches);

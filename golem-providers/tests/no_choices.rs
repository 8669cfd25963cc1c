//! One rule for a reply with no choice or candidate in it (issue 32 item
//! 7): arrived whole — a complete body, or a stream up to its end marker —
//! it is the provider's answer, a fatal decode error, plain and streamed
//! alike; only a transfer cut before its end is retried. Shapes: Azure's
//! prompt-filter chunk (`choices: []`) and the usage chunk of
//! `include_usage`, Gemini's usage-only and blocked-prompt chunks.

use crate::support::run_stream;
use golem_core::model::{ModelError, ModelErrorKind, Request};
use golem_core::Message;
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::openai::{Config, Preset};
use serde_json::json;

fn head() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![])
}

fn hi() -> Request {
    Request::new(vec![Message::user("hi")])
}

fn fatal_no_choices(error: &ModelError, what: &str) {
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Decode, false), "{what}: {error}");
    assert!(error.message.contains("no choices") || error.message.contains("no candidates"), "{what}: {error}");
}

fn sse(chunks: &[serde_json::Value], done: bool) -> Vec<u8> {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    body.into_bytes()
}

#[test]
fn chat_completions_plain_and_streamed_agree() {
    let codec = golem_providers::openai::Codec::new(
        Config::builder(Preset::openai(), "gpt-4o").api_key("sk-no-choices").build().unwrap(),
    );
    let plain = codec.decode(&hi(), &head(), br#"{"id": "c1", "object": "chat.completion", "choices": []}"#);
    fatal_no_choices(&plain.unwrap_err(), "plain");

    let prompt_filter = json!({"id": "", "object": "", "created": 0, "model": "", "choices": [],
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]});
    let usage = json!({"id": "c1", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": 5, "completion_tokens": 0, "total_tokens": 5}});
    let (deltas, result) = run_stream(&codec, &hi(), &head(), [sse(&[prompt_filter.clone(), usage.clone()], true)]);
    assert!(deltas.is_empty());
    fatal_no_choices(&result.unwrap_err(), "streamed to [DONE]");

    // Cut before [DONE], the same chunks are a truncation: retried.
    let (_, result) = run_stream(&codec, &hi(), &head(), [sse(&[prompt_filter, usage], false)]);
    let error = result.unwrap_err();
    assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "{error}");
}

#[test]
fn gemini_plain_and_streamed_agree() {
    let codec = crate::gemini::codec();
    let usage_only =
        json!({"usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5}, "modelVersion": "gemini-2.5-flash"});
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 5}});
    for (chunk, what) in [(usage_only, "usage only"), (blocked, "blocked prompt")] {
        let plain = codec.decode(&hi(), &head(), chunk.to_string().as_bytes());
        fatal_no_choices(&plain.unwrap_err(), &format!("plain, {what}"));
        let (_, streamed) = run_stream(&codec, &hi(), &head(), [format!("data: {chunk}\n\n")]);
        fatal_no_choices(&streamed.unwrap_err(), &format!("streamed, {what}"));
    }
}

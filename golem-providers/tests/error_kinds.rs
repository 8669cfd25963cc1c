//! What kind of trouble an error reports (issue 11, item 10): rate limits,
//! exhausted quotas and context-window overflows are told apart from
//! real-shaped provider error bodies, an empty account is not retried, and
//! `Display` does not repeat a status as the code.

use crate::models::openai;
use crate::server::{text_body, Reply, Server};

use golem_core::model::{ModelError, Request};
use golem_core::{Cause, Message, RetryPolicy, Stage};
use golem_io::Agent;
use golem_providers::codec::{HttpCodec, StreamDecoder};
use golem_providers::http::HttpResponseHead;
use golem_providers::{azure, openai as oai};
use std::time::Duration;

fn openai_codec() -> oai::Codec {
    oai::Codec::new(oai::Config::builder(oai::Preset::openai(), "gpt-4o-mini").api_key("sk-test").build().unwrap())
}

fn vllm_codec() -> oai::Codec {
    oai::Codec::new(oai::Config::builder(oai::Preset::vllm(), "qwen").build().unwrap())
}

fn azure_codec() -> azure::Codec {
    let config = azure::Config::builder("https://example.openai.azure.com", "gpt-4o", "2024-12-01-preview")
        .api_key("azure-key")
        .build()
        .unwrap();
    azure::Codec::new(config)
}

fn decode(codec: &impl HttpCodec, status: u16, body: &str) -> ModelError {
    let request = Request::new(vec![Message::user("hi")]);
    codec.decode(&request, &HttpResponseHead::new(status, vec![]), body.as_bytes()).unwrap_err()
}

/// (rate limited, quota exhausted, context overflow, retryable)
fn verdict(error: &ModelError) -> (bool, bool, bool, bool) {
    (error.is_rate_limited(), error.is_quota_exhausted(), error.is_context_overflow(), error.retryable)
}

const OPENAI_QUOTA: &str = r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;

const OPENAI_RATE_LIMIT: &str = r#"{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min (TPM): Limit 200000, Used 199812, Requested 1024. Please try again in 250ms.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#;

const OPENAI_CONTEXT: &str = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130123 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;

#[test]
fn openai_insufficient_quota_is_not_retryable_and_not_a_rate_limit() {
    let error = decode(&openai_codec(), 429, OPENAI_QUOTA);
    assert_eq!(verdict(&error), (false, true, false, false), "{error:?}");
    assert_eq!(error.status, Some(429));
    assert_eq!(error.code, "insufficient_quota");
}

#[test]
fn openai_rate_limits_stay_retryable() {
    let error = decode(&openai_codec(), 429, OPENAI_RATE_LIMIT);
    assert_eq!(verdict(&error), (true, false, false, true), "{error:?}");
}

#[test]
fn context_length_errors_are_recognised_across_openai_compatible_servers() {
    let error = decode(&openai_codec(), 400, OPENAI_CONTEXT);
    assert_eq!(verdict(&error), (false, false, true, false), "{error:?}");

    // vLLM answers with an OpenAI-shaped body but no specific code.
    let vllm = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
    let error = decode(&vllm_codec(), 400, vllm);
    assert_eq!(verdict(&error), (false, false, true, false), "{error:?}");

    // Azure uses OpenAI's code.
    let azure = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
    let error = decode(&azure_codec(), 400, azure);
    assert!(error.is_context_overflow(), "{error:?}");
}

#[test]
fn other_families_are_recognised_from_their_codes_and_messages() {
    // Bodies as Anthropic, Bedrock and Gemini send them, classified by the
    // shared rules (their codecs put the type or exception name in `code`).
    let anthropic_long =
        ModelError::api(400, "prompt is too long: 208310 tokens > 200000 maximum").with_code("invalid_request_error");
    assert_eq!(verdict(&anthropic_long), (false, false, true, false));
    let anthropic_credit = ModelError::api(
        400,
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
    )
    .with_code("invalid_request_error");
    assert_eq!(verdict(&anthropic_credit), (false, true, false, false));
    let anthropic_rate = ModelError::api(429, "Number of request tokens has exceeded your per-minute rate limit")
        .with_code("rate_limit_error");
    assert_eq!(verdict(&anthropic_rate), (true, false, false, true));
    let overloaded = ModelError::api(529, "Overloaded").with_code("overloaded_error");
    assert_eq!(verdict(&overloaded), (false, false, false, true), "overload is not rate limiting");

    let bedrock_throttled =
        ModelError::api(429, "Too many requests, please wait before trying again.").with_code("ThrottlingException");
    assert!(bedrock_throttled.is_rate_limited());
    let bedrock_long = ModelError::api(400, "Input is too long for requested model.").with_code("ValidationException");
    assert!(bedrock_long.is_context_overflow());
    let bedrock_quota = ModelError::api(400, "Your request exceeds the service quota for your account.")
        .with_code("ServiceQuotaExceededException");
    assert!(bedrock_quota.is_quota_exhausted());

    let gemini_long =
        ModelError::api(400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).")
            .with_code("INVALID_ARGUMENT");
    assert!(gemini_long.is_context_overflow());
    let gemini_minute =
        ModelError::api(429, "You exceeded your current quota, please check your plan and billing details.")
            .with_code("RESOURCE_EXHAUSTED");
    assert_eq!(verdict(&gemini_minute), (true, false, false, true), "Gemini's per-minute quotas are rate limits");
}

#[test]
fn an_in_stream_quota_error_is_not_retryable() {
    let codec = openai_codec();
    let request = Request::new(vec![Message::user("hi")]);
    let mut stream = codec.stream_decoder(&request, &HttpResponseHead::new(200, vec![]));
    stream.feed(format!("data: {OPENAI_QUOTA}\n\n").as_bytes());
    stream.end();
    let error = loop {
        match stream.next_delta() {
            Some(Err(error)) => break error,
            Some(Ok(_)) => continue,
            None => break stream.finish().unwrap_err(),
        }
    };
    assert_eq!(verdict(&error), (false, true, false, false), "{error:?}");
}

#[test]
fn display_does_not_repeat_the_status_as_the_code() {
    // Azure's rate limit carries the status as its code.
    let body = r#"{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-12-01-preview have exceeded token rate limit of your current pricing tier. Please retry after 6 seconds."}}"#;
    let error = decode(&azure_codec(), 429, body);
    assert!(error.is_rate_limited() && error.retryable);
    let shown = error.to_string();
    assert!(shown.ends_with("Please retry after 6 seconds. (status 429)"), "{shown}");
    assert_eq!(decode(&openai_codec(), 429, OPENAI_QUOTA).to_string().matches("429").count(), 1);
    let coded = decode(&openai_codec(), 400, OPENAI_CONTEXT).to_string();
    assert!(coded.ends_with("(status 400, context_length_exceeded)"), "{coded}");
}

#[test]
fn a_retry_policy_does_not_spend_its_attempts_on_an_empty_account() {
    let server = Server::start(vec![Reply::json(429, OPENAI_QUOTA), Reply::json(200, text_body("unreachable"))]);
    let agent = Agent::<()>::builder(openai(&server.url()))
        .retry_policy(RetryPolicy::recommended())
        .backoff(|_| Duration::ZERO)
        .build()
        .unwrap();
    let error = agent.run((), "hi").unwrap_err();
    let error = error.as_run().expect("a run error");
    assert_eq!(error.stage, Stage::Model);
    let Cause::Model(cause) = &error.cause else { panic!("{:?}", error.cause) };
    assert!(cause.is_quota_exhausted(), "{cause:?}");
    assert_eq!(server.requests().len(), 1, "one request, no retries");
}

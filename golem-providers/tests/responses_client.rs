//! The `OpenAiResponses` client against loopback servers: through both
//! faces (the path, the bearer key in its header only, a recorded stream
//! forwarded as it arrives, a 429's Retry-After), and under both drivers
//! as a `golem_io::Agent`'s model — a recorded reasoning and tool run whose
//! second request carries the first answer's reasoning item, encrypted
//! content byte for byte, streamed and plain alike; and the same agent
//! moved between Chat Completions and Responses by its client line alone.
//! SPEC PROV-RESP-01/03/04, STREAM-01, MODEL-04, THINK-01/03, RETRY-03, ERR-06.

use crate::drivers::{run, streamed_equals_plain, DRIVERS};
use crate::models::{collect, generate, openai, FACES};
use crate::responses::{client, recorded, stream_of, KEY};
use crate::server::{text_body, Reply, Server};
use golem_core::model::{AsyncModel, Model, ModelErrorKind, Request};
use golem_core::{Delta, FinishReason, Message};
use golem_io::{Agent, Tool, ToolContext};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const CASE: &str = "openai/responses_reasoning_summary_tool_roundtrip_gpt5";

fn hello() -> Request {
    Request::new(vec![Message::user("Say hello")])
}

fn answer(text: &str) -> Value {
    json!({"id": "resp_1", "status": "completed",
        "output": [{"type": "message", "id": "msg_1", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}})
}

fn pieces(body: &[u8]) -> Vec<Vec<u8>> {
    body.chunks(173).map(<[u8]>::to_vec).collect()
}

#[test]
fn generate_posts_to_responses_with_the_key_in_its_header_only() {
    for face in FACES {
        let server = Server::start(vec![Reply::json(200, answer("Hello!").to_string())]);
        let response = generate(face, &client(&server.url()), &hello()).unwrap();
        assert_eq!((response.message.content.as_str(), response.finish_reason), ("Hello!", FinishReason::Stop));
        let seen = &server.requests()[0];
        assert_eq!((seen.method.as_str(), seen.path.as_str()), ("POST", "/v1/responses"));
        assert_eq!(seen.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
        let body = seen.json();
        assert_eq!((&body["stream"], &body["store"]), (&json!(false), &json!(false)));
        assert_eq!(body["input"], json!([{"role": "user", "content": "Say hello"}]));
    }
}

#[test]
fn a_recorded_stream_reaches_the_sink_as_it_arrives_and_assembles_to_the_response() {
    for face in FACES {
        let body = recorded("openai/responses_stream_reasoning_summary_store_false", "01.response.sse");
        let server = Server::start(vec![Reply::sse(pieces(&body))]);
        let (deltas, result) = collect(face, &client(&server.url()), &hello());
        let response = result.unwrap();
        crate::support::assert_assembles(golem_providers::responses::FAMILY, &deltas, &response, &format!("{face:?}"));
        assert!(deltas.iter().filter(|d| matches!(d, Delta::Thinking { text, .. } if !text.is_empty())).count() > 50);
        assert!(!response.message.thinking[0].signature.is_empty(), "the reasoning item is kept");
        let seen = &server.requests()[0];
        assert_eq!(seen.header("accept"), Some("text/event-stream"));
        assert_eq!(seen.json()["stream"], true);
    }
}

#[test]
fn a_429_is_retryable_with_its_retry_after_and_a_cut_stream_is_truncated() {
    for face in FACES {
        let limited = || {
            Reply::json(429, r#"{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}"#)
                .header("retry-after", "3")
        };
        let created = "data: {\"type\":\"response.created\",\"response\":{\"status\":\"in_progress\"}}\n\n";
        let server = Server::start(vec![limited(), limited(), Reply::sse([created])]);
        let model = client(&server.url());
        for error in [generate(face, &model, &hello()).unwrap_err(), collect(face, &model, &hello()).1.unwrap_err()] {
            assert_eq!((error.status, error.retryable), (Some(429), true), "{face:?}");
            assert_eq!(error.retry_after, Some(std::time::Duration::from_secs(3)));
        }
        let error = collect(face, &model, &hello()).1.unwrap_err();
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "{face:?}");
    }
}

fn update_plan(runs: Arc<AtomicUsize>) -> Tool<Arc<AtomicUsize>> {
    let schema = json!({"type": "object", "properties": {"plan": {"type": "string"}}, "required": ["plan"],
        "additionalProperties": false});
    Tool::new("update_plan", "", schema, move |_ctx: ToolContext<Arc<AtomicUsize>>, _args: Value| {
        runs.fetch_add(1, Ordering::SeqCst);
        Ok("plan updated")
    })
}

/// The first recorded answer's reasoning item, as the second request must
/// carry it.
fn first_reasoning() -> Value {
    let first: Value = serde_json::from_slice(&recorded(CASE, "01.response.json")).unwrap();
    first["output"][0].clone()
}

fn assert_carries_the_reasoning(raw: &[u8], body: &Value, what: &str) {
    let item = first_reasoning();
    let encrypted = item["encrypted_content"].as_str().unwrap();
    let exact = format!("\"encrypted_content\":{}", serde_json::to_string(encrypted).unwrap());
    assert!(String::from_utf8_lossy(raw).contains(&exact), "{what}: byte for byte");
    let sent = body["input"].as_array().unwrap().iter().find(|i| i["type"] == "reasoning").expect(what);
    assert_eq!((&sent["id"], &sent["summary"]), (&item["id"], &item["summary"]), "{what}");
    let kinds: Value = body["input"].as_array().unwrap().iter().map(|i| i["type"].clone()).collect();
    assert_eq!(kinds, json!([null, "reasoning", "function_call", "function_call_output"]), "{what}");
}

/// THINK-01/03 on recorded traffic, both drivers: the answer's reasoning
/// goes back in the next request, and a streamed run is the plain run.
#[test]
fn a_recorded_reasoning_tool_run_carries_its_reasoning_streamed_and_plain_under_both_drivers() {
    let plain: Vec<Value> =
        (1..=2).map(|n| serde_json::from_slice(&recorded(CASE, &format!("{n:02}.response.json"))).unwrap()).collect();
    for driver in DRIVERS {
        let mut replies: Vec<Reply> = plain.iter().map(|b| Reply::json(200, b.to_string())).collect();
        replies.extend(plain.iter().map(|b| Reply::sse(pieces(&stream_of(b)))));
        let server = Server::start(replies);
        let runs = Arc::new(AtomicUsize::new(0));
        let agent = Agent::builder(client(&server.url())).tool(update_plan(Arc::clone(&runs))).build().unwrap();
        let deltas = streamed_equals_plain(driver, &agent, "Compose a 12-line poem");
        assert_eq!(runs.load(Ordering::SeqCst), 2, "{driver:?}: once per run");
        assert!(deltas.iter().any(|d| matches!(d, Delta::Thinking { signature, .. } if !signature.is_empty())));
        let requests = server.requests();
        for n in [1, 3] {
            assert_carries_the_reasoning(&requests[n].body, &requests[n].json(), &format!("{driver:?} request {n}"));
        }
        plain.iter().for_each(|b| server.push(Reply::json(200, b.to_string())));
        let result = run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "again", None);
        assert!(result.output.starts_with("Softly old fountains"), "{driver:?}");
    }
}

/// The agent a user writes once; only the client line differs.
fn agent<M: Model + AsyncModel + 'static>(model: M) -> Agent<Arc<AtomicUsize>> {
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    let lookup =
        Tool::new("lookup", "Look up the weather.", schema, |_ctx: ToolContext<Arc<AtomicUsize>>, _args| Ok("sunny"));
    Agent::builder(model).instructions("Be brief.").tool(lookup).build().unwrap()
}

#[test]
fn the_same_agent_moves_between_chat_completions_and_responses_by_its_client_line() {
    for driver in DRIVERS {
        let chat_call = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"city\":\"Paris\"}"}}]}}]});
        let chat = Server::start(vec![Reply::json(200, chat_call.to_string()), Reply::json(200, text_body("Sunny."))]);
        let call = json!({"id": "resp_1", "status": "completed", "output": [{"type": "function_call", "id": "fc_1",
            "call_id": "call_1", "name": "lookup", "arguments": "{\"city\":\"Paris\"}"}]});
        let responses =
            Server::start(vec![Reply::json(200, call.to_string()), Reply::json(200, answer("Sunny.").to_string())]);

        let on_chat = agent(openai(&chat.url()));
        let on_responses = agent(client(&responses.url()));

        let calls = Arc::new(AtomicUsize::new(0));
        let a = run(driver, &on_chat, &calls, "Weather in Paris?", None);
        let b = run(driver, &on_responses, &calls, "Weather in Paris?", None);
        assert_eq!((a.output.as_str(), b.output.as_str()), ("Sunny.", "Sunny."), "{driver:?}");
        let roles = |r: &golem_io::RunResult<String>| r.messages.iter().map(|m| m.role).collect::<Vec<_>>();
        assert_eq!(roles(&a), roles(&b), "{driver:?}");
        let second = responses.requests()[1].json();
        assert_eq!(second["input"][0], json!({"role": "system", "content": "Be brief."}));
        assert_eq!(second["input"][3], json!({"type": "function_call_output", "call_id": "call_1", "output": "sunny"}));
    }
}

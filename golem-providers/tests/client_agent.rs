//! End to end: a `golem_io::Agent` with a tool on the OpenAI client,
//! against a loopback server replaying recorded OpenAI traffic, under the
//! blocking and the async driver; faults end in typed model-stage errors
//! with their evidence, and retries honour Retry-After (issue 5).

use crate::models;
use crate::server;

use golem_core::{Cause, Delta, ModelErrorKind, RetryPolicy, Role, Stage};
use golem_io::{Agent, RunResult, Tool, ToolContext};
use models::openai;
use serde_json::json;
use server::{text_body, text_chunk, Part, Reply, Server};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug)]
enum Driver {
    Blocking,
    Async,
}

const DRIVERS: [Driver; 2] = [Driver::Blocking, Driver::Async];

fn recorded(case: &str, file: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded/openai").join(case).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The recorded SSE body cut into uneven pieces, as a network delivers it.
fn sse_pieces(body: &[u8]) -> Vec<Vec<u8>> {
    body.chunks(211).map(<[u8]>::to_vec).collect()
}

fn run(
    driver: Driver,
    agent: &Agent<Arc<AtomicUsize>>,
    calls: &Arc<AtomicUsize>,
    prompt: &str,
) -> Result<RunResult<String>, golem_io::Error> {
    match driver {
        Driver::Blocking => agent.run(Arc::clone(calls), prompt),
        Driver::Async => futures_lite::future::block_on(agent.run_async(Arc::clone(calls), prompt)),
    }
}

fn run_stream(
    driver: Driver,
    agent: &Agent<Arc<AtomicUsize>>,
    calls: &Arc<AtomicUsize>,
    prompt: &str,
    deltas: &mut Vec<Delta>,
) -> Result<RunResult<String>, golem_io::Error> {
    let on_delta = |d: golem_io::StreamDelta<'_>| {
        deltas.push(d.delta.clone());
        Ok(())
    };
    match driver {
        Driver::Blocking => agent.run_stream(Arc::clone(calls), prompt, on_delta),
        Driver::Async => futures_lite::future::block_on(agent.run_stream_async(Arc::clone(calls), prompt, on_delta)),
    }
}

/// A tool that counts its runs and answers `answer`.
fn counting_tool(name: &str, param: &str, answer: &'static str) -> Tool<Arc<AtomicUsize>> {
    let schema = json!({
        "type": "object",
        "properties": {param: {"type": "string"}},
        "required": [param],
        "additionalProperties": false
    });
    Tool::new(name, "", schema, move |ctx: ToolContext<Arc<AtomicUsize>>, _args| {
        ctx.deps().fetch_add(1, Ordering::SeqCst);
        Ok(answer.to_string())
    })
}

#[test]
fn a_recorded_tool_round_trip_replays_under_both_drivers() {
    let case = "chat_tool_call_roundtrip_gpt5mini";
    let final_text: serde_json::Value = serde_json::from_slice(&recorded(case, "02.response.json")).unwrap();
    let final_text = final_text["choices"][0]["message"]["content"].as_str().unwrap().to_string();
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::json(200, recorded(case, "01.response.json")),
            Reply::json(200, recorded(case, "02.response.json")),
        ]);
        let agent = Agent::builder(openai(&server.url()))
            .tool(counting_tool("get_weather", "city", "Sunny, 22°C"))
            .build()
            .unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let result = run(driver, &agent, &calls, "What's the weather in Paris?").unwrap();
        assert_eq!(result.output, final_text, "{driver:?}");
        assert_eq!((result.requests, result.tool_calls, calls.load(Ordering::SeqCst)), (2, 1, 1));
        assert_eq!((result.usage.input_tokens, result.usage.output_tokens), (132 + 167, 23 + 171));
        let second = server.requests()[1].json();
        let tool_message = second["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap().clone();
        assert_eq!(tool_message["tool_call_id"], "call_aDdJTteHrpMdhdkEkyxjxEHH");
        assert_eq!(tool_message["content"], "Sunny, 22°C");
        assert_eq!(server.accepted(), 1, "{driver:?}: both turns over one kept-alive connection");
    }
}

#[test]
fn a_recorded_streamed_tool_round_trip_replays_under_both_drivers() {
    let case = "chat_stream_tool_call_deltas_usage";
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::sse(sse_pieces(&recorded(case, "01.response.sse"))),
            Reply::sse(sse_pieces(&recorded(case, "02.response.sse"))),
        ]);
        let agent = Agent::builder(openai(&server.url()))
            .tool(counting_tool("get_capital", "country", "London"))
            .build()
            .unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let mut deltas = Vec::new();
        let prompt = "What is the capital of the UK? Use the tool, then answer.";
        let result = run_stream(driver, &agent, &calls, prompt, &mut deltas).unwrap();
        let output = result.output.clone();
        assert!(output.ends_with(" London."), "{driver:?}: {output}");
        assert_eq!((result.requests, calls.load(Ordering::SeqCst)), (2, 1));
        let texts: String = deltas
            .iter()
            .filter_map(|d| if let Delta::Text { text } = d { Some(text.as_str()) } else { None })
            .collect();
        assert_eq!(texts, output, "every text fragment was forwarded");
        assert!(deltas.iter().any(|d| matches!(d, Delta::ToolCall { name, .. } if name == "get_capital")));
        assert_eq!(server.requests()[0].json()["stream"], true);
    }
}

#[test]
fn a_reset_mid_stream_fails_at_the_model_stage_with_the_earlier_turn_as_evidence() {
    let case = "chat_stream_tool_call_deltas_usage";
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::sse(sse_pieces(&recorded(case, "01.response.sse"))),
            Reply::sse([text_chunk("The capital")]).then(Part::Reset),
        ]);
        let agent = Agent::builder(openai(&server.url()))
            .tool(counting_tool("get_capital", "country", "London"))
            .build()
            .unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let error = run_stream(driver, &agent, &calls, "Capital of the UK?", &mut Vec::new()).unwrap_err();
        let error = error.as_run().expect("a run error");
        assert_eq!(error.stage, Stage::Model, "{driver:?}: {error}");
        let Cause::Model(cause) = &error.cause else { panic!("{:?}", error.cause) };
        assert_eq!((cause.kind, cause.retryable), (ModelErrorKind::Transport, true));
        let partial = error.partial.as_ref().expect("the first turn is evidence");
        let roles: Vec<Role> = partial.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
        assert_eq!((partial.requests, partial.tool_calls), (2, 1));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}

#[test]
fn malformed_json_and_truncated_streams_are_typed_model_stage_errors() {
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::json(200, "{\"choices\": [ oops"),
            Reply::sse([text_chunk("Hel"), text_chunk("lo")]),
        ]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(openai(&server.url())).build().unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let error = run(driver, &agent, &calls, "hi").unwrap_err();
        let error = error.as_run().unwrap();
        assert_eq!(error.stage, Stage::Model);
        assert!(matches!(&error.cause, Cause::Model(e) if e.kind == ModelErrorKind::Decode && e.retryable), "{error}");

        let error = run_stream(driver, &agent, &calls, "hi", &mut Vec::new()).unwrap_err();
        let error = error.as_run().unwrap();
        assert_eq!(error.stage, Stage::Model);
        assert!(
            matches!(&error.cause, Cause::Model(e) if e.kind == ModelErrorKind::Truncated && e.retryable),
            "{error}"
        );
        // A failed model call adds no message (SPEC ERR-03); what the caller
        // was shown of it stays evidence, marked incomplete (RETRY-06).
        let partial = error.partial.as_ref().expect("the forwarded text is evidence");
        assert_eq!(partial.messages.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User]);
        assert_eq!(partial.incomplete.as_ref().map(|m| m.content.as_str()), Some("Hello"));
    }
}

#[test]
fn with_a_retry_each_fault_once_still_succeeds() {
    let faults = || {
        vec![
            Reply::json(503, r#"{"error":{"message":"overloaded"}}"#),
            Reply::new(200).framing(server::Framing::DeclaredLength(400)).data("{\"choi").then(Part::Reset),
            Reply::sse([text_chunk("cut")]),
            Reply::json(200, "not json at all"),
        ]
    };
    for driver in DRIVERS {
        for fault in faults() {
            let server = Server::start(vec![fault, Reply::json(200, text_body("recovered"))]);
            let policy = RetryPolicy::new().max_attempts(2);
            let agent = Agent::<Arc<AtomicUsize>>::builder(openai(&server.url()))
                .retry_policy(policy)
                .backoff(|_| Duration::ZERO)
                .build()
                .unwrap();
            let calls = Arc::new(AtomicUsize::new(0));
            let result = run(driver, &agent, &calls, "hi").unwrap();
            assert_eq!((result.output.as_str(), result.requests), ("recovered", 2), "{driver:?}");
        }
    }
}

#[test]
fn retry_after_makes_the_next_attempt_wait_at_least_that_long() {
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::json(429, r#"{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}"#)
                .header("retry-after", "1"),
            Reply::json(200, text_body("after the wait")),
        ]);
        let waits = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&waits);
        let policy = RetryPolicy::new().max_attempts(2);
        let agent = Agent::<Arc<AtomicUsize>>::builder(openai(&server.url()))
            .retry_policy(policy)
            .observer(move |e| {
                if let golem_core::EventKind::Retrying { delay, .. } = e.kind {
                    seen.lock().unwrap().push(delay);
                }
            })
            .build()
            .unwrap();
        let result = run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "hi").unwrap();
        // The hint beats the 500 ms backoff: the wait the machine computed.
        assert_eq!(*waits.lock().unwrap(), [Duration::from_secs(1)], "{driver:?}");
        assert_eq!((result.output.as_str(), result.requests), ("after the wait", 2));
    }
}

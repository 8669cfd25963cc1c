//! End to end: a `golem_io::Agent` on the Anthropic client against a
//! loopback stand-in, under the blocking and the async driver: the
//! recorded thinking + tool round trip with its signature replayed byte
//! for byte, two recorded parallel calls answered in one user turn,
//! structured output in native and tool mode, an image prompt, a 529
//! retried after its `retry-after`, and streaming whose result equals the
//! non-streamed one.
//! SPEC PROV-ANT-03/04/05/06, THINK-01/03, OUT-07, MM-02, RETRY-03.

use crate::anthropic::{
    block_delta, block_start, block_stop, builder, client, client_with, message_body, message_delta, message_start,
    message_stop, recorded, sse_reply, text_body, text_stream,
};
use crate::drivers::{
    native_weather, retried, run, run_with_image, streamed_equals_plain, Weather, DRIVERS, WEATHER_SCHEMA,
};
use crate::server::{Reply, Server};
use golem_core::{Delta, FinishReason};
use golem_io::{Agent, Tool, ToolContext};
use golem_providers::anthropic::{Thinking, Tuning};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A tool answering the `n`-th call (0-based, counted in deps) with
/// `answers[n]`.
fn tool(name: &str, answers: &'static [&'static str]) -> Tool<Arc<AtomicUsize>> {
    let schema = json!({"type": "object", "properties": {}});
    Tool::new(name, "", schema, move |ctx: ToolContext<Arc<AtomicUsize>>, _args: Value| {
        let n = ctx.deps().fetch_add(1, Ordering::SeqCst);
        Ok(answers.get(n).or(answers.last()).map(|s| s.to_string()).unwrap_or_default())
    })
}

#[test]
fn the_recorded_thinking_tool_round_trip_replays_the_signature_byte_for_byte() {
    let case = "messages_tool_use_with_thinking";
    let first: Value = serde_json::from_slice(&recorded(case, "01.response.json")).unwrap();
    let signature = first["content"][0]["signature"].as_str().unwrap().to_string();
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::json(200, recorded(case, "01.response.json")),
            Reply::json(200, recorded(case, "02.response.json")),
        ]);
        let model = client_with(
            builder(&server.url())
                .tuning(Tuning::new().max_tokens(4096))
                .thinking(Thinking::Enabled { budget_tokens: 3000 }),
        );
        let agent = Agent::builder(model).tool(tool("get_user_country", &["Mexico"])).build().unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let result = run(driver, &agent, &calls, "What is the largest city in the user country?", None);
        assert!(result.output.contains("Mexico City"), "{driver:?}");
        assert_eq!((result.requests, calls.load(Ordering::SeqCst)), (2, 1));
        let thinking = &result.messages[1].thinking;
        assert_eq!((thinking[0].signature.as_str(), thinking[0].provider.as_str()), (signature.as_str(), "anthropic"));
        let second = server.requests()[1].json();
        let expected: Value = serde_json::from_slice(&recorded(case, "02.request.json")).unwrap();
        assert_eq!(second["messages"][1], expected["messages"][1], "{driver:?}: the assistant turn as the API sent it");
        assert_eq!(second["messages"][2]["content"][0]["content"], "Mexico");
        assert_eq!(second["thinking"], json!({"type": "enabled", "budget_tokens": 3000}));
    }
}

#[test]
fn two_recorded_parallel_calls_are_answered_in_one_user_turn_in_call_order() {
    let case = "messages_stream_parallel_tool_use";
    for driver in DRIVERS {
        let server = Server::start(vec![
            sse_reply(&recorded(case, "01.response.sse"), 97),
            sse_reply(&recorded(case, "02.response.sse"), 97),
        ]);
        let agent = Agent::builder(client(&server.url()))
            .tool(tool("pelican_name_generator", &["Charles", "Sammy"]))
            .parallel_tools(false)
            .build()
            .unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let mut deltas = Vec::new();
        let result = run(driver, &agent, &calls, "Two names for a pet pelican", Some(&mut deltas));
        assert!(result.output.contains("Charles") && result.output.contains("Sammy"), "{driver:?}: {}", result.output);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        let second = server.requests()[1].json();
        let ids: Vec<&str> = result.messages[1].tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            second["messages"][2],
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": ids[0], "content": "Charles"},
                {"type": "tool_result", "tool_use_id": ids[1], "content": "Sammy"},
            ]})
        );
        assert!(deltas.iter().any(|d| matches!(d, Delta::ToolCall { name, .. } if name == "pelican_name_generator")));
    }
}

#[test]
fn structured_output_in_native_mode_sends_output_config_format() {
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body(r#"{"city":"Lagos","celsius":31}"#))]);
        let weather = native_weather(driver, client(&server.url()));
        assert_eq!(weather, Weather { city: "Lagos".into(), celsius: 31 }, "{driver:?}");
        let seen = server.requests()[0].json();
        assert_eq!(seen["output_config"]["format"]["type"], "json_schema");
        assert_eq!(seen["output_config"]["format"]["schema"]["required"], json!(["city", "celsius"]));
    }
}

#[test]
fn structured_output_in_tool_mode_reads_the_output_tool_call() {
    for driver in DRIVERS {
        let content = json!([{"type": "tool_use", "id": "toolu_out", "name": "final_result",
            "input": {"city": "Lagos", "celsius": 31}}]);
        let stream = [
            message_start(9),
            block_start(0, json!({"type": "tool_use", "id": "toolu_out", "name": "final_result", "input": {}})),
            block_delta(0, json!({"type": "input_json_delta", "partial_json": "{\"city\": \"Lagos\", "})),
            block_delta(0, json!({"type": "input_json_delta", "partial_json": "\"celsius\": 31}"})),
            block_stop(0),
            message_delta("tool_use", 12),
            message_stop(),
        ]
        .concat();
        let server = Server::start(vec![
            Reply::json(200, message_body(content, "tool_use").to_string()),
            sse_reply(&stream, 40),
        ]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(client(&server.url()))
            .output::<Weather>()
            .output_tool("final_result", "Report the weather", WEATHER_SCHEMA)
            .build()
            .unwrap();
        let deps = Arc::new(AtomicUsize::new(0));
        for deltas in [None, Some(&mut Vec::new())] {
            let result = run(driver, &agent, &deps, "forecast for Lagos", deltas);
            assert_eq!(result.output, Weather { city: "Lagos".into(), celsius: 31 }, "{driver:?}");
            assert_eq!(result.finish_reason, FinishReason::ToolCall);
        }
        let seen = server.requests()[0].json();
        assert_eq!(seen["tools"][0]["name"], "final_result");
        assert!(seen.get("output_config").is_none(), "no native schema in tool mode");
    }
}

#[test]
fn an_image_prompt_goes_as_a_base64_image_block() {
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body("A red square."))]);
        let agent = Agent::<()>::builder(client(&server.url())).build().unwrap();
        let png = b"\x89PNG\r\n\x1a\n".to_vec();
        let result = run_with_image(driver, &agent, "What is in the picture?", "image/png", png);
        assert_eq!(result.output, "A red square.", "{driver:?}");
        let seen = server.requests()[0].json();
        assert_eq!(
            seen["messages"][0]["content"],
            json!([{"type": "text", "text": "What is in the picture?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}])
        );
    }
}

#[test]
fn an_overloaded_529_is_retried_after_its_retry_after() {
    for driver in DRIVERS {
        let overloaded = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        let server = Server::start(vec![
            // Anthropic sends whole seconds; a gateway's retry-after-ms keeps the test fast.
            Reply::json(529, overloaded.to_string()).header("retry-after", "1").header("retry-after-ms", "40"),
            Reply::json(200, text_body("Hello after a wait.")),
        ]);
        let (output, requests, waits) = retried(driver, client(&server.url()));
        assert_eq!((output.as_str(), requests), ("Hello after a wait.", 2), "{driver:?}");
        assert_eq!(waits, vec![(Duration::from_millis(40), "overloaded_error".to_string())]);
    }
}

#[test]
fn a_streamed_run_returns_what_the_plain_run_returns() {
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::json(200, text_body("Paris is the capital of France.")),
            sse_reply(&text_stream("Paris is the ", "capital of France."), 33),
        ]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(client(&server.url())).build().unwrap();
        let deltas = streamed_equals_plain(driver, &agent, "Capital of France?");
        assert_eq!(deltas, vec![Delta::text("Paris is the "), Delta::text("capital of France.")]);
    }
}

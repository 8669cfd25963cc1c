//! End to end: a `golem_io::Agent` on the Gemini client against a
//! loopback stand-in, under the blocking and the async driver: recorded
//! tool round trips (streamed and not) with their thought signatures
//! replayed on the same part, two parallel calls to one tool paired by
//! position, structured output in native and tool mode, an inline image,
//! a safety stop reported as such, RetryInfo honoured by the retry
//! policy, and streaming whose result equals the non-streamed one.

use crate::drivers::{native_weather, retried, run, run_with_image, streamed_equals_plain, Driver, Weather, DRIVERS};
use crate::gemini::{
    call_part, chunk, client, event, recorded, retry_info, status_body, stream_reply, text_body, with_usage,
};
use crate::server::{Reply, Server};
use golem_core::{Delta, FinishReason};
use golem_io::{Agent, Tool, ToolContext};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A tool answering from `answers` by the value of its one parameter.
fn tool(name: &str, param: &'static str, answers: &'static [(&'static str, &'static str)]) -> Tool<Arc<AtomicUsize>> {
    let schema = json!({"type": "object", "properties": {param: {"type": "string"}}, "required": [param]});
    Tool::new(name, "", schema, move |ctx: ToolContext<Arc<AtomicUsize>>, args: Value| {
        ctx.deps().fetch_add(1, Ordering::SeqCst);
        let key = args[param].as_str().unwrap_or_default();
        Ok(answers.iter().find(|(k, _)| *k == key || k.is_empty()).map(|(_, v)| v.to_string()).unwrap_or_default())
    })
}

fn pieces(body: &[u8]) -> Vec<Vec<u8>> {
    body.chunks(97).map(<[u8]>::to_vec).collect()
}

#[test]
fn a_recorded_streamed_three_turn_tool_run_replays_under_both_drivers() {
    let case = "stream_function_calls_multi_turn";
    for driver in DRIVERS {
        let server = Server::start(
            (1..=3).map(|n| stream_reply(pieces(&recorded(case, &format!("{n:02}.response.sse"))))).collect(),
        );
        let agent = Agent::builder(client(&server.url()))
            .instructions("You are a helpful chatbot.")
            .tool(tool("get_capital", "country", &[("France", "Paris")]))
            .tool(tool("get_temperature", "city", &[("Paris", "30°C")]))
            .build()
            .unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let mut deltas = Vec::new();
        let result =
            run(driver, &agent, &calls, "What is the temperature of the capital of France?", Some(&mut deltas));
        assert_eq!(result.output, "The temperature in Paris is 30°C.\n", "{driver:?}");
        assert_eq!((result.requests, calls.load(Ordering::SeqCst)), (3, 2));
        assert_eq!((result.usage.input_tokens, result.usage.output_tokens), (52 + 64 + 79, 5 + 5 + 12));
        let third = server.requests()[2].json();
        assert_eq!(
            third["contents"][3],
            json!({"role": "model", "parts": [{"functionCall": {"name": "get_temperature", "args": {"city": "Paris"}}}]})
        );
        assert_eq!(
            third["contents"][4],
            json!({"role": "user", "parts": [{"functionResponse": {"name": "get_temperature", "response": {"result": "30°C"}}}]})
        );
        assert_eq!(third["systemInstruction"], json!({"parts": [{"text": "You are a helpful chatbot."}]}));
        assert!(deltas.iter().any(|d| matches!(d, Delta::ToolCall { name, .. } if name == "get_capital")));
    }
}

/// THINK-01/03: the signature the API put on a function-call part goes
/// back on that part, byte for byte — plain and streamed.
#[test]
fn recorded_thought_signatures_go_back_on_the_function_call_part() {
    for (case, streamed, prompt, tool) in [
        (
            "generate_content_function_call_thought_signature",
            false,
            "What's the weather in Paris?",
            tool("get_weather", "city", &[("Paris", "Sunny, 22C in Paris")]),
        ),
        (
            "stream_function_call_thought_signature",
            true,
            "What is the capital of the user country? Call the tool",
            tool("get_country", "x", &[("", "Mexico")]),
        ),
    ] {
        let first_file = if streamed { "01.response.sse" } else { "01.response.json" };
        let first = recorded(case, first_file);
        let signature = String::from_utf8_lossy(&first)
            .split("\"thoughtSignature\": \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string();
        for driver in DRIVERS {
            let reply = |file: &str| {
                if streamed {
                    stream_reply(pieces(&recorded(case, file)))
                } else {
                    Reply::json(200, recorded(case, file))
                }
            };
            let second_file = if streamed { "02.response.sse" } else { "02.response.json" };
            let server = Server::start(vec![reply(first_file), reply(second_file)]);
            let agent = Agent::builder(client(&server.url())).tool(tool.clone()).build().unwrap();
            let calls = Arc::new(AtomicUsize::new(0));
            let result = run(driver, &agent, &calls, prompt, streamed.then_some(&mut Vec::new()));
            assert!(result.output.contains("Mexico City") || result.output.contains("22C"), "{case} {driver:?}");
            let sent = server.requests()[1].json();
            let model_turn = &sent["contents"][1];
            assert_eq!(model_turn["role"], "model");
            assert_eq!(model_turn["parts"].as_array().unwrap().len(), 1, "{case}: one part, as received");
            assert_eq!(model_turn["parts"][0]["thoughtSignature"], signature.as_str(), "{case} {driver:?}");
            assert!(model_turn["parts"][0]["functionCall"].is_object());
            assert!(sent["contents"][2]["parts"][0]["functionResponse"].is_object());
        }
    }
}

#[test]
fn two_parallel_calls_to_one_tool_are_answered_in_order_and_paired_by_position() {
    for driver in DRIVERS {
        let calls_turn = with_usage(
            chunk(
                json!([
                    call_part("get_temperature", json!({"city": "Paris"})),
                    call_part("get_temperature", json!({"city": "Rome"}))
                ]),
                Some("STOP"),
            ),
            20,
            10,
        );
        let server = Server::start(vec![
            stream_reply([event(&calls_turn)]),
            stream_reply([event(&chunk(json!([{"text": "Both warm."}]), Some("STOP")))]),
        ]);
        let agent = Agent::builder(client(&server.url()))
            .tool(tool("get_temperature", "city", &[("Paris", "18C"), ("Rome", "25C")]))
            .parallel_tools(true)
            .build()
            .unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let result = run(driver, &agent, &calls, "Paris and Rome?", Some(&mut Vec::new()));
        assert_eq!(result.output, "Both warm.", "{driver:?}");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        let ids: Vec<&str> = result.messages[1].tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_1_1", "call_1_2"], "synthesized ids, unique in the turn");
        let second = server.requests()[1].json();
        assert_eq!(
            second["contents"][2],
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "get_temperature", "response": {"result": "18C"}}},
                {"functionResponse": {"name": "get_temperature", "response": {"result": "25C"}}}
            ]}),
            "one user turn, the results in call order"
        );
    }
}

#[test]
fn structured_output_in_native_mode_sends_a_json_schema() {
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body(r#"{"city":"Lagos","celsius":31}"#))]);
        let weather = native_weather(driver, client(&server.url()));
        assert_eq!(weather, Weather { city: "Lagos".into(), celsius: 31 }, "{driver:?}");
        let seen = server.requests()[0].json();
        assert_eq!(seen["generationConfig"]["responseMimeType"], "application/json");
        assert_eq!(seen["generationConfig"]["responseJsonSchema"]["required"], json!(["city", "celsius"]));
    }
}

#[test]
fn typed_output_beside_tools_picks_tool_mode() {
    for driver in DRIVERS {
        let answer = chunk(json!([call_part("final_result", json!({"city": "Lagos", "celsius": 31}))]), Some("STOP"));
        let server = Server::start(vec![stream_reply([event(&answer)])]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(client(&server.url()))
            .tool(tool("get_temperature", "city", &[("Lagos", "31C")]))
            .output::<Weather>()
            .build()
            .unwrap();
        let result = run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "forecast for Lagos", Some(&mut Vec::new()));
        assert_eq!(result.output, Weather { city: "Lagos".into(), celsius: 31 }, "{driver:?}");
        assert_eq!(result.finish_reason, FinishReason::ToolCall);
        let seen = server.requests()[0].json();
        let names: Vec<&str> = seen["tools"][0]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["get_temperature", "final_result"], "the output tool advertised last");
        assert!(seen.get("generationConfig").is_none(), "no response schema beside function tools");
    }
}

#[test]
fn an_image_prompt_goes_inline() {
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body("A red square."))]);
        let agent = Agent::<()>::builder(client(&server.url())).build().unwrap();
        let png = b"\x89PNG\r\n\x1a\n".to_vec();
        let result = run_with_image(driver, &agent, "What is in the picture?", "image/png", png);
        assert_eq!(result.output, "A red square.", "{driver:?}");
        let seen = server.requests()[0].json();
        assert_eq!(
            seen["contents"][0]["parts"],
            json!([{"text": "What is in the picture?"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}])
        );
    }
}

/// A safety stop with no text is reported as filtered, not as an empty
/// answer; one with text completes, its finish reason `content_filter`.
#[test]
fn a_safety_stop_is_reported_as_content_filter() {
    let blocked = json!({"candidates": [{"index": 0, "finishReason": "SAFETY"}]});
    let partial = chunk(json!([{"text": "The first half"}]), Some("SAFETY"));
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, blocked.to_string()), Reply::json(200, partial.to_string())]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(client(&server.url())).build().unwrap();
        let deps = Arc::new(AtomicUsize::new(0));
        let error = match driver {
            Driver::Blocking => agent.run(Arc::clone(&deps), "something unsafe"),
            Driver::Async => futures_lite::future::block_on(agent.run_async(Arc::clone(&deps), "something unsafe")),
        }
        .unwrap_err();
        assert_eq!(error.to_string(), "decode stage: the response was stopped by a content filter", "{driver:?}");
        let result = run(driver, &agent, &deps, "something unsafe", None);
        assert_eq!((result.output.as_str(), result.finish_reason), ("The first half", FinishReason::ContentFilter));
    }
}

#[test]
fn retry_info_is_honoured_by_the_retry_policy() {
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::json(429, status_body(429, "RESOURCE_EXHAUSTED", "Slow down.", retry_info("0.05s"))),
            Reply::json(200, text_body("Hello after a wait.")),
        ]);
        let (output, requests, waits) = retried(driver, client(&server.url()));
        assert_eq!((output.as_str(), requests), ("Hello after a wait.", 2), "{driver:?}");
        assert_eq!(waits, vec![(Duration::from_millis(50), "RESOURCE_EXHAUSTED".to_string())]);
    }
}

#[test]
fn a_streamed_run_returns_what_the_plain_run_returns() {
    let answer = "Paris is the capital of France.";
    let stream = [
        event(&chunk(json!([{"text": "Paris is the "}]), None)),
        event(&with_usage(chunk(json!([{"text": "capital of France."}]), Some("STOP")), 5, 2)),
    ]
    .concat();
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body(answer)), stream_reply(pieces(&stream))]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(client(&server.url())).build().unwrap();
        let deltas = streamed_equals_plain(driver, &agent, "Capital of France?");
        assert_eq!(deltas, vec![Delta::text("Paris is the "), Delta::text("capital of France.")]);
    }
}

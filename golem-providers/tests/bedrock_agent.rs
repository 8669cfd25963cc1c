//! End to end: a `golem_io::Agent` on the Bedrock client against a
//! loopback stand-in, under the blocking and the async driver: a recorded
//! tool round trip (streamed and not), parallel tools, structured output
//! in native and tool mode, an image prompt, and streaming whose result
//! equals the non-streamed one.

use crate::bedrock::{client, event, metadata, recorded, stop, stream_reply, text_body, text_delta};
use crate::drivers::{native_weather, run, run_with_image, streamed_equals_plain, Weather, DRIVERS, WEATHER_SCHEMA};
use crate::server::{Reply, Server};
use golem_core::Delta;
use golem_io::{Agent, JsonDecoder, Tool, ToolContext};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn tool(name: &str, param: &str, answer: &'static str) -> Tool<Arc<AtomicUsize>> {
    let schema = json!({"type": "object", "properties": {param: {"type": "string"}}, "required": [param]});
    Tool::new(name, "", schema, move |ctx: ToolContext<Arc<AtomicUsize>>, _args| {
        ctx.deps().fetch_add(1, Ordering::SeqCst);
        Ok(answer.to_string())
    })
}

fn pieces(body: &[u8]) -> Vec<Vec<u8>> {
    body.chunks(173).map(<[u8]>::to_vec).collect()
}

#[test]
fn a_recorded_streamed_tool_round_trip_replays_under_both_drivers() {
    let case = "converse_stream_tool_use";
    for driver in DRIVERS {
        let server = Server::start(vec![
            stream_reply(pieces(&recorded(case, "01.response.bin"))),
            stream_reply(pieces(&recorded(case, "02.response.bin"))),
        ]);
        let agent = Agent::builder(client(&server.url()))
            .tool(tool("get_capital", "country", "Paris"))
            .tool(tool("get_temperature", "city", "30°C"))
            .build()
            .unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let mut deltas = Vec::new();
        let result =
            run(driver, &agent, &calls, "What is the temperature of the capital of France?", Some(&mut deltas));
        let output = result.output.clone();
        assert!(output.contains("30°C"), "{driver:?}: {output}");
        assert_eq!((result.requests, calls.load(Ordering::SeqCst)), (2, 1));
        assert_eq!((result.usage.input_tokens, result.usage.output_tokens), (471 + 577, 91 + 18));
        let second = server.requests()[1].json();
        let results = &second["messages"][2]["content"][0]["toolResult"];
        assert_eq!(results["toolUseId"], "tooluse_lAG_zP8QRHmSYOwZzzaCqA");
        assert_eq!(results["content"][0]["text"], "30°C");
        assert!(deltas.iter().any(|d| matches!(d, Delta::ToolCall { name, .. } if name == "get_temperature")));
    }
}

#[test]
fn a_recorded_reasoning_tool_round_trip_replays_the_signature() {
    let case = "converse_tool_use_reasoning";
    for driver in DRIVERS {
        let server = Server::start(vec![
            Reply::json(200, recorded(case, "01.response.json")),
            Reply::json(200, recorded(case, "02.response.json")),
        ]);
        let agent =
            Agent::builder(client(&server.url())).tool(tool("get_user_country", "x", "Mexico")).build().unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let result = run(driver, &agent, &calls, "What is the largest city in the user country?", None);
        assert!(result.output.starts_with("Based on your location in Mexico"), "{driver:?}");
        let first: Value = serde_json::from_slice(&recorded(case, "01.response.json")).unwrap();
        let second = server.requests()[1].json();
        assert_eq!(
            second["messages"][1]["content"][0], first["output"]["message"]["content"][0],
            "{driver:?}: the reasoning block goes back unchanged, first"
        );
    }
}

fn tool_start(index: u64, id: &str, name: &str, input: &str) -> Vec<u8> {
    [
        event(
            "contentBlockStart",
            &json!({"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": id, "name": name}}}),
        ),
        event("contentBlockDelta", &json!({"contentBlockIndex": index, "delta": {"toolUse": {"input": input}}})),
        event("contentBlockStop", &json!({"contentBlockIndex": index})),
    ]
    .concat()
}

#[test]
fn parallel_tool_calls_run_and_answer_in_one_turn() {
    for driver in DRIVERS {
        let calls_stream = [
            tool_start(0, "tu_1", "get_temperature", r#"{"city":"Paris"}"#),
            tool_start(1, "tu_2", "get_temperature", r#"{"city":"Rome"}"#),
            stop("tool_use"),
            metadata(20, 10),
        ]
        .concat();
        let server = Server::start(vec![
            stream_reply([calls_stream]),
            stream_reply([crate::bedrock::text_stream("Both warm.")]),
        ]);
        let agent =
            Agent::builder(client(&server.url())).tool(tool("get_temperature", "city", "25°C")).build().unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let result = run(driver, &agent, &calls, "Paris and Rome?", Some(&mut Vec::new()));
        assert_eq!(result.output, "Both warm.", "{driver:?}");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        let second = server.requests()[1].json();
        let content = second["messages"][2]["content"].as_array().unwrap();
        let ids: Vec<&str> = content.iter().map(|b| b["toolResult"]["toolUseId"].as_str().unwrap()).collect();
        assert_eq!(ids, ["tu_1", "tu_2"], "results in call order in one user turn");
    }
}

#[test]
fn structured_output_in_native_mode_uses_output_config() {
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body(r#"{"city":"Lagos","celsius":31}"#))]);
        let weather = native_weather(driver, client(&server.url()));
        assert_eq!(weather, Weather { city: "Lagos".into(), celsius: 31 }, "{driver:?}");
        let seen = server.requests()[0].json();
        let format = &seen["outputConfig"]["textFormat"];
        assert_eq!(format["type"], "json_schema");
        let schema: Value =
            serde_json::from_str(format["structure"]["jsonSchema"]["schema"].as_str().unwrap()).unwrap();
        assert_eq!(schema["required"], json!(["city", "celsius"]));
    }
}

#[test]
fn structured_output_in_tool_mode_calls_the_output_tool() {
    for driver in DRIVERS {
        let answer = [
            tool_start(0, "tu_out", "record_weather", r#"{"city":"Lagos","celsius":31}"#),
            stop("tool_use"),
            metadata(5, 5),
        ]
        .concat();
        let server = Server::start(vec![stream_reply([answer])]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(client(&server.url()))
            .decoder(JsonDecoder::<Weather>::new())
            .output_tool("record_weather", "Record the forecast.", WEATHER_SCHEMA)
            .build()
            .unwrap();
        let result = run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "forecast for Lagos", Some(&mut Vec::new()));
        assert_eq!(result.output, Weather { city: "Lagos".into(), celsius: 31 }, "{driver:?}");
        let seen = server.requests()[0].json();
        assert_eq!(seen["toolConfig"]["tools"][0]["toolSpec"]["name"], "record_weather");
        assert!(seen.get("outputConfig").is_none());
    }
}

#[test]
fn an_image_prompt_goes_as_bytes() {
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body("A red square."))]);
        let agent = Agent::<()>::builder(client(&server.url())).build().unwrap();
        let png = b"\x89PNG\r\n\x1a\n".to_vec();
        let result = run_with_image(driver, &agent, "What is in the picture?", "image/png", png);
        assert_eq!(result.output, "A red square.", "{driver:?}");
        let seen = server.requests()[0].json();
        assert_eq!(
            seen["messages"][0]["content"],
            json!([{"text": "What is in the picture?"}, {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}])
        );
    }
}

#[test]
fn a_streamed_run_returns_what_the_plain_run_returns() {
    let answer = "Paris is the capital of France.";
    let stream = [
        event("messageStart", &json!({"role": "assistant"})),
        text_delta(0, "Paris is the "),
        text_delta(0, "capital of France."),
        event("contentBlockStop", &json!({"contentBlockIndex": 0})),
        stop("end_turn"),
        metadata(5, 2),
    ]
    .concat();
    for driver in DRIVERS {
        let server = Server::start(vec![Reply::json(200, text_body(answer)), stream_reply(pieces(&stream))]);
        let agent = Agent::<Arc<AtomicUsize>>::builder(client(&server.url())).build().unwrap();
        let deltas = streamed_equals_plain(driver, &agent, "Capital of France?");
        assert_eq!(deltas, vec![Delta::text("Paris is the "), Delta::text("capital of France.")]);
    }
}

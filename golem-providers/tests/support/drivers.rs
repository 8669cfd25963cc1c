//! Run an agent on a provider client under the blocking or the async
//! driver, streamed or not: the agent tests of every provider.
#![allow(dead_code)]

use golem_core::Delta;
use golem_io::{Agent, RunResult};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

#[derive(Clone, Copy, Debug)]
pub enum Driver {
    Blocking,
    Async,
}

pub const DRIVERS: [Driver; 2] = [Driver::Blocking, Driver::Async];

/// One run of `prompt`, its deltas collected into `deltas` when given
/// (a streamed run) — panicking, with the driver named, if it fails.
pub fn run<O: Send + 'static>(
    driver: Driver,
    agent: &Agent<Arc<AtomicUsize>, O>,
    calls: &Arc<AtomicUsize>,
    prompt: &str,
    deltas: Option<&mut Vec<Delta>>,
) -> RunResult<O> {
    let result = match (driver, deltas) {
        (Driver::Blocking, None) => agent.run(Arc::clone(calls), prompt),
        (Driver::Async, None) => futures_lite::future::block_on(agent.run_async(Arc::clone(calls), prompt)),
        (Driver::Blocking, Some(deltas)) => {
            agent.run_stream(Arc::clone(calls), prompt, |d: golem_io::StreamDelta<'_>| {
                deltas.push(d.delta.clone());
                Ok(())
            })
        }
        (Driver::Async, Some(deltas)) => futures_lite::future::block_on(agent.run_stream_async(
            Arc::clone(calls),
            prompt,
            |d: golem_io::StreamDelta<'_>| {
                deltas.push(d.delta.clone());
                Ok(())
            },
        )),
    };
    result.unwrap_or_else(|e| panic!("{driver:?}: {e}"))
}

/// A plain and a streamed run of `prompt` (the server answers them in that
/// order) return the same result (SPEC STREAM-01, MODEL-04): output,
/// usage, finish reason and messages, run and conversation ids aside. The
/// streamed run's deltas come back.
pub fn streamed_equals_plain(driver: Driver, agent: &Agent<Arc<AtomicUsize>, String>, prompt: &str) -> Vec<Delta> {
    let calls = Arc::new(AtomicUsize::new(0));
    let plain = run(driver, agent, &calls, prompt, None);
    let mut deltas = Vec::new();
    let streamed = run(driver, agent, &calls, prompt, Some(&mut deltas));
    assert_eq!(streamed.output, plain.output, "{driver:?}");
    assert_eq!(streamed.usage, plain.usage, "{driver:?}");
    assert_eq!(streamed.finish_reason, plain.finish_reason, "{driver:?}");
    let strip = |messages: &[golem_core::Message]| {
        messages
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.run_id.clear();
                m.conversation_id.clear();
                m
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&streamed.messages), strip(&plain.messages), "{driver:?}");
    deltas
}

/// A run of `prompt` with an inline image.
pub fn run_with_image(
    driver: Driver,
    agent: &Agent<(), String>,
    prompt: &str,
    media_type: &str,
    data: Vec<u8>,
) -> RunResult<String> {
    let run = agent.run_with(()).prompt(prompt).image_data(media_type, data);
    let result = match driver {
        Driver::Blocking => run.call(),
        Driver::Async => futures_lite::future::block_on(run.call_async()),
    };
    result.unwrap_or_else(|e| panic!("{driver:?}: {e}"))
}

/// The typed output the structured-output tests of every provider ask for.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
pub struct Weather {
    pub city: String,
    pub celsius: i32,
}

/// [`Weather`]'s schema, strict.
pub const WEATHER_SCHEMA: &str = r#"{"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
    "required": ["city", "celsius"], "additionalProperties": false}"#;

/// A run asking `model` for [`Weather`] with a native schema (SPEC
/// OUT-07): the output is Lagos at 31 °C, which the server must answer.
pub fn native_weather<M: golem_core::model::Model + golem_core::model::AsyncModel + 'static>(
    driver: Driver,
    model: M,
) -> Weather {
    let agent = Agent::<Arc<AtomicUsize>>::builder(model)
        .decoder(golem_io::JsonDecoder::<Weather>::new())
        .output_schema(WEATHER_SCHEMA)
        .build()
        .unwrap();
    run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "forecast for Lagos", None).output
}

/// A run of "hi" on `model` under a policy of two attempts that honours
/// the server's wait (SPEC RETRY-03): its output, its requests, and each
/// retry's delay with the code of its cause.
pub fn retried<M: golem_core::model::Model + golem_core::model::AsyncModel + 'static>(
    driver: Driver,
    model: M,
) -> (String, u64, Vec<(std::time::Duration, String)>) {
    use golem_core::{Backoff, EventKind, RetryPolicy};
    let waits = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&waits);
    let policy = RetryPolicy::new()
        .max_attempts(2)
        .backoff(Backoff::Table { delays: vec![std::time::Duration::ZERO] })
        .honor_retry_after(true);
    let agent = Agent::<Arc<AtomicUsize>>::builder(model)
        .retry_policy(policy)
        .observer(move |event| {
            if let EventKind::Retrying { delay, cause, .. } = &event.kind {
                seen.lock().unwrap().push((*delay, cause.code.clone()));
            }
        })
        .build()
        .unwrap();
    let result = run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "hi", None);
    let waits = waits.lock().unwrap().clone();
    (result.output, result.requests, waits)
}

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

//! Runs started at the same instant against a failing server (issue 17,
//! 32; SPEC RETRY-02, JIT-01), under both drivers: each run draws its own
//! jitter seed from the OS, so runs of one agent wait apart — every wait in
//! its ±25 % band, drawn independently — and each run's log replays its
//! waits exactly; agents with a fixed `.seed(n)` wait alike, for tests.

use crate::models::openai;
use crate::server::{Reply, Server};
use crate::support::SharedLog;

use golem_core::log::{replay, EventLog};
use golem_core::machine::Output;
use golem_core::{EventKind, RetryPolicy, RunEvent, Stage};
use golem_io::Agent;
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

const RUNS: usize = 10;
const ATTEMPTS: u32 = 3;

/// One run: what its observer heard, and its log.
fn run(agent: &Agent<()>, blocking: bool, start: &Barrier) -> (Vec<RunEvent>, String) {
    let (heard, log) = (Arc::new(Mutex::new(Vec::new())), SharedLog::default());
    let observer = Arc::clone(&heard);
    let builder = agent
        .run_with(())
        .prompt("hello")
        .record(log.clone())
        .observer(move |e| observer.lock().unwrap().push(e.clone()));
    start.wait();
    let error = if blocking { builder.call() } else { futures_lite::future::block_on(builder.call_async()) }
        .expect_err("the server only fails");
    let error = error.as_run().expect("a run error");
    assert_eq!((error.stage, error.requests), (Stage::Model, u64::from(ATTEMPTS)));
    assert_eq!(error.model_error().and_then(|e| e.status), Some(503));
    let events = heard.lock().unwrap().clone();
    let text = log.text();
    (events, text)
}

fn waits(events: &[RunEvent]) -> Vec<Duration> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Retrying { delay, .. } => Some(*delay),
            _ => None,
        })
        .collect()
}

/// Run `RUNS` runs of `agents` (taken in turn) at once, half on each driver.
fn together(agents: &[Agent<()>]) -> Vec<(Vec<RunEvent>, String)> {
    let start = Barrier::new(RUNS);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RUNS)
            .map(|i| {
                scope.spawn({
                    let (agent, start) = (&agents[i % agents.len()], &start);
                    move || run(agent, i < RUNS / 2, start)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn overloaded_server() -> Server {
    let overloaded = || Reply::json(503, r#"{"error":{"message":"overloaded","type":"server_error"}}"#);
    Server::start((0..RUNS * ATTEMPTS as usize).map(|_| overloaded()).collect())
}

#[test]
fn jit_01_runs_started_together_draw_their_own_waits_and_each_log_replays_them() {
    let server = overloaded_server();
    let agent = Agent::<()>::builder(openai(&server.url()))
        .retry_policy(RetryPolicy::recommended().max_attempts(ATTEMPTS))
        .build()
        .unwrap();
    let runs = together(std::slice::from_ref(&agent));
    let all: Vec<Vec<Duration>> = runs.iter().map(|(events, _)| waits(events)).collect();
    for retry in 0..(ATTEMPTS - 1) as usize {
        let base = golem_core::Backoff::exponential(retry as u32 + 1);
        let mut at: Vec<Duration> = all.iter().map(|w| w[retry]).collect();
        for wait in &at {
            assert!(*wait >= base.mul_f64(0.75) && *wait < base.mul_f64(1.25), "{wait:?} outside ±25 % of {base:?}");
        }
        at.sort();
        at.dedup();
        assert_eq!(at.len(), RUNS, "retry {}: runs waited alike: {at:?}", retry + 1);
    }
    // Each log names its run's seed and replays to exactly the events the
    // run emitted, its waits included.
    let mut seeds = Vec::new();
    for (events, text) in &runs {
        let log = EventLog::parse(text).unwrap();
        seeds.push(log.header.start.jitter_seed.expect("a recorded seed"));
        let replayed = replay(&log).expect("the log replays");
        let again: Vec<RunEvent> = replayed
            .outputs
            .iter()
            .flatten()
            .filter_map(|o| match o {
                Output::Event(e) => Some(e.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(&again, events);
    }
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), RUNS, "every run drew its own seed");
}

#[test]
fn jit_01_agents_with_a_fixed_seed_wait_alike() {
    let server = overloaded_server();
    let agent = || {
        Agent::<()>::builder(openai(&server.url()))
            .retry_policy(RetryPolicy::recommended().max_attempts(ATTEMPTS))
            .seed(7)
            .build()
            .unwrap()
    };
    let runs = together(&[agent(), agent()]);
    let all: Vec<Vec<Duration>> = runs.iter().map(|(events, _)| waits(events)).collect();
    assert!(all.iter().all(|w| *w == all[0]), "{all:?}");
    for (events, text) in &runs {
        let replayed = replay(&EventLog::parse(text).unwrap()).expect("the log replays");
        let again = replayed.outputs.iter().flatten().filter(|o| matches!(o, Output::Event(_))).count();
        assert_eq!(again, events.len());
    }
}

//! Runs started at the same instant against a failing server retry apart
//! (issue 17, SPEC RETRY-02): each run draws its own jitter phase, so ten
//! runs — of one agent and of a second agent with the same seed, under both
//! drivers — never wait within 5 ms of each other, while each run's log
//! replays its waits exactly.
//!
//! The runs' phases are consecutive steps of their process's sequence, so
//! the test runs alone in a child process: beside the other tests of this
//! binary, whatever runs they started in between would take steps too.

use crate::models::openai;
use crate::proxy::run_in_child;
use crate::server::{Reply, Server};

use golem_core::log::{replay, EventLog};
use golem_core::machine::Output;
use golem_core::{EventKind, RetryPolicy, RunEvent, Stage};
use golem_io::Agent;
use std::io::Write;
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

const MARKER: &str = "GOLEM_RETRY_SPREAD_CHILD";
const RUNS: usize = 10;
const ATTEMPTS: u32 = 3;

/// An in-memory log sink the test reads back.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One run: what its observer heard, and its log.
fn run(agent: &Agent<()>, blocking: bool, start: &Barrier) -> (Vec<RunEvent>, String) {
    let (heard, log) = (Arc::new(Mutex::new(Vec::new())), Log::default());
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
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
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

#[test]
fn runs_started_together_retry_apart_and_each_log_replays_its_waits() {
    if std::env::var_os(MARKER).is_none() {
        run_in_child(
            "retry_spread::runs_started_together_retry_apart_and_each_log_replays_its_waits",
            MARKER,
            &[],
            &[],
        );
        return;
    }
    let overloaded = || Reply::json(503, r#"{"error":{"message":"overloaded","type":"server_error"}}"#);
    let server = Server::start((0..RUNS * ATTEMPTS as usize).map(|_| overloaded()).collect());
    // Two agents with the same seed; the recommended jittered backoff.
    let agent = || {
        Agent::<()>::builder(openai(&server.url()))
            .retry_policy(RetryPolicy::recommended().max_attempts(ATTEMPTS))
            .seed(7)
            .build()
            .unwrap()
    };
    let agents = [agent(), agent()];
    let start = Barrier::new(RUNS);
    let runs: Vec<(Vec<RunEvent>, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RUNS)
            .map(|i| {
                scope.spawn({
                    let (agent, start) = (&agents[i % 2], &start);
                    move || run(agent, i < RUNS / 2, start)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    // Every retry of every run lies more than 5 ms from the same retry of
    // every other run: the waits the runs computed, not wall time.
    let all: Vec<Vec<Duration>> = runs.iter().map(|(events, _)| waits(events)).collect();
    for retry in 0..(ATTEMPTS - 1) as usize {
        let mut at: Vec<Duration> = all.iter().map(|w| w[retry]).collect();
        at.sort();
        for pair in at.windows(2) {
            assert!(pair[1] - pair[0] > Duration::from_millis(5), "retry {}: {at:?}", retry + 1);
        }
    }

    // Each log names its run's phase and replays to exactly the events the
    // run emitted, its waits included.
    let mut phases = Vec::new();
    for (events, text) in &runs {
        let log = EventLog::parse(text).unwrap();
        phases.push(log.header.start.jitter_phase.expect("a recorded phase"));
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
    phases.sort_unstable();
    phases.dedup();
    assert_eq!(phases.len(), RUNS, "every run drew its own phase");
}

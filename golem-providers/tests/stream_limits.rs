//! Model-call time limits by progress (issue 32, SPEC TIME-01), on the
//! OpenAI client against a loopback server, under both drivers: a stream
//! that keeps producing runs well past its first-chunk and idle limits and
//! completes on one request; a stream that falls silent past the idle limit
//! is abandoned and retried, without waiting for the silence to end.

use crate::drivers::{run, DRIVERS};
use crate::models::openai;
use crate::server::{sse_event, stream_end, Part, Reply, Server};

use golem_core::{Backoff, EventKind, ModelErrorKind, RetryPolicy};
use golem_io::Agent;
use serde_json::json;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const IDLE: Duration = Duration::from_millis(400);

fn text(piece: &str) -> Vec<u8> {
    sse_event(&json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]}).to_string())
}

/// `pieces` streamed one every `every`, then the end.
fn paced(pieces: &[&str], every: Duration) -> Reply {
    let mut reply = Reply::sse(Vec::<Vec<u8>>::new());
    for piece in pieces {
        reply = reply.then(Part::Sleep(every)).data(text(piece));
    }
    reply.data(stream_end())
}

/// An agent timing calls by progress only (no total), retrying once at once.
fn agent(server: &Server, causes: &Arc<Mutex<Vec<(ModelErrorKind, String)>>>) -> Agent<Arc<AtomicUsize>> {
    let seen = Arc::clone(causes);
    Agent::<Arc<AtomicUsize>>::builder(openai(&server.url()))
        .retry_policy(
            RetryPolicy::new()
                .max_attempts(2)
                .backoff(Backoff::Table { delays: vec![Duration::ZERO] })
                .discard_and_retry(true),
        )
        .model_deadline(None)
        .first_chunk_timeout(IDLE)
        .idle_timeout(IDLE)
        .observer(move |event| {
            if let EventKind::Retrying { cause, .. } = &event.kind {
                seen.lock().unwrap().push((cause.kind, cause.message.clone()));
            }
        })
        .build()
        .unwrap()
}

#[test]
fn time_01_a_stream_making_progress_outlasts_its_limits_on_both_drivers() {
    for driver in DRIVERS {
        // Twelve pieces 150 ms apart: 1.8 s, over four idle limits.
        let pieces = [
            "a ", "long ", "answer ", "that ", "keeps ", "coming ", "in ", "small ", "steady ", "pieces ", "to ",
            "the end",
        ];
        let server = Server::start(vec![paced(&pieces, Duration::from_millis(150))]);
        let causes = Arc::new(Mutex::new(Vec::new()));
        let agent = agent(&server, &causes);
        let mut deltas = Vec::new();
        let result = run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "write", Some(&mut deltas));
        assert_eq!(result.output, pieces.concat(), "{driver:?}");
        assert_eq!(result.requests, 1, "{driver:?}: never cut");
        assert!(causes.lock().unwrap().is_empty(), "{driver:?}: {:?}", causes.lock().unwrap());
    }
}

#[test]
fn time_01_a_stream_silent_past_the_idle_limit_is_retried_on_both_drivers() {
    for driver in DRIVERS {
        // Two pieces, then five seconds of silence before the rest.
        let stalled = Reply::sse([text("It is "), text("sun")])
            .then(Part::Sleep(Duration::from_secs(5)))
            .data(text("ny."))
            .data(stream_end());
        let whole = paced(&["It is ", "sunny."], Duration::from_millis(10));
        let server = Server::start(vec![stalled, whole]);
        let causes = Arc::new(Mutex::new(Vec::new()));
        let agent = agent(&server, &causes);
        let began = Instant::now();
        let mut deltas = Vec::new();
        let result = run(driver, &agent, &Arc::new(AtomicUsize::new(0)), "weather?", Some(&mut deltas));
        assert_eq!(result.output, "It is sunny.", "{driver:?}");
        assert_eq!(result.requests, 2, "{driver:?}");
        let causes = causes.lock().unwrap().clone();
        assert_eq!(causes.len(), 1, "{driver:?}: {causes:?}");
        assert_eq!(causes[0].0, ModelErrorKind::Timeout, "{driver:?}");
        assert!(causes[0].1.contains("silent for 400 ms"), "{driver:?}: {}", causes[0].1);
        assert!(began.elapsed() < Duration::from_secs(4), "{driver:?}: waited out the silence");
    }
}

//! Where the blocking driver runs a model call that has a deadline (SPEC
//! DRV-02, issue 20): on the calling thread when the model stops by the
//! request's timeout itself, on a worker thread the driver watches when it
//! does not. Either way the machine's timeout policy decides what a
//! deadline means. Simulated time: the model advances a manual clock
//! instead of sleeping.

use golem_core::model::{Capabilities, Model, ModelError, ModelErrorKind, Request, Response};
use golem_core::{Cause, EventKind, RunEvent, Stage};
use golem_io::{Agent, ManualClock};
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

/// What the model saw of one call.
#[derive(Clone, Debug)]
struct Seen {
    thread: ThreadId,
    timeout: Option<Duration>,
}

/// A model that stops by its request's timeout (as a provider client on
/// its HTTP transport does): with `hang`, it runs out the time it was
/// given — on the manual clock — and fails as a transport would.
struct Punctual {
    honours: bool,
    hang: bool,
    clock: Arc<ManualClock>,
    seen: Mutex<Vec<Seen>>,
}

impl Punctual {
    fn new(honours: bool, hang: bool, clock: &Arc<ManualClock>) -> Arc<Self> {
        Arc::new(Punctual { honours, hang, clock: Arc::clone(clock), seen: Mutex::new(Vec::new()) })
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Model for Punctual {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        self.seen.lock().unwrap().push(Seen { thread: thread::current().id(), timeout: request.timeout });
        if !self.hang {
            return Ok(Response::text("on time"));
        }
        let Some(timeout) = request.timeout else { return Err(ModelError::other("no timeout to run out")) };
        self.clock.advance(timeout);
        Err(ModelError::timeout("transport: timed out at the call's deadline"))
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::new().honours_timeout(self.honours)
    }
}

fn events() -> (Arc<Mutex<Vec<RunEvent>>>, impl Fn(&RunEvent) + Send + Sync + 'static) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    (events, move |e: &RunEvent| sink.lock().unwrap().push(e.clone()))
}

#[test]
fn a_model_that_honours_timeouts_runs_on_the_calling_thread_with_the_time_left() {
    let clock = Arc::new(ManualClock::new());
    let model = Punctual::new(true, false, &clock);
    let agent = Agent::<()>::builder(Arc::clone(&model)).model_deadline(Duration::from_secs(30)).build().unwrap();

    let result = agent.run_with(()).prompt("hi").clock(clock).call().unwrap();

    assert_eq!(result.output, "on time");
    let seen = model.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].thread, thread::current().id(), "no thread for a call that stops by itself");
    // The manual clock stands still, so the whole deadline is left.
    assert_eq!(seen[0].timeout, Some(Duration::from_secs(30)));
}

#[test]
fn a_model_that_does_not_honour_timeouts_is_watched_from_a_worker_and_never_sees_one() {
    let clock = Arc::new(ManualClock::new());
    let model = Punctual::new(false, false, &clock);
    let agent = Agent::<()>::builder(Arc::clone(&model)).model_deadline(Duration::from_secs(30)).build().unwrap();

    let result = agent.run_with(()).prompt("hi").clock(clock).call().unwrap();

    assert_eq!(result.output, "on time");
    let seen = model.seen();
    assert_ne!(seen[0].thread, thread::current().id());
    assert_eq!(seen[0].timeout, None, "a model that cannot stop by it is not given one");
}

#[test]
fn without_a_deadline_no_timeout_is_given_and_the_call_stays_on_the_calling_thread() {
    let clock = Arc::new(ManualClock::new());
    let model = Punctual::new(true, false, &clock);
    let agent = Agent::<()>::builder(Arc::clone(&model)).model_deadline(None).build().unwrap();

    agent.run_with(()).prompt("hi").clock(clock).call().unwrap();

    let seen = model.seen();
    assert_eq!((seen[0].thread, seen[0].timeout), (thread::current().id(), None));
}

#[test]
fn a_call_stopped_at_its_deadline_is_the_machines_timeout_with_no_late_result() {
    let clock = Arc::new(ManualClock::new());
    let model = Punctual::new(true, true, &clock);
    let agent = Agent::<()>::builder(Arc::clone(&model))
        .model_deadline(Duration::from_millis(200))
        .max_attempts(2)
        // No pause between attempts: the manual clock stands still.
        .backoff(|_| Duration::ZERO)
        .build()
        .unwrap();
    let (events, observer) = events();

    let error = agent.run_with(()).prompt("hi").clock(clock).observer(observer).call().unwrap_err();

    let error = error.as_run().expect("a run error");
    assert_eq!(error.stage, Stage::Model);
    let Cause::Model(cause) = &error.cause else { panic!("{:?}", error.cause) };
    assert_eq!(cause.kind, ModelErrorKind::Timeout);
    // The machine's own words for a deadline, not the model's: the driver
    // fed what it feeds when a deadline passes, and the machine decided.
    assert_eq!(cause.message, "model call exceeded its deadline of 200 ms");
    let seen = model.seen();
    assert_eq!(seen.len(), 2, "the timeout policy retried once");
    assert!(seen.iter().all(|s| s.thread == thread::current().id() && s.timeout == Some(Duration::from_millis(200))));
    let events = events.lock().unwrap();
    assert!(!events.iter().any(|e| matches!(e.kind, EventKind::LateResult { .. })), "{events:?}");
}

#[test]
fn a_streamed_call_runs_on_a_worker_as_before() {
    use golem_core::model::{Delta, DeltaSink, StreamingModel};
    struct Streams(Mutex<Option<ThreadId>>);
    impl StreamingModel for Streams {
        fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
            *self.0.lock().unwrap() = Some(thread::current().id());
            sink.delta(Delta::text("hi")).map_err(ModelError::sink_aborted)?;
            Ok(Response::text("hi"))
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::new().honours_timeout(true)
        }
    }
    let model = Arc::new(Streams(Mutex::new(None)));
    let agent = Agent::<()>::builder(Arc::clone(&model)).build().unwrap();

    let result = agent.run_with(()).prompt("hi").stream(true).call().unwrap();

    assert_eq!(result.output, "hi");
    let ran_on = model.0.lock().unwrap().expect("the model ran");
    assert_ne!(ran_on, thread::current().id(), "fragments reach the driver from a worker");
}

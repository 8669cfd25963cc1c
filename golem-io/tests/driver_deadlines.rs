//! Where the blocking driver runs a model call that has a deadline (SPEC
//! DRV-02, issue 20): on the calling thread when the model stops by the
//! request's timeout itself, on a worker thread the driver watches when it
//! does not — streamed calls included. The async driver (issue 37) gives a
//! plain call to such a model its deadline and arms no timer for it.
//! Either way the machine's timeout policy decides what a deadline means.
//! Simulated time: the model advances a manual clock instead of sleeping.

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

/// Stream one run of `model` on a manual `clock` — a 200 ms model deadline,
/// two attempts, no pause between them, `discard` as `discard_and_retry` —
/// recorded or not. Returns the run's result and what the delta callback
/// was told (a discarded turn as `<discarded>`), and checks nothing waited
/// on the wall clock and a recorded run left a log.
fn stream_with_deadline<M: golem_core::model::StreamingModel + 'static>(
    model: Arc<M>,
    clock: Arc<ManualClock>,
    discard: bool,
    recorded: bool,
) -> (Result<golem_io::RunResult<String>, golem_io::Error>, Vec<String>) {
    let agent = Agent::<()>::builder(model)
        .model_deadline(Duration::from_millis(200))
        .max_attempts(2)
        .backoff(|_| Duration::ZERO)
        .discard_and_retry(discard)
        .build()
        .unwrap();
    let told = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&told);
    let mut log = Vec::new();
    let mut run = agent.run_with(()).prompt("hi").clock(clock).on_delta(move |d| {
        let shown = if d.discarded { "<discarded>" } else { d.text().unwrap_or_default() };
        sink.lock().unwrap().push(shown.to_string());
        Ok(())
    });
    if recorded {
        run = run.record(&mut log);
    }
    let started = std::time::Instant::now();
    let result = run.call();
    assert!(started.elapsed() < Duration::from_secs(5), "recorded {recorded}: nothing waited on the wall clock");
    assert_eq!(log.is_empty(), !recorded);
    let told = told.lock().unwrap().clone();
    (result, told)
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

/// An agent on `model` with a 200 ms model deadline and two attempts, no
/// pause between them (the manual clock stands still).
fn retried_at_200_ms(model: &Arc<Punctual>) -> Agent<()> {
    Agent::<()>::builder(Arc::clone(model))
        .model_deadline(Duration::from_millis(200))
        .max_attempts(2)
        .backoff(|_| Duration::ZERO)
        .build()
        .unwrap()
}

/// The run ended with the machine's own timeout — its words for a
/// deadline, not the model's: the driver fed what it feeds when a deadline
/// passes, and the machine decided — after the policy retried once, each
/// call given the whole 200 ms, and no late result.
fn assert_the_machines_timeout(
    result: Result<golem_io::RunResult<String>, golem_io::Error>,
    seen: &[Seen],
    events: &[RunEvent],
) {
    let error = result.unwrap_err();
    let error = error.as_run().expect("a run error");
    assert_eq!(error.stage, Stage::Model);
    let Cause::Model(cause) = &error.cause else { panic!("{:?}", error.cause) };
    assert_eq!(cause.kind, ModelErrorKind::Timeout);
    assert_eq!(cause.message, "model call exceeded its deadline of 200 ms");
    assert_eq!(seen.len(), 2, "the timeout policy retried once");
    assert!(seen.iter().all(|s| s.timeout == Some(Duration::from_millis(200))), "{seen:?}");
    assert!(!events.iter().any(|e| matches!(e.kind, EventKind::LateResult { .. })), "{events:?}");
    let retried = events.iter().filter(|e| matches!(e.kind, EventKind::Retrying { .. })).count();
    assert_eq!(retried, 1, "{events:?}");
}

#[test]
fn a_call_stopped_at_its_deadline_is_the_machines_timeout_with_no_late_result() {
    let clock = Arc::new(ManualClock::new());
    let model = Punctual::new(true, true, &clock);
    let agent = retried_at_200_ms(&model);
    let (events, observer) = events();

    let result = agent.run_with(()).prompt("hi").clock(clock).observer(observer).call();

    let seen = model.seen();
    assert_the_machines_timeout(result, &seen, &events.lock().unwrap());
    assert!(seen.iter().all(|s| s.thread == thread::current().id()), "{seen:?}");
}

/// Issue 20: a lone streamed call of a model that stops at its deadline
/// runs on the calling thread like a plain one, and each fragment is told
/// to the run's audience before the model produces the next — no worker,
/// no channel, nothing buffered.
#[test]
fn a_lone_streamed_call_runs_on_the_calling_thread_telling_each_fragment_at_once() {
    use golem_core::model::{Delta, DeltaSink, StreamingModel};
    use std::sync::atomic::{AtomicUsize, Ordering};
    struct Streams {
        ran_on: Mutex<Option<ThreadId>>,
        told: Arc<AtomicUsize>,
        told_before: Mutex<Vec<usize>>,
    }
    impl StreamingModel for Streams {
        fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
            *self.ran_on.lock().unwrap() = Some(thread::current().id());
            for piece in ["a", "b", "c"] {
                self.told_before.lock().unwrap().push(self.told.load(Ordering::SeqCst));
                sink.delta(Delta::text(piece)).map_err(ModelError::sink_aborted)?;
            }
            Ok(Response::text("abc"))
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::new().honours_timeout(true)
        }
    }
    let told = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(Streams { ran_on: Mutex::new(None), told: Arc::clone(&told), told_before: Mutex::default() });
    let agent = Agent::<()>::builder(Arc::clone(&model)).build().unwrap();

    let counter = Arc::clone(&told);
    let run = agent.run_with(()).prompt("hi").on_delta(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        Ok(())
    });
    let result = run.call().unwrap();

    assert_eq!(result.output, "abc");
    assert_eq!(model.ran_on.lock().unwrap().expect("the model ran"), thread::current().id());
    assert_eq!(*model.told_before.lock().unwrap(), [0, 1, 2], "each fragment was told before the next was made");
}

/// Issue 20: a streamed call on the calling thread whose deadline passes
/// between two fragments. The fragment that comes after the deadline is
/// refused and never told; the machine's timeout policy decides — here the
/// turn's fragments were already forwarded, so it does not retry (SPEC
/// RETRY-06) and the run fails with the machine's own timeout.
#[test]
fn a_streamed_call_on_the_calling_thread_stops_when_its_deadline_passes_mid_stream() {
    use golem_core::model::{Delta, DeltaSink, StreamingModel};
    struct Overruns {
        clock: Arc<ManualClock>,
        refused: Mutex<Option<bool>>,
    }
    impl StreamingModel for Overruns {
        fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
            sink.delta(Delta::text("early ")).map_err(ModelError::sink_aborted)?;
            // The deadline passes while the model works on.
            self.clock.advance(request.timeout.expect("a call on the calling thread gets its timeout"));
            let refused = sink.delta(Delta::text("too late")).is_err();
            *self.refused.lock().unwrap() = Some(refused);
            Ok(Response::text("early too late"))
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::new().honours_timeout(true)
        }
    }
    // Recorded too: a recording machine queues each input's outputs ahead,
    // which the driver's thread must drain exactly as its loop would.
    for recorded in [false, true] {
        let clock = Arc::new(ManualClock::new());
        let model = Arc::new(Overruns { clock: Arc::clone(&clock), refused: Mutex::new(None) });

        let (result, told) = stream_with_deadline(Arc::clone(&model), clock, false, recorded);

        assert_eq!(*model.refused.lock().unwrap(), Some(true), "the sink refused the fragment after the deadline");
        assert_eq!(told, ["early "]);
        let error = result.unwrap_err();
        let error = error.as_run().expect("a run error");
        assert_eq!(error.stage, Stage::Model);
        let Cause::Model(cause) = &error.cause else { panic!("{:?}", error.cause) };
        assert_eq!(cause.kind, ModelErrorKind::Timeout);
        assert_eq!(cause.message, "model call exceeded its deadline of 200 ms");
        assert_eq!(error.requests, 1);
        let partial = error.partial.as_ref().and_then(|p| p.incomplete.as_ref()).expect("the cut turn is evidence");
        assert_eq!(partial.content, "early ");
    }
}

/// Issue 20: as above, with the run allowed to discard a streamed turn
/// (SPEC RETRY-06): the machine cancels the overrunning call mid-stream and
/// commands a retry, which streams on the calling thread again — recorded
/// or not, with nothing waiting on the wall clock.
#[test]
fn a_streamed_call_cut_by_its_deadline_is_retried_on_the_calling_thread() {
    use golem_core::model::{Delta, DeltaSink, StreamingModel};
    struct SlowThenQuick {
        clock: Arc<ManualClock>,
        calls: Mutex<Vec<ThreadId>>,
    }
    impl StreamingModel for SlowThenQuick {
        fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
            let first = {
                let mut calls = self.calls.lock().unwrap();
                calls.push(thread::current().id());
                calls.len() == 1
            };
            if first {
                sink.delta(Delta::text("early ")).map_err(ModelError::sink_aborted)?;
                self.clock.advance(request.timeout.expect("a call on the calling thread gets its timeout"));
                sink.delta(Delta::text("too late")).map_err(ModelError::sink_aborted)?;
                return Ok(Response::text("early too late"));
            }
            sink.delta(Delta::text("ok")).map_err(ModelError::sink_aborted)?;
            Ok(Response::text("ok"))
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::new().honours_timeout(true)
        }
    }
    for recorded in [false, true] {
        let clock = Arc::new(ManualClock::new());
        let model = Arc::new(SlowThenQuick { clock: Arc::clone(&clock), calls: Mutex::default() });

        let (result, told) = stream_with_deadline(Arc::clone(&model), clock, true, recorded);

        assert_eq!(result.unwrap().output, "ok");
        assert_eq!(told, ["early ", "<discarded>", "ok"], "recorded {recorded}");
        let calls = model.calls.lock().unwrap();
        assert_eq!(calls.len(), 2);
        assert!(calls.iter().all(|t| *t == thread::current().id()), "both attempts streamed on the calling thread");
    }
}

/// The async driver's run of `agent` on `clock`, observed.
fn run_async(
    agent: &Agent<()>,
    clock: &Arc<ManualClock>,
) -> (Result<golem_io::RunResult<String>, golem_io::Error>, Vec<RunEvent>) {
    let (events, observer) = events();
    let run = agent.run_with(()).prompt("hi").clock(clock.clone()).observer(observer);
    let result = async_io::block_on(run.call_async());
    let events = events.lock().unwrap().clone();
    (result, events)
}

/// Issue 37: on the async driver a model that stops by its request's
/// timeout is given the time left, whichever face it is called by — here
/// on the blocking pool; one that cannot is given none (the driver's timer
/// watches it instead).
#[test]
fn the_async_driver_gives_the_deadline_to_a_model_that_honours_it_and_to_no_other() {
    for honours in [true, false] {
        let clock = Arc::new(ManualClock::new());
        let model = Punctual::new(honours, false, &clock);
        let agent = Agent::<()>::builder(Arc::clone(&model)).model_deadline(Duration::from_secs(30)).build().unwrap();

        let (result, _) = run_async(&agent, &clock);

        assert_eq!(result.unwrap().output, "on time");
        let expected = honours.then_some(Duration::from_secs(30));
        assert_eq!(model.seen()[0].timeout, expected, "honours {honours}");
    }
}

/// Issue 37: an async model (its native face) that honours timeouts is
/// given the deadline too; without a deadline it is given none.
#[test]
fn the_async_driver_gives_an_async_model_its_deadline_only_when_there_is_one() {
    use golem_core::model::{AsyncModel, BoxFuture};
    struct Punctually(Mutex<Vec<Option<Duration>>>);
    impl AsyncModel for Punctually {
        fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
            self.0.lock().unwrap().push(request.timeout);
            Box::pin(async { Ok(Response::text("on time")) })
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::new().honours_timeout(true)
        }
    }
    for deadline in [Some(Duration::from_secs(45)), None] {
        let model = Arc::new(Punctually(Mutex::default()));
        let agent = Agent::<()>::builder_async(Arc::clone(&model)).model_deadline(deadline).build().unwrap();

        let (result, _) = run_async(&agent, &Arc::new(ManualClock::new()));

        assert_eq!(result.unwrap().output, "on time");
        assert_eq!(*model.0.lock().unwrap(), [deadline]);
    }
}

/// Issue 37: a plain call the model stopped at its deadline is, on the
/// async driver as on the blocking one, the machine's own timeout: the
/// driver feeds the deadline passing, the policy retries once, no late
/// result — and no timer ran (the manual clock stands still between the
/// calls, so a timer for 200 ms of it would have waited on the wall clock
/// and then fed the model's error as a late result).
#[test]
fn on_the_async_driver_a_call_stopped_at_its_deadline_is_the_machines_timeout() {
    let clock = Arc::new(ManualClock::new());
    let model = Punctual::new(true, true, &clock);

    let (result, events) = run_async(&retried_at_200_ms(&model), &clock);

    assert_the_machines_timeout(result, &model.seen(), &events);
}

/// Issue 37: a streamed call keeps the async driver's timer — its
/// fragments reach the machine as they come — so the model is given no
/// timeout even when it could honour one.
#[test]
fn on_the_async_driver_a_streamed_call_is_watched_by_the_timer_not_given_a_timeout() {
    use golem_core::model::{Delta, DeltaSink, StreamingModel};
    struct Streams(Mutex<Vec<Option<Duration>>>);
    impl StreamingModel for Streams {
        fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
            self.0.lock().unwrap().push(request.timeout);
            sink.delta(Delta::text("streamed")).map_err(ModelError::sink_aborted)?;
            Ok(Response::text("streamed"))
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::new().honours_timeout(true)
        }
    }
    let model = Arc::new(Streams(Mutex::default()));
    let agent = Agent::<()>::builder(Arc::clone(&model)).model_deadline(Duration::from_secs(30)).build().unwrap();

    let run = agent.run_with(()).prompt("hi").on_delta(|_| Ok(()));
    let result = async_io::block_on(run.call_async()).unwrap();

    assert_eq!(result.output, "streamed");
    assert_eq!(*model.0.lock().unwrap(), [None]);
}

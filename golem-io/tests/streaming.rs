//! Streamed runs on both drivers (SPEC STREAM-01..03, MODEL-02, MODEL-04):
//! every fragment reaches the delta callback in arrival order across tool
//! turns and correction rounds, interleaved with the run's events; a failing
//! callback stops the run at the model stage with its error in the
//! `source()` chain; a chain that cannot stream fails before any request.
//! The blocking driver is exercised with both placements of a streamed call
//! (issue 20): on a worker that reports through a channel (a model that
//! cannot stop at its deadline itself) and on the calling thread, feeding
//! the machine fragment by fragment (one that can).

use golem_core::machine::SetupError;
use golem_core::model::{Capabilities, DeltaSink, ModelError, ModelErrorKind, Request, Response, StreamingModel};
use golem_core::testing::{assemble, ScriptedModel};
use golem_core::{Cause, Delta, EventKind, FinishReason, Message, Model, Role, Stage, ThinkingBlock, ToolCall, Usage};
use golem_io::{decode_fn, Agent, DecodeError, Error, RunBuilder, RunResult, Tool, ToolContext};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
enum Driver {
    /// The blocking driver, the streamed call on a worker thread.
    Blocking,
    /// The blocking driver, the streamed call on the calling thread.
    BlockingHere,
    Async,
}

const DRIVERS: [Driver; 3] = [Driver::Blocking, Driver::BlockingHere, Driver::Async];

fn call<O: 'static>(driver: Driver, run: RunBuilder<'_, (), O>) -> Result<RunResult<O>, Error> {
    match driver {
        Driver::Blocking | Driver::BlockingHere => run.call(),
        Driver::Async => futures_lite::future::block_on(run.call_async()),
    }
}

/// `model` as `driver` needs it: for `BlockingHere`, saying it stops at a
/// call's deadline itself, which is what lets the blocking driver run a
/// lone call — streamed too — on the calling thread (SPEC DRV-02).
fn placed(driver: Driver, model: ScriptedModel) -> ScriptedModel {
    match driver {
        Driver::BlockingHere => model.with_capabilities(Capabilities::new().honours_timeout(true)),
        Driver::Blocking | Driver::Async => model,
    }
}

/// What the run's audience saw, in order.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    /// An event other than a fragment (its JSON tag).
    Event(String),
    /// A fragment as an event.
    DeltaEvent(Delta),
    /// A fragment as the callback got it.
    Callback(Delta),
}

/// A tool turn (thinking, text and a call), a rejected answer, a corrected one.
fn three_turns() -> ScriptedModel {
    let thinking = ThinkingBlock::text("the user wants a digit").with_signature("sig-1");
    let mut first = Message::assistant("let me look").with_thinking(vec![thinking]);
    first.tool_calls = vec![ToolCall::new("c1", "lookup", r#"{"word":"seven"}"#)];
    let first = Response::new(first).with_usage(Usage::new(10, 5)).with_finish_reason(FinishReason::ToolCall);
    ScriptedModel::new().chunk_size(3).respond(first).text("seven").text("7")
}

fn agent(model: ScriptedModel) -> Agent<(), i64> {
    let lookup = Tool::new("lookup", "", json!({"type": "object"}), |_: ToolContext<()>, _| Ok("7"));
    Agent::builder(model)
        .tool(lookup)
        .decoder(decode_fn(|_ctx, r: &Response| {
            r.message.content.trim().parse::<i64>().map_err(|_| DecodeError::retry("answer with digits"))
        }))
        .output_retries(1)
        .build()
        .unwrap()
}

fn streamed(driver: Driver) -> (RunResult<i64>, Vec<Seen>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (events, fragments) = (Arc::clone(&seen), Arc::clone(&seen));
    let agent = agent(placed(driver, three_turns()));
    let run = agent
        .run_with(())
        .prompt("which digit?")
        // Pinned ids: streamed and plain results compare byte for byte (SPEC EXTRA-01).
        .run_id("r-1")
        .conversation_id("c-1")
        .observer(move |e| {
            let seen = match &e.kind {
                EventKind::Delta { delta, .. } => Seen::DeltaEvent(delta.clone()),
                other => Seen::Event(serde_json::to_value(other).unwrap()["event"].as_str().unwrap().to_string()),
            };
            events.lock().unwrap().push(seen);
        })
        .on_delta(move |d| {
            fragments.lock().unwrap().push(Seen::Callback(d.delta.clone()));
            Ok(())
        });
    let result = call(driver, run).unwrap();
    let seen = seen.lock().unwrap().clone();
    (result, seen)
}

#[test]
fn fragments_arrive_in_order_across_a_tool_turn_and_a_correction_round() {
    for driver in DRIVERS {
        let (result, seen) = streamed(driver);

        // Each fragment reaches the callback right after its event.
        for (i, item) in seen.iter().enumerate() {
            match item {
                Seen::DeltaEvent(d) => assert_eq!(seen.get(i + 1), Some(&Seen::Callback(d.clone())), "{driver:?}"),
                Seen::Callback(d) => assert_eq!(seen[i - 1], Seen::DeltaEvent(d.clone()), "{driver:?}"),
                Seen::Event(_) => {}
            }
        }
        // Per turn (model_start to model_end), the fragments assemble into
        // exactly the assistant message the run recorded (SPEC MODEL-04).
        let mut turns: Vec<Vec<Delta>> = Vec::new();
        for item in &seen {
            match item {
                Seen::Event(tag) if tag == "model_start" => turns.push(Vec::new()),
                Seen::Callback(d) => turns.last_mut().unwrap().push(d.clone()),
                _ => {}
            }
        }
        let assistant: Vec<&Message> = result.messages.iter().filter(|m| m.role == Role::Assistant).collect();
        assert_eq!(turns.len(), 3, "{driver:?}");
        for (deltas, message) in turns.iter().zip(&assistant) {
            // The fragments are the provider's; the run's ids are stamped after.
            let mut assembled = assemble(deltas).unwrap();
            (assembled.run_id, assembled.conversation_id) = ("r-1".into(), "c-1".into());
            assert_eq!(&assembled, *message, "{driver:?}");
        }
        let kinds: Vec<&str> = turns[0]
            .iter()
            .map(|d| match d {
                Delta::Thinking { .. } => "thinking",
                Delta::Text { .. } => "text",
                Delta::ToolCall { .. } => "tool_call",
                _ => "other",
            })
            .collect();
        assert!(kinds.contains(&"thinking") && kinds.contains(&"text") && kinds.contains(&"tool_call"), "{kinds:?}");
        assert_eq!(result.output, 7);
    }
}

/// STREAM-01 (issue 11): the delta callback gets each fragment's turn and
/// round, so a UI tells the text written before a tool call (turn 0), a
/// rejected answer (round 0, turn 1) and the final answer (round 1, turn 0)
/// apart.
#[test]
fn stream_01_the_delta_callback_gets_the_turn_and_round() {
    for driver in DRIVERS {
        let agent = agent(placed(driver, three_turns()));
        let texts: Arc<Mutex<Vec<(u32, u32, String)>>> = Arc::default();
        let sink = Arc::clone(&texts);
        let run = agent.run_with(()).prompt("which digit?").on_delta(move |d| {
            let mut texts = sink.lock().unwrap();
            if d.is_tool_call() {
                assert_eq!((d.round, d.turn), (0, 0), "only the first turn calls a tool");
            }
            if let Some(text) = d.text() {
                assert_eq!((d.attempt, d.member), (1, 0));
                match texts.last_mut() {
                    Some((round, turn, shown)) if (*round, *turn) == (d.round, d.turn) => shown.push_str(text),
                    _ => texts.push((d.round, d.turn, text.to_string())),
                }
            }
            Ok(())
        });
        assert_eq!(call(driver, run).unwrap().output, 7);
        let texts = texts.lock().unwrap().clone();
        assert_eq!(
            texts,
            [(0, 0, "let me look".to_string()), (0, 1, "seven".to_string()), (1, 0, "7".to_string())],
            "{driver:?}"
        );
    }
}

#[test]
fn a_streamed_run_returns_what_a_plain_run_does_on_both_drivers() {
    let plain = agent(three_turns()).run_with(()).prompt("which digit?").run_id("r-1").conversation_id("c-1").call();
    let plain = serde_json::to_string(&plain.unwrap()).unwrap();
    let (blocking, blocking_seen) = streamed(Driver::Blocking);
    let (here, here_seen) = streamed(Driver::BlockingHere);
    let (asynchronous, async_seen) = streamed(Driver::Async);
    assert_eq!(serde_json::to_string(&blocking).unwrap(), plain);
    assert_eq!(serde_json::to_string(&here).unwrap(), plain);
    assert_eq!(serde_json::to_string(&asynchronous).unwrap(), plain);
    assert_eq!(blocking_seen, async_seen, "both drivers tell the same story");
    assert_eq!(here_seen, async_seen, "so does the blocking driver streaming on the calling thread");
}

#[derive(Debug, thiserror::Error)]
#[error("the reader hung up")]
struct HungUp;

/// The callback's error, found by walking the `source()` chain.
fn find_hung_up(err: &Error) -> bool {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = next {
        if e.downcast_ref::<HungUp>().is_some() {
            return true;
        }
        next = e.source();
    }
    false
}

/// A delta callback that hangs up at its second fragment, counting what
/// it got in `calls`.
fn hangs_up_at_the_second(
    calls: &mut usize,
) -> impl FnMut(golem_io::StreamDelta<'_>) -> Result<(), golem_core::model::BoxError> + Send + '_ {
    move |_| {
        *calls += 1;
        if *calls == 2 {
            return Err(HungUp.into());
        }
        Ok(())
    }
}

#[test]
fn a_failing_callback_stops_the_run_at_the_model_stage_with_its_error_as_source() {
    for driver in DRIVERS {
        let model = placed(driver, ScriptedModel::new().chunk_size(2).text("a long answer in many pieces"));
        let agent = Agent::<()>::builder(model.clone()).build().unwrap();
        let mut calls = 0;
        let run = agent.run_with(()).prompt("talk").on_delta(hangs_up_at_the_second(&mut calls));

        let err = call(driver, run).unwrap_err();

        assert_eq!(calls, 2, "{driver:?}: no fragment after the error");
        assert_eq!(err.stage(), Some(Stage::Model), "{driver:?}");
        let run_err = err.as_run().unwrap();
        let Cause::Model(model_err) = &run_err.cause else { panic!("{:?}", run_err.cause) };
        assert_eq!(model_err.kind, ModelErrorKind::SinkAborted);
        assert!(!model_err.retryable);
        assert!(find_hung_up(&err), "{driver:?}: the callback's error is in the source chain");
        assert_eq!(run_err.requests, 1);
    }
}

/// A model that ignores its sink's refusal, sends every fragment and
/// answers anyway; says whether it stops by a deadline itself.
struct Deaf {
    honours_timeout: bool,
}

impl StreamingModel for Deaf {
    fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        for piece in ["a", "b", "c", "d"] {
            let _ = sink.delta(Delta::text(piece));
        }
        Ok(Response::text("abcd"))
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::new().honours_timeout(self.honours_timeout)
    }
}

/// STREAM-02 with a model that breaks the sink contract: the callback's
/// error is still the call's answer and nothing after it reaches the run,
/// wherever the call ran.
#[test]
fn a_callback_error_stops_the_run_even_when_the_model_ignores_it() {
    for (driver, honours_timeout) in
        [(Driver::Blocking, false), (Driver::BlockingHere, true), (Driver::Async, false), (Driver::Async, true)]
    {
        let agent = Agent::<()>::builder(Deaf { honours_timeout }).build().unwrap();
        let deltas = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&deltas);
        let mut calls = 0;
        let run = agent
            .run_with(())
            .prompt("talk")
            .observer(move |e| {
                if matches!(e.kind, EventKind::Delta { .. }) {
                    count.fetch_add(1, Ordering::SeqCst);
                }
            })
            .on_delta(hangs_up_at_the_second(&mut calls));

        let err = call(driver, run).unwrap_err();

        assert_eq!(calls, 2, "{driver:?}: no fragment after the error");
        assert_eq!(deltas.load(Ordering::SeqCst), 2, "{driver:?}: no fragment event after the error");
        assert_eq!(err.stage(), Some(Stage::Model), "{driver:?}");
        let Cause::Model(model_err) = &err.as_run().unwrap().cause else { panic!("{driver:?}: {err:?}") };
        assert_eq!(model_err.kind, ModelErrorKind::SinkAborted, "{driver:?}");
        assert!(find_hung_up(&err), "{driver:?}: the callback's error is in the source chain");
    }
}

#[test]
fn a_panicking_callback_fails_the_run_instead_of_the_process() {
    for driver in DRIVERS {
        let agent = Agent::<()>::builder(placed(driver, ScriptedModel::new().text("hello there"))).build().unwrap();
        let run = agent.run_with(()).prompt("talk").on_delta(|_| panic!("callback bug"));
        let err = call(driver, run).unwrap_err();
        assert_eq!(err.stage(), Some(Stage::Model), "{driver:?}");
        assert!(err.to_string().contains("the delta callback panicked"), "{err}");
    }
}

/// A scripted model behind a face that does not stream: `Model` only.
struct PlainOnly(ScriptedModel);

impl Model for PlainOnly {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        Model::generate(&self.0, request)
    }
}

#[test]
fn stream_03_a_model_that_cannot_stream_is_a_setup_error_before_any_request() {
    for driver in DRIVERS {
        let model = ScriptedModel::new().text("never");
        let agent = Agent::<()>::builder(PlainOnly(model.clone())).build().unwrap();
        let err = call(driver, agent.run_with(()).prompt("hi").on_delta(|_| Ok(()))).unwrap_err();
        assert_eq!(err.as_setup(), Some(&SetupError::StreamingUnsupported), "{driver:?}");
        assert_eq!(model.request_count(), 0, "{driver:?}");
    }
}

/// MODEL-02 (issue 11): the streaming capability follows from implementing
/// streaming — a model implementing only `StreamingModel::stream` (no
/// capability to set, no `generate`) streams, and its plain runs work too.
#[test]
fn model_02_implementing_stream_is_all_a_streaming_model_needs() {
    struct TwoFragments;
    impl StreamingModel for TwoFragments {
        fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
            for fragment in ["good ", "morning"] {
                sink.delta(Delta::text(fragment)).map_err(ModelError::sink_aborted)?;
            }
            Ok(Response::text("good morning"))
        }
    }
    let agent = Agent::<()>::builder(TwoFragments).build().unwrap();
    for driver in DRIVERS {
        let fragments = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&fragments);
        let run = agent.run_with(()).prompt("greet me").on_delta(move |d| {
            sink.lock().unwrap().extend(d.text().map(str::to_string));
            Ok(())
        });
        assert_eq!(call(driver, run).unwrap().output, "good morning", "{driver:?}");
        assert_eq!(fragments.lock().unwrap().join("|"), "good |morning", "{driver:?}");
    }
    assert_eq!(agent.run((), "plain").unwrap().output, "good morning");
}

/// A blocking-only model streaming one fragment every few milliseconds; it
/// stops when its sink refuses a fragment, and counts what it sent.
struct Ticker {
    sent: Arc<AtomicUsize>,
}

impl StreamingModel for Ticker {
    fn generate(&self, _: &Request) -> Result<Response, ModelError> {
        Ok(Response::text("tick ".repeat(100)))
    }

    fn stream(&self, _: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        for _ in 0..100 {
            std::thread::sleep(Duration::from_millis(3));
            sink.delta(Delta::text("tick ")).map_err(ModelError::sink_aborted)?;
            self.sent.fetch_add(1, Ordering::SeqCst);
        }
        Ok(Response::text("tick ".repeat(100)))
    }
}

#[test]
fn a_blocking_model_streams_through_the_async_driver_and_stops_when_told() {
    let sent = Arc::new(AtomicUsize::new(0));
    let agent = Agent::<()>::builder(Ticker { sent: Arc::clone(&sent) }).build().unwrap();
    let mut pieces = 0;
    let started = Instant::now();
    let err = smol::block_on(agent.run_stream_async((), "count", |_| {
        pieces += 1;
        if pieces == 3 {
            return Err(HungUp.into());
        }
        Ok(())
    }))
    .unwrap_err();

    assert!(started.elapsed() < Duration::from_millis(250), "took {:?}", started.elapsed());
    assert!(find_hung_up(&err));
    std::thread::sleep(Duration::from_millis(30));
    assert!(sent.load(Ordering::SeqCst) < 10, "the model stopped streaming: {}", sent.load(Ordering::SeqCst));
}

#[test]
fn a_discarding_callback_still_takes_the_streaming_path() {
    for driver in DRIVERS {
        let model = placed(driver, ScriptedModel::new().text("hi"));
        let agent = Agent::<()>::builder(model.clone()).build().unwrap();
        let events = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&events);
        let run = agent
            .run_with(())
            .prompt("hello")
            .observer(move |e| {
                if matches!(e.kind, EventKind::Delta { .. }) {
                    count.fetch_add(1, Ordering::SeqCst);
                }
            })
            .on_delta(|_| Ok(()));
        assert_eq!(call(driver, run).unwrap().output, "hi");
        assert_eq!(events.load(Ordering::SeqCst), 1, "{driver:?}");
    }
}

#[test]
fn the_async_run_is_also_a_stream_of_its_events_ending_with_the_outcome() {
    use futures_lite::StreamExt;
    let observed = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&observed);
    let blocking = agent(three_turns())
        .run_with(())
        .prompt("which digit?")
        .run_id("r-1")
        .conversation_id("c-1")
        .stream(true)
        .observer(move |e| sink.lock().unwrap().push(e.clone()))
        .call()
        .unwrap();

    let agent = agent(three_turns());
    let stream = agent.run_with(()).prompt("which digit?").run_id("r-1").conversation_id("c-1").stream(true).events();
    fn assert_send<T: Send>(_: &T) {}
    assert_send(&stream);
    let items: Vec<golem_io::RunItem<i64>> = smol::block_on(stream.collect());

    let (last, events) = items.split_last().unwrap();
    let events: Vec<golem_core::RunEvent> = events
        .iter()
        .map(|item| match item {
            golem_io::RunItem::Event(e) => e.clone(),
            golem_io::RunItem::Done(_) => panic!("the outcome comes last"),
        })
        .collect();
    assert_eq!(events, *observed.lock().unwrap());
    let golem_io::RunItem::Done(Ok(result)) = last else { panic!("{last:?}") };
    assert_eq!(serde_json::to_string(result).unwrap(), serde_json::to_string(&blocking).unwrap());
}

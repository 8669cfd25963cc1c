//! Streaming on the machine side (SPEC STREAM-01, RETRY-06, EVT-02).

use golem_core::machine::{ApiMisuse, Command, Input, Output, Start};
use golem_core::*;

fn call_id(outputs: &[Output]) -> machine::ModelCallId {
    outputs
        .iter()
        .find_map(|o| match o {
            Output::Command(Command::CallModel { id, stream: true, .. }) => Some(*id),
            _ => None,
        })
        .expect("a streamed model call")
}

fn streamed(retries: u32) -> (RunMachine, Vec<Output>) {
    let cfg = {
        let mut config = RunConfig::default();
        config.retry = RetryPolicy::new().max_attempts(retries);
        config
    };
    let start = {
        let mut start = Start::prompt("hi");
        start.stream = true;
        start
    };
    let mut m = RunMachine::new(cfg, start, Moment::ZERO).unwrap();
    let out = m.drain();
    (m, out)
}

#[test]
fn stream_01_deltas_lie_between_model_start_and_end() {
    let (mut m, out) = streamed(1);
    let id = call_id(&out);
    let mut events = Vec::new();
    for piece in ["good ", "morning"] {
        let o = m.step(Moment::from_millis(1), Input::ModelDelta { id, delta: Delta::text(piece) }).unwrap();
        events.extend(o);
    }
    events.extend(
        m.step(
            Moment::from_millis(2),
            Input::ModelFinished { id, result: Ok(Box::new(Response::text("good morning"))) },
        )
        .unwrap(),
    );
    let kinds: Vec<String> = events
        .iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(format!("{}:{}", e.seq, serde_json::to_value(&e.kind).unwrap()["event"])),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, vec!["1:\"delta\"", "2:\"delta\"", "3:\"model_end\""]);
}

#[test]
fn retry_06_no_retry_after_a_fragment_reached_the_caller() {
    let (mut m, out) = streamed(3);
    let id = call_id(&out);
    m.step(Moment::from_millis(1), Input::ModelDelta { id, delta: Delta::text("par") }).unwrap();
    m.step(Moment::from_millis(2), Input::ModelFinished { id, result: Err(ModelError::transport("reset")) }).unwrap();
    let Some(machine::Outcome::Failed(err)) = m.outcome() else { panic!("{:?}", m.outcome()) };
    assert_eq!(err.stage, Stage::Model);
    assert_eq!(err.requests, 1);
}

#[test]
fn retry_06_retry_allowed_before_any_fragment() {
    let (mut m, out) = streamed(3);
    let id = call_id(&out);
    let out = m
        .step(Moment::from_millis(1), Input::ModelFinished { id, result: Err(ModelError::transport("reset")) })
        .unwrap();
    assert!(out.iter().any(|o| matches!(o, Output::Wait { reason: machine::WaitReason::Backoff, .. })));
    assert!(!m.is_done());
}

#[test]
fn mach_03_delta_on_a_plain_run_is_misuse() {
    let mut m = RunMachine::new(RunConfig::default(), Start::prompt("x"), Moment::ZERO).unwrap();
    let out = m.drain();
    let id = out
        .iter()
        .find_map(|o| match o {
            Output::Command(Command::CallModel { id, .. }) => Some(*id),
            _ => None,
        })
        .unwrap();
    let err = m.handle_input(Moment::ZERO, Input::ModelDelta { id, delta: Delta::text("x") }).unwrap_err();
    assert_eq!(err, ApiMisuse::UnexpectedDelta(id.0));
    // The machine stays failed.
    assert!(matches!(m.handle_input(Moment::ZERO, Input::Tick), Err(ApiMisuse::Poisoned(_))));
}

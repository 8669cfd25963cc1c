//! The cost of one [`RunMachine`] step: feeding one input and draining the
//! outputs it produces up to the next `Wait` or `Done`.
//!
//! Each benchmark builds a fresh machine in the right state in the (untimed)
//! setup of `iter_batched`, together with a prebuilt input, so only
//! `handle_input` plus the drain is measured. No JSON is parsed or written in
//! the timed part: tool arguments are empty (the machine only parses
//! non-empty arguments to check they are an object) and responses are built
//! as values.
//!
//! Run with `cargo bench -p golem-core --bench machine_step`.

use criterion::{black_box, criterion_main, BatchSize, Criterion};
use golem_core::machine::{Command, DecodeId, Input, ModelCallId, Output, Start, ToolCallId, ToolOutcome, Verdict};
use golem_core::{Message, Moment, Response, RunConfig, RunMachine, ToolCall, ToolSpec, Usage};
use serde_json::json;

fn config() -> RunConfig {
    let mut config = RunConfig::default();
    config.tools = vec![
        ToolSpec::new("lookup", "Look something up.", json!({"type": "object"})),
        ToolSpec::new("weather", "Weather for a city.", json!({"type": "object"})),
    ];
    config.tool_timeout = Some(std::time::Duration::from_secs(30));
    config
}

/// A short conversation, so request building copies a realistic few messages.
fn start() -> Start {
    let history = vec![
        Message::user("What is the capital of France?"),
        Message::assistant("Paris."),
        Message::user("And its population?"),
        Message::assistant("About 2.1 million in the city proper."),
    ];
    Start::prompt("What is the weather there today?").with_history(history).with_instructions("Be brief.")
}

fn tool_turn() -> Response {
    Response::tool_calls(vec![ToolCall::new("call_1", "weather", "")]).with_usage(Usage::new(120, 12))
}

/// Drain to `Wait` or `Done`, returning what the step asked for.
fn drain(machine: &mut RunMachine) -> Vec<Output> {
    let mut outputs = Vec::new();
    loop {
        let output = machine.poll_output();
        let last = matches!(output, Output::Wait { .. } | Output::Done);
        outputs.push(output);
        if last {
            return outputs;
        }
    }
}

/// A machine that has just asked for its first model call.
fn awaiting_model() -> (RunMachine, ModelCallId) {
    let mut machine = RunMachine::new(config(), start(), Moment::ZERO).expect("valid config");
    let id = drain(&mut machine)
        .into_iter()
        .find_map(|o| match o {
            Output::Command(Command::CallModel { id, .. }) => Some(id),
            _ => None,
        })
        .expect("a model call");
    (machine, id)
}

/// A machine waiting on one tool call.
fn awaiting_tool() -> (RunMachine, ToolCallId) {
    let (mut machine, model) = awaiting_model();
    machine
        .handle_input(Moment::from_millis(10), Input::ModelFinished { id: model, result: Ok(Box::new(tool_turn())) })
        .unwrap();
    let id = drain(&mut machine)
        .into_iter()
        .find_map(|o| match o {
            Output::Command(Command::ExecuteTool { id, .. }) => Some(id),
            _ => None,
        })
        .expect("a tool call");
    (machine, id)
}

/// A machine waiting on the decoder's verdict.
fn awaiting_decode() -> (RunMachine, DecodeId) {
    let (mut machine, model) = awaiting_model();
    let answer = Response::text("Sunny, 24 °C.").with_usage(Usage::new(140, 8));
    machine
        .handle_input(Moment::from_millis(10), Input::ModelFinished { id: model, result: Ok(Box::new(answer)) })
        .unwrap();
    let id = drain(&mut machine)
        .into_iter()
        .find_map(|o| match o {
            Output::Command(Command::Decode { id, .. }) => Some(id),
            _ => None,
        })
        .expect("a decode request");
    (machine, id)
}

fn step(machine: &mut RunMachine, now: Moment, input: Input) -> Vec<Output> {
    machine.handle_input(now, input).expect("no misuse");
    drain(machine)
}

fn bench_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("step");
    group.bench_function("model_response_to_tool_dispatch", |b| {
        b.iter_batched(
            || {
                let (machine, id) = awaiting_model();
                (machine, Input::ModelFinished { id, result: Ok(Box::new(tool_turn())) })
            },
            |(mut machine, input)| {
                let outputs = step(&mut machine, Moment::from_millis(10), input);
                black_box(outputs);
                machine
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("tool_result_to_model_call", |b| {
        b.iter_batched(
            || {
                let (machine, id) = awaiting_tool();
                (machine, Input::ToolFinished { id, outcome: ToolOutcome::output("Sunny, 24 °C, light wind.") })
            },
            |(mut machine, input)| {
                let outputs = step(&mut machine, Moment::from_millis(20), input);
                black_box(outputs);
                machine
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("decode_verdict_to_done", |b| {
        b.iter_batched(
            || {
                let (machine, id) = awaiting_decode();
                (machine, Input::Decoded { id, verdict: Verdict::Accepted })
            },
            |(mut machine, input)| {
                let outputs = step(&mut machine, Moment::from_millis(20), input);
                black_box(outputs);
                machine
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// Every benchmark of this file, configured from the command line (what
/// `criterion_group!` would generate, plus the doc comment it cannot carry).
fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_steps(&mut criterion);
}

criterion_main!(benches);

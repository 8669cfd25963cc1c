//! Bodies of the cargo-fuzz targets in `fuzz/` (SPEC ARCH-02). Each is a
//! plain function so `cargo test` runs it over the committed seed corpus
//! and CI exercises every target on stable Rust. Not part of the API.

use crate::config::{OutputMode, RetryPolicy, RunConfig, ToolChoice, UsageLimits};
use crate::deferral::DeferKind;
use crate::error::{CancelReason, CauseRecord};
use crate::event::EventKind;
use crate::log::{replay, EventLog};
use crate::machine::{
    CancelMode, Command, DecodeId, Input, ModelCallId, Output, RunMachine, Start, ToolCallId, ToolOutcome, Verdict,
};
use crate::message::{Message, ToolCall, Usage};
use crate::model::{Delta, ModelError, Response};
use crate::time::Moment;
use crate::tool::{ToolSpec, UnknownOutcome};
use std::time::Duration;

/// Reads fuzz bytes as small numbers; runs dry as zeros.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else { return 0 };
        self.0 = rest;
        b
    }

    fn below(&mut self, n: u8) -> u8 {
        if n == 0 {
            0
        } else {
            self.byte() % n
        }
    }

    fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn config(b: &mut Bytes<'_>) -> RunConfig {
    let tools = ["a", "b", "c"]
        .iter()
        .take(usize::from(b.below(4)))
        .map(|n| {
            let mut spec = ToolSpec::new(*n, "", serde_json::json!({"type": "object"}));
            spec.sequential = b.flag();
            spec.timeout = b.flag().then(|| Duration::from_millis(u64::from(b.byte()) + 1));
            // Every recovery path of a crash resume (SPEC LOG-06).
            spec.on_unknown_outcome = match b.below(3) {
                0 => UnknownOutcome::Interrupt,
                1 => UnknownOutcome::Redo,
                _ => UnknownOutcome::AskHuman,
            };
            spec
        })
        .collect::<Vec<_>>();
    let output = match b.below(3) {
        1 => OutputMode::Tool {
            name: "out".into(),
            description: String::new(),
            schema: serde_json::json!({"type": "object"}),
        },
        2 => OutputMode::Native {
            schema: crate::model::OutputSchema { name: "o".into(), schema: serde_json::json!({"type": "object"}) },
        },
        _ => OutputMode::Text,
    };
    let tool_choice = (b.flag() && !tools.is_empty()).then(|| ToolChoice::Force(tools[0].name().to_string()));
    RunConfig {
        max_iterations: u32::from(b.below(6)) + 1,
        retry: RetryPolicy {
            max_attempts: u32::from(b.below(4)) + 1,
            tool_retries: u32::from(b.below(3)),
            output_retries: u32::from(b.below(3)),
            jitter: b.flag(),
            discard_and_retry: b.flag(),
            ..RetryPolicy::default()
        },
        models: u32::from(b.below(3)) + 1,
        tools,
        builtin_tools: Vec::new(),
        tool_timeout: b.flag().then(|| Duration::from_millis(u64::from(b.byte()) + 1)),
        parallel_tools: b.flag(),
        max_concurrency: b.flag().then(|| u32::from(b.below(3)) + 1),
        tool_choice,
        output,
        limits: UsageLimits {
            total_tokens: b.flag().then(|| u64::from(b.byte())),
            requests: b.flag().then(|| u64::from(b.below(8))),
            tool_calls: b.flag().then(|| u64::from(b.below(8))),
            ..UsageLimits::default()
        },
        model_deadline: b.flag().then(|| Duration::from_millis(u64::from(b.byte()) + 1)),
        first_chunk_timeout: None,
        idle_timeout: None,
        run_deadline: b.flag().then(|| Duration::from_millis(u64::from(b.byte()) * 10 + 1)),
        prices: Vec::new(),
        seed: u64::from(b.byte()),
        max_tool_result_bytes: Some(crate::config::DEFAULT_MAX_TOOL_BYTES),
        max_tool_args_bytes: Some(crate::config::DEFAULT_MAX_TOOL_BYTES),
        fixed_seed: false,
    }
}

fn response(b: &mut Bytes<'_>) -> Response {
    let names = ["a", "b", "c", "out", "zzz"];
    let args = ["{}", r#"{"x":1}"#, "", "[1]", "{\"cut", "null"];
    let calls = (0..b.below(4))
        .map(|i| {
            let id = if b.flag() { format!("c{i}") } else { String::new() };
            ToolCall::new(id, names[usize::from(b.below(5))], args[usize::from(b.below(6))])
        })
        .collect();
    let text = ["", "answer", "  "][usize::from(b.below(3))];
    let message = Message { tool_calls: calls, ..Message::assistant(text) };
    Response::new(message).with_usage(Usage::new(u64::from(b.byte()), u64::from(b.byte())))
}

fn tool_outcome(b: &mut Bytes<'_>) -> ToolOutcome {
    match b.below(7) {
        0 | 1 => ToolOutcome::output("ok"),
        2 => ToolOutcome::Reject { reason: "fix it".into() },
        3 => ToolOutcome::failed("broken"),
        4 => ToolOutcome::Defer {
            kind: if b.flag() { DeferKind::Approval } else { DeferKind::External },
            reason: "wait".into(),
        },
        5 => ToolOutcome::CancelRun { reason: "stop".into() },
        _ => ToolOutcome::Fatal { cause: CauseRecord::new("boom", "boom") },
    }
}

/// Kinds of work, indexing the ids the machine issued.
const MODEL: usize = 0;
const TOOL: usize = 1;
const DECODE: usize = 2;

/// Drive a machine with inputs decoded from `data`, checking the invariants
/// of DESIGN.md: no panic, misuse is a typed error, `Done` is absorbing,
/// event sequence numbers are gap-free, no deadline precedes `now`, and
/// every command id is fresh.
pub fn run_machine(data: &[u8]) {
    run_machine_recoveries(data);
}

/// [`run_machine`], returning the decision of every crash recovery of a
/// call that had started (each tool's `UnknownOutcome` is drawn from the
/// bytes), so a test can show the inputs reach every policy.
pub fn run_machine_recoveries(data: &[u8]) -> Vec<UnknownOutcome> {
    let mut recoveries = Vec::new();
    let mut b = Bytes(data);
    let cfg = config(&mut b);
    let start =
        Start { stream: b.flag(), jitter_phase: b.flag().then(|| u64::from(b.byte()) << 56), ..Start::prompt("go") };
    let Ok(mut machine) = RunMachine::new(cfg, start, Moment::ZERO) else { return recoveries };
    let mut now = Moment::ZERO;
    let mut seq = 0u64;
    let mut issued: [Vec<u64>; 3] = Default::default();
    let mut done = false;
    let mut steps = 0;
    while !b.is_empty() && steps < 512 {
        steps += 1;
        loop {
            match machine.poll_output() {
                Output::Event(e) => {
                    assert!(!done, "no events after Done");
                    assert_eq!(e.seq, seq, "event seq is gap-free");
                    seq += 1;
                    if let EventKind::Recovered { started: true, decision, .. } = e.kind {
                        recoveries.push(decision);
                    }
                }
                Output::Command(c) => {
                    assert!(!done, "no commands after Done");
                    let id = match c {
                        Command::CallModel { id, .. } => Some((MODEL, id.0)),
                        Command::ExecuteTool { id, .. } => Some((TOOL, id.0)),
                        Command::Decode { id, .. } => Some((DECODE, id.0)),
                        _ => None,
                    };
                    if let Some((kind, id)) = id {
                        assert!(!issued.iter().flatten().any(|&i| i == id), "ids are fresh");
                        issued[kind].push(id);
                    }
                }
                Output::Wait { deadline, .. } => {
                    assert!(!done, "Done is absorbing");
                    assert!(deadline.is_none_or(|d| d > now), "no deadline at or before now");
                    break;
                }
                Output::Done => {
                    done = true;
                    break;
                }
            }
        }
        // Mostly an id the machine issued for that kind of work, so
        // sequences get past misuse into the phases behind it (recovery of
        // started calls among them); sometimes any id.
        let pick = |b: &mut Bytes<'_>, kind: usize| -> u64 {
            let ids = &issued[kind];
            if ids.is_empty() || b.below(8) == 0 {
                u64::from(b.byte())
            } else {
                ids[usize::from(b.byte()) % ids.len()]
            }
        };
        let input = match b.below(9) {
            0 => Input::ModelFinished { id: ModelCallId(pick(&mut b, MODEL)), result: Ok(Box::new(response(&mut b))) },
            1 => {
                let mut e = ModelError::api(if b.flag() { 503 } else { 400 }, "x");
                if b.flag() {
                    e = e.with_retry_after(Duration::from_secs(u64::from(b.byte())));
                }
                Input::ModelFinished { id: ModelCallId(pick(&mut b, MODEL)), result: Err(e) }
            }
            2 => Input::ModelDelta { id: ModelCallId(pick(&mut b, MODEL)), delta: Delta::text("d") },
            3 => Input::ToolStarted { id: ToolCallId(pick(&mut b, TOOL)) },
            4 => Input::ToolFinished { id: ToolCallId(pick(&mut b, TOOL)), outcome: tool_outcome(&mut b) },
            5 => {
                let verdict = match b.below(3) {
                    0 => Verdict::Accepted,
                    1 => Verdict::Rejected { reason: "no".into() },
                    _ => Verdict::Fatal { message: "bad".into() },
                };
                Input::Decoded { id: DecodeId(pick(&mut b, DECODE)), verdict }
            }
            6 => Input::Cancel {
                reason: if b.flag() { CancelReason::Caller } else { CancelReason::Deadline },
                mode: if b.flag() { CancelMode::Immediate } else { CancelMode::AfterTurn },
            },
            7 => Input::Recover,
            _ => Input::Tick,
        };
        // Time mostly moves forward; sometimes it goes backwards (misuse).
        let delta = u64::from(b.byte()) * 1_000_000;
        let at = if b.below(16) == 0 {
            Moment::from_nanos(now.as_nanos().saturating_sub(delta))
        } else {
            now + Duration::from_nanos(delta)
        };
        let before = machine.outcome().cloned();
        match machine.handle_input(at, input) {
            Ok(()) if done => assert_eq!(machine.outcome(), before.as_ref(), "inputs after Done change nothing"),
            Ok(()) => now = at,
            Err(_) => return recoveries,
        }
    }
    recoveries
}

/// Read `data` as an event log and, when it reads, replay it. Any bytes
/// must give a typed error or a replay, never a panic; the intact part a
/// read reports reads as the same log on its own (a writer continuing the
/// log cuts it back to that part, SPEC LOG-05).
pub fn event_log(data: &[u8]) {
    let Ok(read) = EventLog::read_bytes(data) else { return };
    let intact = &data[..read.intact];
    let again = EventLog::read_bytes(intact).expect("the intact part reads");
    assert_eq!(again.log, read.log, "the intact part holds the whole log");
    assert_eq!(again.intact, intact.len(), "the intact part has no torn tail");
    // Bound the work a hostile log can ask for.
    if read.log.records.len() <= 4096 {
        let _ = replay(&read.log);
    }
}

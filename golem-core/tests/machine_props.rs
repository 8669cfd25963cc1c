//! Property tests of the machine's contract (SPEC MACH-03, MACH-04, EVT-01,
//! TOOL-08): random drivers — answers in any order, unknown ids, duplicate
//! answers, answers after `Done`, ticks, cancellations, time going
//! backwards — never make the machine panic or break its promises. A few
//! deterministic tests pin the contract's individual rules.

use golem_core::config::OutputMode;
use golem_core::error::CancelReason;
use golem_core::machine::{
    ApiMisuse, CancelMode, Command, Input, ModelCallId, Outcome, Output, Start, ToolCallId, ToolOutcome, Verdict,
};
use golem_core::tool::TimeoutPolicy;
use golem_core::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// Which id an action quotes.
#[derive(Clone, Debug)]
enum Sel {
    /// The i-th (mod len) id still owed an answer.
    Pending(usize),
    /// The i-th (mod len) id ever issued, whatever its state.
    Issued(usize),
    /// Any number, most likely never issued.
    Raw(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Model,
    Tool,
    Decode,
}

#[derive(Clone, Debug)]
enum Act {
    Answer {
        sel: Sel,
        /// Answer as this kind instead of the id's own.
        kind: Option<Kind>,
        model: Box<Result<Response, ModelError>>,
        tool: ToolOutcome,
        verdict: Verdict,
    },
    Delta(Sel),
    Started(Sel),
    Tick,
    Cancel(CancelReason, CancelMode),
}

#[derive(Clone, Copy, Debug)]
enum TimeStep {
    Forward(u64),
    Big(u64),
    Back(u64),
}

fn arb_sel() -> impl Strategy<Value = Sel> {
    prop_oneof![
        40 => any::<u8>().prop_map(|i| Sel::Pending(i as usize)),
        2 => any::<u8>().prop_map(|i| Sel::Issued(i as usize)),
        1 => (0u64..48).prop_map(Sel::Raw),
    ]
}

fn arb_kind() -> impl Strategy<Value = Kind> {
    select(vec![Kind::Model, Kind::Tool, Kind::Decode])
}

fn arb_call() -> impl Strategy<Value = ToolCall> {
    (
        select(vec!["c1", "c2", "c3", "c4", "c1", ""]),
        prop_oneof![
            12 => select(vec!["alpha", "alpha", "beta", "gamma"]),
            1 => select(vec!["final", "ghost"]),
        ],
        prop_oneof![12 => select(vec!["{}", r#"{"x":1}"#, ""]), 1 => select(vec!["[1]", r#"{"x":"#])],
    )
        .prop_map(|(id, name, args)| ToolCall::new(id, name, args))
}

fn arb_response() -> impl Strategy<Value = Response> {
    (
        select(vec!["", "answer", "  "]),
        prop_oneof![1 => Just(Vec::new()), 3 => vec(arb_call(), 1..4)],
        0u64..40,
        0u64..40,
        select(vec![FinishReason::Stop, FinishReason::ToolCall, FinishReason::Length]),
    )
        .prop_map(|(content, calls, input, output, finish)| {
            let mut message = Message::assistant_calls(calls);
            message.content = content.to_string();
            golem_core::Response::new(message).with_usage(Usage::new(input, output)).with_finish_reason(finish)
        })
}

fn arb_model_error() -> impl Strategy<Value = ModelError> {
    (select(vec![400u16, 429, 500, 503]), option::of(select(vec![0u64, 1_000, 120_000]))).prop_map(|(status, hint)| {
        let error = ModelError::api(status, "simulated failure");
        match hint {
            Some(ms) => error.with_retry_after(Duration::from_millis(ms)),
            None => error,
        }
    })
}

fn arb_tool_outcome() -> impl Strategy<Value = ToolOutcome> {
    prop_oneof![
        12 => Just(ToolOutcome::output("result")),
        2 => Just(ToolOutcome::Reject { reason: "fix it".into() }),
        1 => Just(ToolOutcome::failed("broken")),
        1 => Just(ToolOutcome::Defer { kind: DeferKind::Approval, reason: "ask".into() }),
        1 => Just(ToolOutcome::Defer { kind: DeferKind::External, reason: "elsewhere".into() }),
        1 => Just(ToolOutcome::CancelRun { reason: "stop".into() }),
        1 => Just(ToolOutcome::Fatal { cause: CauseRecord::new("test", "fatal") }),
    ]
}

fn arb_verdict() -> impl Strategy<Value = Verdict> {
    prop_oneof![
        3 => Just(Verdict::Accepted),
        2 => Just(Verdict::Rejected { reason: "again".into() }),
        1 => Just(Verdict::Fatal { message: "no".into() }),
    ]
}

fn arb_act() -> impl Strategy<Value = Act> {
    prop_oneof![
        100 => (
            arb_sel(),
            prop_oneof![40 => Just(None), 1 => arb_kind().prop_map(Some)],
            prop_oneof![8 => arb_response().prop_map(Ok), 1 => arb_model_error().prop_map(Err)],
            arb_tool_outcome(),
            arb_verdict(),
        )
            .prop_map(|(sel, kind, model, tool, verdict)| Act::Answer { sel, kind, model: Box::new(model), tool, verdict }),
        4 => arb_sel().prop_map(Act::Delta),
        4 => arb_sel().prop_map(Act::Started),
        8 => Just(Act::Tick),
        // Rare enough that runs get deep before one lands.
        1 => (
            select(vec![CancelReason::Caller, CancelReason::Deadline]),
            select(vec![CancelMode::Immediate, CancelMode::AfterTurn]),
        )
            .prop_map(|(reason, mode)| Act::Cancel(reason, mode)),
    ]
}

impl TimeStep {
    /// The moment this step leads to from `base`.
    fn after(self, base: Moment) -> Moment {
        match self {
            TimeStep::Forward(ms) | TimeStep::Big(ms) => base + Duration::from_millis(ms),
            TimeStep::Back(ms) => Moment::from_nanos(base.as_nanos().saturating_sub(ms * 1_000_000)),
        }
    }
}

fn arb_time() -> impl Strategy<Value = TimeStep> {
    prop_oneof![
        150 => (0u64..300).prop_map(TimeStep::Forward),
        20 => (300u64..3_000).prop_map(TimeStep::Forward),
        40 => Just(TimeStep::Forward(0)),
        3 => (60_000u64..400_000).prop_map(TimeStep::Big),
        2 => (1u64..1_000).prop_map(TimeStep::Back),
    ]
}

fn tool_spec(name: &str) -> ToolSpec {
    ToolSpec::new(name, "", json!({"type": "object"}))
}

prop_compose! {
    fn arb_config()(
        parallel in any::<bool>(),
        cap in option::of(1u32..3),
        default_timeout in option::of(select(vec![50u64, 5_000])),
        attempts in 1u32..4,
        tool_retries in select(vec![0u32, 2, 3, 3]),
        output_retries in 0u32..3,
        models in 1u32..3,
        tool_mode in any::<bool>(),
        max_iterations in 1u32..8,
        requests in option::weighted(0.25, 0u64..8),
        tokens in option::weighted(0.25, 0u64..400),
        tool_calls in option::weighted(0.25, 0u64..6),
        run_deadline in option::weighted(0.2, select(vec![1_000u64, 30_000])),
        model_deadline in option::of(select(vec![2_000u64, 300_000])),
        jitter in any::<bool>(),
        seed in any::<u64>(),
        choice in 0u8..8,
    ) -> RunConfig {
        let mut beta = tool_spec("beta");
        beta.sequential = true;
        beta.max_retries = Some(1);
        let mut gamma = tool_spec("gamma");
        gamma.timeout = Some(100 * MS);
        gamma.on_timeout = TimeoutPolicy::FailedResult;
        let output = if tool_mode {
            OutputMode::Tool { name: "final".into(), description: String::new(), schema: json!({"type": "object"}) }
        } else {
            OutputMode::Text
        };
        { let mut config = golem_core::RunConfig::default(); config.max_iterations = max_iterations; config.retry = RetryPolicy::new().max_attempts(attempts).jitter(jitter).tool_retries(tool_retries).output_retries(output_retries); config.models = models; config.tools = vec![tool_spec("alpha"), beta, gamma]; config.tool_timeout = default_timeout.map(Duration::from_millis); config.parallel_tools = parallel; config.max_concurrency = cap; config.tool_choice = match choice {
                6 => Some(ToolChoice::Restrict("alpha".into())),
                7 => Some(ToolChoice::Force("beta".into())),
                _ => None,
            }; config.output = output; config.limits = { let mut config = UsageLimits::default(); config.requests = requests; config.total_tokens = tokens; config.tool_calls = tool_calls; config }; config.model_deadline = model_deadline.map(Duration::from_millis); config.run_deadline = run_deadline.map(Duration::from_millis); config.seed = seed; config }
    }
}

fn arb_start() -> impl Strategy<Value = Start> {
    let paused = || {
        vec![
            Message::user("go"),
            Message::assistant_calls(vec![ToolCall::new("c1", "alpha", "{}"), ToolCall::new("c2", "beta", "{}")]),
        ]
    };
    (0u8..4, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(move |(shape, stream, approve, prompt)| {
        let mut start = match shape {
            0 | 1 => Start::prompt("hello"),
            2 => Start::prompt("continue").with_history(paused()),
            _ => {
                let approval = if approve { Approval::approve() } else { Approval::deny("no") };
                {
                    let mut start = Start::default();
                    start.history = paused();
                    start.resume = Some(DeferredResults::new().approval("c1", approval).external("c2", "external"));
                    start
                }
            }
        };
        if prompt && start.resume.is_some() {
            start.prompt = Some(golem_core::machine::Prompt::text("and now?"));
        }
        start.stream = stream;
        start
    })
}

// ---------------------------------------------------------------------------
// The checking driver
// ---------------------------------------------------------------------------

/// Why an input should be refused, by the contract (SPEC MACH-03).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Misuse {
    Poisoned,
    Backwards,
    Unknown,
    Duplicate,
    Delta,
    Restart,
}

fn category(error: &ApiMisuse) -> Option<Misuse> {
    Some(match error {
        ApiMisuse::Poisoned(_) => Misuse::Poisoned,
        ApiMisuse::TimeWentBackwards { .. } => Misuse::Backwards,
        ApiMisuse::UnknownId { .. } => Misuse::Unknown,
        ApiMisuse::DuplicateAnswer { .. } => Misuse::Duplicate,
        ApiMisuse::UnexpectedDelta(_) => Misuse::Delta,
        ApiMisuse::DuplicateStart(_) => Misuse::Restart,
        _ => return None,
    })
}

struct Driver {
    machine: RunMachine,
    stream: bool,
    /// The latest `now` the machine accepted.
    last: Moment,
    issued: BTreeMap<u64, Kind>,
    order: Vec<u64>,
    /// Ids whose answer the machine accepted.
    answered: BTreeSet<u64>,
    /// Ids the machine told us to cancel.
    canceled: BTreeSet<u64>,
    /// Tool ids whose `ToolStarted` the machine accepted (the ledger takes
    /// one start per call, SPEC LOG-06).
    started: BTreeSet<u64>,
    /// Answers per id that the machine took as live (no late_result).
    live_answers: BTreeMap<u64, u32>,
    next_seq: u64,
    /// The deadline of the last `Wait`.
    deadline: Option<Moment>,
    done: bool,
    poisoned: bool,
    outcome: Option<Outcome>,
    /// The same run with its events muted, fed the same inputs: it must
    /// give the same answers and outputs, events aside.
    mirror: Option<RunMachine>,
}

impl Driver {
    fn new(machine: RunMachine, stream: bool) -> Result<Driver, TestCaseError> {
        Driver::mirrored(machine, None, stream)
    }

    fn mirrored(machine: RunMachine, mirror: Option<RunMachine>, stream: bool) -> Result<Driver, TestCaseError> {
        let mut driver = Driver {
            machine,
            stream,
            last: Moment::ZERO,
            issued: BTreeMap::new(),
            order: Vec::new(),
            answered: BTreeSet::new(),
            canceled: BTreeSet::new(),
            started: BTreeSet::new(),
            live_answers: BTreeMap::new(),
            next_seq: 0,
            deadline: None,
            done: false,
            poisoned: false,
            outcome: None,
            mirror,
        };
        driver.drain()?;
        Ok(driver)
    }

    fn pending(&self) -> Vec<u64> {
        self.order.iter().copied().filter(|id| !self.answered.contains(id) && !self.canceled.contains(id)).collect()
    }

    fn resolve(&self, sel: &Sel) -> u64 {
        match sel {
            Sel::Pending(i) => {
                let pending = self.pending();
                if pending.is_empty() {
                    *i as u64
                } else {
                    pending[i % pending.len()]
                }
            }
            Sel::Issued(i) if !self.order.is_empty() => self.order[i % self.order.len()],
            Sel::Issued(i) => *i as u64,
            Sel::Raw(id) => *id,
        }
    }

    fn input(&self, act: Act) -> Input {
        match act {
            Act::Answer { sel, kind, model, tool, verdict } => {
                let id = self.resolve(&sel);
                let kind = kind.or_else(|| self.issued.get(&id).copied()).unwrap_or(Kind::Tool);
                match kind {
                    Kind::Model => Input::ModelFinished { id: ModelCallId(id), result: model.map(Box::new) },
                    Kind::Tool => Input::ToolFinished { id: ToolCallId(id), outcome: tool },
                    Kind::Decode => Input::Decoded { id: golem_core::machine::DecodeId(id), verdict },
                }
            }
            Act::Delta(sel) => Input::ModelDelta { id: ModelCallId(self.resolve(&sel)), delta: Delta::text("x") },
            Act::Started(sel) => Input::ToolStarted { id: ToolCallId(self.resolve(&sel)) },
            Act::Tick => Input::Tick,
            Act::Cancel(reason, mode) => Input::Cancel { reason, mode },
        }
    }

    /// The contract's verdict on `input` at `now`, and the id it answers.
    fn predict(&self, now: Moment, input: &Input) -> (Result<(), Misuse>, Option<u64>) {
        let answer = |kind: Kind, id: u64| {
            if self.issued.get(&id) != Some(&kind) {
                Err(Misuse::Unknown)
            } else if self.answered.contains(&id) {
                Err(Misuse::Duplicate)
            } else {
                Ok(())
            }
        };
        let (verdict, id) = match input {
            Input::ModelFinished { id, .. } => (answer(Kind::Model, id.0), Some(id.0)),
            Input::ToolFinished { id, .. } => (answer(Kind::Tool, id.0), Some(id.0)),
            Input::Decoded { id, .. } => (answer(Kind::Decode, id.0), Some(id.0)),
            Input::ModelDelta { id, .. } => {
                let v = if self.issued.get(&id.0) != Some(&Kind::Model) {
                    Err(Misuse::Unknown)
                } else if self.answered.contains(&id.0) || self.canceled.contains(&id.0) || self.stream {
                    Ok(())
                } else {
                    Err(Misuse::Delta)
                };
                (v, None)
            }
            Input::ToolStarted { id } => {
                let v = if self.issued.get(&id.0) != Some(&Kind::Tool) {
                    Err(Misuse::Unknown)
                } else if self.started.contains(&id.0) {
                    Err(Misuse::Restart)
                } else {
                    Ok(())
                };
                (v, None)
            }
            _ => (Ok(()), None),
        };
        if self.poisoned {
            return (Err(Misuse::Poisoned), id);
        }
        if self.done {
            return (Ok(()), id);
        }
        if now < self.last {
            return (Err(Misuse::Backwards), id);
        }
        (verdict, id)
    }

    fn feed(&mut self, now: Moment, input: Input) -> Result<(), TestCaseError> {
        let (expected, answer_id) = self.predict(now, &input);
        let was_done = self.done;
        // Deadlines at or before `now` fire before the input is looked at.
        let timers_fire = !self.done && self.deadline.is_some_and(|d| d <= now);
        let probe_id = match &input {
            Input::ModelDelta { id, .. } => Some(id.0),
            Input::ToolStarted { id } => Some(id.0),
            _ => None,
        };
        let described = format!("{input:?}");
        let mirrored = self.mirror.as_mut().map(|m| m.handle_input(now, input.clone()));
        let actual = self.machine.handle_input(now, input);
        if let Some(mirrored) = mirrored {
            prop_assert_eq!(format!("{mirrored:?}"), format!("{actual:?}"), "the muted machine took {}", described);
        }
        if !self.poisoned && !self.done && now >= self.last {
            self.last = now;
        }
        if actual.is_err() && (self.machine.outcome().is_none() || self.poisoned) {
            // A misuse poisons the machine, unless a deadline ended the run
            // in the same input (the run's outcome then stands).
            self.poisoned = true;
        }
        let canceled_before = self.canceled.clone();
        let issued_before: BTreeSet<u64> = self.issued.keys().copied().collect();
        let events_before = self.next_seq;
        let late = self.drain()?;
        let newly_canceled = |id: u64| self.canceled.contains(&id) && !canceled_before.contains(&id);
        match (&expected, &actual) {
            (Ok(()), Ok(())) => {}
            (Err(want), Err(got)) => {
                prop_assert_eq!(Some(*want), category(got), "wrong misuse for {}", described);
            }
            (Ok(()), Err(got)) => {
                return Err(TestCaseError::fail(format!("valid input {described} refused: {got}")));
            }
            (Err(want), Ok(())) => {
                // Tolerated: an answer to a call the machine canceled is
                // treated as late each time (the strict rule is pinned by
                // `mach_03_second_answer_for_a_canceled_call_is_misuse`);
                // a delta for a call a deadline abandoned in this very input;
                // a probe that lost the race with a deadline ending the run.
                let late_again =
                    *want == Misuse::Duplicate && answer_id.is_some_and(|id| canceled_before.contains(&id));
                let abandoned = timers_fire && *want == Misuse::Delta && probe_id.is_some_and(newly_canceled);
                let lost_race = timers_fire && probe_id.is_some() && self.machine.is_done();
                // A deadline that fired first (a tool's timeout settled as
                // a failed result) let the machine command the next call of
                // a sequential batch in this very input: the id the
                // prediction called unknown was issued before it was seen.
                let issued_by_timer = timers_fire
                    && *want == Misuse::Unknown
                    && answer_id
                        .or(probe_id)
                        .is_some_and(|id| self.issued.contains_key(&id) && !issued_before.contains(&id));
                prop_assert!(
                    late_again || abandoned || lost_race || issued_by_timer,
                    "misuse {:?} accepted: {}",
                    want,
                    described
                );
            }
        }
        if was_done && !self.poisoned {
            prop_assert_eq!(self.next_seq, events_before, "events after Done");
            prop_assert_eq!(self.machine.outcome(), self.outcome.as_ref(), "outcome changed after Done");
        }
        if let (Ok(()), Some(id), false, true) = (&actual, probe_id, was_done, described.starts_with("ToolStarted")) {
            self.started.insert(id);
        }
        if let (Ok(()), Some(id), false) = (&actual, answer_id, was_done) {
            self.answered.insert(id);
            if !late.contains(&id) {
                let n = self.live_answers.entry(id).or_default();
                *n += 1;
                prop_assert!(*n <= 1, "id {} answered twice", id);
            }
        }
        Ok(())
    }

    /// Drain to Wait or Done, checking every output. Returns the ids of
    /// late_result events seen.
    fn drain(&mut self) -> Result<Vec<u64>, TestCaseError> {
        let mut late = Vec::new();
        let already_done = self.done;
        for n in 0.. {
            prop_assert!(n < 10_000, "drain never reached Wait or Done");
            let output = self.machine.poll_output();
            if let (Some(mirror), false) = (self.mirror.as_mut(), matches!(output, Output::Event(_))) {
                prop_assert_eq!(&mirror.poll_output(), &output, "a muted run differs only in its events");
            }
            if already_done {
                prop_assert_eq!(&output, &Output::Done, "Done is absorbing");
            }
            match output {
                Output::Command(command) => self.command(command)?,
                Output::Event(event) => {
                    prop_assert_eq!(event.seq, self.next_seq, "event seq has a gap");
                    self.next_seq += 1;
                    if let EventKind::LateResult { id, .. } = event.kind {
                        late.push(id);
                    }
                }
                Output::Wait { deadline, .. } => {
                    self.deadline = deadline;
                    if let Some(deadline) = deadline {
                        prop_assert!(
                            deadline > self.last,
                            "Wait deadline {:?} not after now {:?}",
                            deadline,
                            self.last
                        );
                    }
                    return Ok(late);
                }
                Output::Done => {
                    if !self.done {
                        self.done = true;
                        if !self.poisoned {
                            self.outcome = self.machine.outcome().cloned();
                            prop_assert!(self.outcome.is_some(), "Done without an outcome");
                        }
                    }
                    return Ok(late);
                }
            }
        }
        unreachable!()
    }

    fn command(&mut self, command: Command) -> Result<(), TestCaseError> {
        let minted = |this: &mut Driver, id: u64, kind: Kind| -> Result<(), TestCaseError> {
            prop_assert!(this.issued.insert(id, kind).is_none(), "machine id {} minted twice", id);
            this.order.push(id);
            Ok(())
        };
        match command {
            Command::CallModel { id, .. } => minted(self, id.0, Kind::Model)?,
            Command::ExecuteTool { id, .. } => minted(self, id.0, Kind::Tool)?,
            Command::Decode { id, .. } => minted(self, id.0, Kind::Decode)?,
            Command::CancelModel { id } => self.cancel(id.0, Kind::Model)?,
            Command::CancelTool { id } => self.cancel(id.0, Kind::Tool)?,
            other => return Err(TestCaseError::fail(format!("unexpected command {other:?}"))),
        }
        Ok(())
    }

    /// Take each step: time moves, then the act's input is fed.
    fn play(&mut self, steps: Vec<(TimeStep, Act)>) -> Result<(), TestCaseError> {
        for (time, act) in steps {
            let now = time.after(self.last);
            let input = self.input(act);
            self.feed(now, input)?;
        }
        Ok(())
    }

    fn cancel(&mut self, id: u64, kind: Kind) -> Result<(), TestCaseError> {
        prop_assert_eq!(self.issued.get(&id), Some(&kind), "cancel of an id never issued as {:?}", kind);
        prop_assert!(!self.answered.contains(&id), "cancel of answered id {}", id);
        prop_assert!(self.canceled.insert(id), "id {} canceled twice", id);
        Ok(())
    }
}

proptest! {
    // No persistence file: failures print their minimal input instead.
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// MACH-03, MACH-04, EVT-01: a random driver never breaks the machine.
    #[test]
    fn mach_03_04_prop_random_drivers_keep_the_contract(
        config in arb_config(),
        start in arb_start(),
        steps in vec((arb_time(), arb_act()), 0..80),
    ) {
        let stream = start.stream;
        let Ok(machine) = RunMachine::new(config, start, Moment::ZERO) else { return Ok(()) };
        let mut driver = Driver::new(machine, stream)?;
        driver.play(steps)?;
    }

    /// Issue 37: a machine told nobody hears its events gives the same
    /// answers, commands, waits and outcome as one that queues them, and no
    /// event at all.
    #[test]
    fn mach_prop_muted_events_change_nothing_else(
        config in arb_config(),
        start in arb_start(),
        steps in vec((arb_time(), arb_act()), 0..80),
    ) {
        let stream = start.stream;
        let Ok(machine) = RunMachine::new(config.clone(), start.clone(), Moment::ZERO) else { return Ok(()) };
        let mut muted = RunMachine::new(config, start, Moment::ZERO).expect("the same start");
        muted.mute_events();
        let mut driver = Driver::mirrored(machine, Some(muted), stream)?;
        driver.play(steps)?;
        let mut muted = driver.mirror.take().expect("the mirror");
        prop_assert_eq!(muted.poll_output(), driver.machine.poll_output(), "both end alike");
        prop_assert_eq!(muted.outcome(), driver.machine.outcome());
    }

    /// TOOL-08: a parallel batch answered in any order yields its results
    /// in emission order, all tool starts before any tool end.
    #[test]
    fn tool_08_prop_emission_order_under_random_completion(
        perm in (1usize..9).prop_flat_map(|n| Just((0..n).collect::<Vec<usize>>()).prop_shuffle()),
        cap in option::of(1u32..4),
        gaps in vec(0u64..50, 8),
    ) {
        let n = perm.len();
        let config = { let mut config = RunConfig::default(); config.tools = vec![tool_spec("alpha")]; config.parallel_tools = true; config.max_concurrency = cap; config };
        let mut machine = RunMachine::new(config, Start::prompt("go"), Moment::ZERO).unwrap();
        let model = machine.drain().into_iter().find_map(|o| match o {
            Output::Command(Command::CallModel { id, .. }) => Some(id),
            _ => None,
        }).unwrap();
        let calls = (0..n).map(|i| ToolCall::new(format!("c{i}"), "alpha", "{}")).collect();
        let mut now = Moment::from_millis(1);
        let mut outputs = machine.step(now, Input::ModelFinished { id: model, result: Ok(Box::new(Response::tool_calls(calls))) }).unwrap();
        let rank: Vec<usize> = (0..n).map(|i| perm.iter().position(|&p| p == i).unwrap()).collect();
        let mut events = Vec::new();
        let mut outstanding: Vec<(ToolCallId, usize)> = Vec::new();
        let mut dispatched = Vec::new();
        let mut request = None;
        let mut step = 0;
        loop {
            for output in outputs.drain(..) {
                match output {
                    Output::Command(Command::ExecuteTool { id, call, .. }) => {
                        let index: usize = call.id[1..].parse().unwrap();
                        dispatched.push(index);
                        outstanding.push((id, index));
                    }
                    Output::Command(Command::CallModel { request: r, .. }) => request = Some(r),
                    Output::Event(e) => events.push(e.kind),
                    _ => {}
                }
            }
            if let Some(cap) = cap {
                prop_assert!(outstanding.len() <= cap as usize);
            }
            let Some(pos) = (0..outstanding.len()).min_by_key(|&k| rank[outstanding[k].1]) else { break };
            let (id, index) = outstanding.remove(pos);
            now = now + Duration::from_millis(gaps[step % gaps.len()]);
            step += 1;
            outputs = machine.step(now, Input::ToolFinished { id, outcome: ToolOutcome::output(format!("r{index}")) }).unwrap();
        }
        prop_assert_eq!(dispatched, (0..n).collect::<Vec<_>>(), "dispatch follows emission order");
        let request = request.expect("the next turn's model call");
        let results: Vec<(String, String)> = request.messages.iter()
            .filter(|m| m.role == Role::Tool)
            .map(|m| (m.tool_call_id.clone(), m.content.clone()))
            .collect();
        let expected: Vec<(String, String)> = (0..n).map(|i| (format!("c{i}"), format!("r{i}"))).collect();
        prop_assert_eq!(results, expected);
        let tool_events: Vec<String> = events.iter().filter_map(|e| match e {
            EventKind::ToolStart { call_id, .. } => Some(format!("start {call_id}")),
            EventKind::ToolEnd { call_id, .. } => Some(format!("end {call_id}")),
            _ => None,
        }).collect();
        let expected: Vec<String> = (0..n).map(|i| format!("start c{i}")).chain((0..n).map(|i| format!("end c{i}"))).collect();
        prop_assert_eq!(tool_events, expected);
    }
}

// ---------------------------------------------------------------------------
// Deterministic pins of the contract
// ---------------------------------------------------------------------------

fn started(config: RunConfig) -> (RunMachine, ModelCallId) {
    let mut machine = RunMachine::new(config, Start::prompt("go"), Moment::ZERO).unwrap();
    let id = machine
        .drain()
        .into_iter()
        .find_map(|o| match o {
            Output::Command(Command::CallModel { id, .. }) => Some(id),
            _ => None,
        })
        .unwrap();
    (machine, id)
}

fn tool_ids(outputs: &[Output]) -> Vec<ToolCallId> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Command(Command::ExecuteTool { id, .. }) => Some(*id),
            _ => None,
        })
        .collect()
}

#[test]
fn mach_03_unknown_id_is_misuse_and_poisons_the_machine() {
    let (mut machine, id) = started(RunConfig::default());
    let error = machine.handle_input(
        Moment::from_millis(1),
        Input::ModelFinished { id: ModelCallId(99), result: Ok(Box::new(Response::text("x"))) },
    );
    assert_eq!(error, Err(ApiMisuse::UnknownId { what: "model", id: 99 }));
    let again = machine
        .handle_input(Moment::from_millis(2), Input::ModelFinished { id, result: Ok(Box::new(Response::text("x"))) });
    assert!(matches!(again, Err(ApiMisuse::Poisoned(_))), "{again:?}");
    assert_eq!(machine.poll_output(), Output::Done);
    assert_eq!(machine.outcome(), None);
}

#[test]
fn mach_03_an_id_of_another_kind_is_unknown() {
    let (mut machine, id) = started(RunConfig::default());
    let error = machine
        .handle_input(Moment::ZERO, Input::ToolFinished { id: ToolCallId(id.0), outcome: ToolOutcome::output("x") });
    assert_eq!(error, Err(ApiMisuse::UnknownId { what: "tool", id: id.0 }));
}

#[test]
fn mach_03_second_answer_is_misuse() {
    let config = {
        let mut config = RunConfig::default();
        config.tools = vec![tool_spec("alpha")];
        config
    };
    let (mut machine, id) = started(config);
    let response = Response::tool_calls(vec![ToolCall::new("c1", "alpha", "{}")]);
    let outputs = machine
        .step(Moment::from_millis(1), Input::ModelFinished { id, result: Ok(Box::new(response.clone())) })
        .unwrap();
    assert_eq!(tool_ids(&outputs).len(), 1);
    let again =
        machine.handle_input(Moment::from_millis(2), Input::ModelFinished { id, result: Ok(Box::new(response)) });
    assert_eq!(again, Err(ApiMisuse::DuplicateAnswer { what: "model", id: id.0 }));
}

#[test]
fn log_06_a_tool_reports_starting_once() {
    // The ledger records one start per call; a second is a driver bug (the
    // property test above found its own model of this rule missing).
    let config = {
        let mut config = RunConfig::default();
        config.tools = vec![tool_spec("alpha")];
        config
    };
    let (mut machine, id) = started(config);
    let response = Response::tool_calls(vec![ToolCall::new("c1", "alpha", "{}")]);
    let outputs =
        machine.step(Moment::from_millis(1), Input::ModelFinished { id, result: Ok(Box::new(response)) }).unwrap();
    let tool = tool_ids(&outputs)[0];
    machine.step(Moment::from_millis(2), Input::ToolStarted { id: tool }).unwrap();
    let again = machine.handle_input(Moment::from_millis(3), Input::ToolStarted { id: tool });
    assert_eq!(again, Err(ApiMisuse::DuplicateStart(tool.0)));
}

#[test]
fn mach_03_time_going_backwards_is_misuse() {
    let (mut machine, _) = started(RunConfig::default());
    machine.step(Moment::from_millis(10), Input::Tick).unwrap();
    let error = machine.handle_input(Moment::from_millis(5), Input::Tick);
    assert!(matches!(error, Err(ApiMisuse::TimeWentBackwards { .. })), "{error:?}");
    assert!(matches!(machine.handle_input(Moment::from_millis(20), Input::Tick), Err(ApiMisuse::Poisoned(_))));
}

#[test]
fn mach_03_delta_on_a_non_streaming_run_is_misuse() {
    let (mut machine, id) = started(RunConfig::default());
    let error = machine.handle_input(Moment::ZERO, Input::ModelDelta { id, delta: Delta::text("hi") });
    assert_eq!(error, Err(ApiMisuse::UnexpectedDelta(id.0)));
}

fn timed_out_tool() -> (RunMachine, ToolCallId) {
    let mut alpha = tool_spec("alpha");
    alpha.timeout = Some(10 * MS);
    alpha.on_timeout = TimeoutPolicy::FailedResult;
    let (mut machine, id) = started({
        let mut config = RunConfig::default();
        config.tools = vec![alpha];
        config
    });
    let response = Response::tool_calls(vec![ToolCall::new("c1", "alpha", "{}")]);
    let outputs =
        machine.step(Moment::from_millis(1), Input::ModelFinished { id, result: Ok(Box::new(response)) }).unwrap();
    let tool = tool_ids(&outputs)[0];
    let outputs = machine.step(Moment::from_millis(20), Input::Tick).unwrap();
    assert!(outputs.contains(&Output::Command(Command::CancelTool { id: tool })), "{outputs:#?}");
    (machine, tool)
}

#[test]
fn mach_03_answer_for_a_timed_out_call_is_a_late_result() {
    let (mut machine, tool) = timed_out_tool();
    let outputs = machine
        .step(Moment::from_millis(30), Input::ToolFinished { id: tool, outcome: ToolOutcome::output("late") })
        .unwrap();
    assert!(
        outputs.iter().any(
            |o| matches!(o, Output::Event(e) if e.kind == EventKind::LateResult { what: "tool".into(), id: tool.0 })
        ),
        "{outputs:#?}"
    );
}

#[test]
fn mach_03_second_answer_for_a_canceled_call_is_misuse() {
    let (mut machine, tool) = timed_out_tool();
    let answer = Input::ToolFinished { id: tool, outcome: ToolOutcome::output("late") };
    machine.step(Moment::from_millis(30), answer.clone()).unwrap();
    // The first late answer is a normal race; a second answer for one id is not.
    let again = machine.handle_input(Moment::from_millis(31), answer);
    assert_eq!(again, Err(ApiMisuse::DuplicateAnswer { what: "tool", id: tool.0 }));
}

#[test]
fn mach_04_done_is_absorbing() {
    let (mut machine, id) = started(RunConfig::default());
    let outputs = machine
        .step(Moment::from_millis(1), Input::ModelFinished { id, result: Ok(Box::new(Response::text("hi"))) })
        .unwrap();
    let decode_id = outputs
        .iter()
        .find_map(|o| match o {
            Output::Command(Command::Decode { id, .. }) => Some(*id),
            _ => None,
        })
        .unwrap();
    let outputs =
        machine.step(Moment::from_millis(2), Input::Decoded { id: decode_id, verdict: Verdict::Accepted }).unwrap();
    assert_eq!(outputs, vec![Output::Done]);
    let outcome = machine.outcome().cloned().unwrap();
    assert!(matches!(outcome, Outcome::Completed { .. }));
    // Later inputs — even misuse-shaped ones — are ignored.
    for input in [
        Input::Tick,
        Input::Cancel { reason: CancelReason::Caller, mode: CancelMode::Immediate },
        Input::ModelFinished { id: ModelCallId(77), result: Ok(Box::new(Response::text("x"))) },
        Input::Decoded { id: decode_id, verdict: Verdict::Fatal { message: "no".into() } },
    ] {
        assert_eq!(machine.step(Moment::from_millis(1), input), Ok(vec![Output::Done]));
    }
    assert_eq!(machine.outcome(), Some(&outcome));
}

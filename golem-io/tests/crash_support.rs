//! The scenario of issue 16's crash tests, the record/replay guide's crash
//! recipe as the tests follow it, and the checks every crash must pass.
//!
//! The agent is the issue's: two parallel idempotent tools, a sequential
//! tool with the default unknown-outcome policy (Interrupt), an
//! approval-gated tool and a tool whose unknown outcome asks a human. Its
//! model needs no memory: it asks for the first three calls, then for the
//! other two, then answers with the names of the tools whose results it
//! saw — the same answer however many crashes the run survived, since every
//! call ends with some result (its own, or "interrupted").

use golem_core::deferral::DeferredRequests;
use golem_core::log::{replay, EndKind, EventLog, LogError};
use golem_core::machine::{Command, Input, Outcome, Output};
use golem_core::testing::FnModel;
use golem_core::tool::UnknownOutcome;
use golem_core::{Approval, DeferredResults, EventKind, Response, Role, ToolCall};
use golem_io::{Agent, Error, LogFile, RunBuilder, RunOutcome, RunResult, Tool, ToolContext, ToolError};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The answer of every run of the scenario, crashed or not.
pub const REFERENCE: &str = "done: charge, delete, lookup_a, lookup_b, notify";

/// Where a tool body notes that it began: its idempotency key and name.
pub type Note = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// A scratch folder for log files: in memory where the platform has one
/// (`/dev/shm`), so the tests' many synced writes cost no disk round trips.
/// A killed process leaves its writes in the page cache either way, so the
/// crash the tests make is the same.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    let builder = tempfile::Builder::new().prefix("golem-crash-").tempdir_in(shm);
    builder.or_else(|_| tempfile::tempdir()).unwrap()
}

/// A seeded xorshift64 stream: the crash tests' schedules and garbage.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Below `n` (0 for 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// 1 to 32 bytes of anything, newlines and NULs often: what a power
    /// loss may leave after the last write that reached the disk.
    pub fn garbage(&mut self) -> Vec<u8> {
        let len = 1 + self.below(32);
        (0..len)
            .map(|_| match self.below(6) {
                0 => b'\n',
                1 => 0,
                _ => (self.next() >> 24) as u8,
            })
            .collect()
    }
}

/// The scenario's agent. `payload` sizes the first lookup's argument and
/// both lookups' results (make it larger than a page to get records that
/// are); `pace` is how long each tool body and model call takes.
pub fn agent(payload: usize, pace: Duration, note: Note) -> Agent<()> {
    let model = FnModel::new(move |request| {
        std::thread::sleep(pace);
        let seen: BTreeSet<&str> =
            request.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.tool_name.as_str()).collect();
        let first = ["lookup_a", "lookup_b", "charge"];
        Ok(if !first.iter().all(|name| seen.contains(name)) {
            let query = serde_json::json!({ "q": "q".repeat(payload) }).to_string();
            Response::tool_calls(vec![
                ToolCall::new("c1", "lookup_a", query),
                ToolCall::new("c2", "lookup_b", r#"{"q":"b"}"#),
                ToolCall::new("c3", "charge", r#"{"cents":4200}"#),
            ])
        } else if !(seen.contains("delete") && seen.contains("notify")) {
            Response::tool_calls(vec![
                ToolCall::new("c4", "delete", r#"{"path":"old.txt"}"#),
                ToolCall::new("c5", "notify", r#"{"to":"ops"}"#),
            ])
        } else {
            Response::text(format!("done: {}", seen.into_iter().collect::<Vec<_>>().join(", ")))
        })
    });
    let tool = |name: &'static str, note: &Note| {
        let note = Arc::clone(note);
        Tool::new(name, "", serde_json::json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
            // Executions are counted per run (each run's log holds its own
            // tool_started records); an approved re-run's idempotency key
            // names the paused run instead (SPEC PAUSE-01).
            note(&format!("{}:{}", ctx.run_id(), ctx.call_id()), name);
            std::thread::sleep(pace);
            if name == "delete" && !ctx.is_approved() {
                return Err(ToolError::approval("delete old.txt?"));
            }
            Ok(format!("{name}:{}", "r".repeat(if name.starts_with("lookup") { payload } else { 1 })))
        })
    };
    Agent::builder(model)
        .tool(tool("lookup_a", &note).idempotent())
        .tool(tool("lookup_b", &note).idempotent())
        .tool(tool("charge", &note).sequential())
        .tool(tool("delete", &note))
        .tool(tool("notify", &note).on_unknown_outcome(UnknownOutcome::AskHuman))
        .parallel_tools(true)
        .build()
        .unwrap()
}

/// How the recipe runs each step: on which driver, and through what
/// writer around each log file (a test's way to die inside a write).
pub struct Recipe<'a> {
    pub async_driver: bool,
    pub wrap: &'a dyn Fn(LogFile) -> Box<dyn Write + Send>,
}

impl Recipe<'_> {
    fn go(&self, run: RunBuilder<'_, (), String>, file: LogFile) -> Result<RunOutcome<String>, Error> {
        let run = run.record((self.wrap)(file));
        if self.async_driver {
            futures_lite::future::block_on(run.call_pausable_async())
        } else {
            run.call_pausable()
        }
    }

    /// The record/replay guide's recipe ("Surviving any crash"): bring the
    /// run whose logs are in `dir` to its end from wherever a crash left
    /// it. `run.0.jsonl` is the run's log, `run.<k>.jsonl` that of the
    /// k-th resume of a pause; `approve` is the human answering a pause.
    pub fn run_to_end(
        &self,
        agent: &Agent<()>,
        dir: &Path,
        prompt: &str,
        approve: impl Fn(&DeferredRequests) -> DeferredResults,
    ) -> Result<RunResult<String>, Error> {
        let path = |k: usize| dir.join(format!("run.{k}.jsonl"));
        // The newest log: the run's own, or its latest resume's.
        let mut k = (1..).take_while(|&k| path(k).exists()).count();
        let mut outcome = self.continue_run(agent, &path(k))?;
        if outcome.is_none() && k > 0 {
            // That resume died before it began: go on from the pause it resumed.
            k -= 1;
            outcome = self.continue_run(agent, &path(k))?;
        }
        let mut outcome = match outcome {
            Some(outcome) => outcome,
            // The run never began (or died before it did): start it.
            None => self.go(agent.run_with(()).prompt(prompt), LogFile::create(path(0))?)?,
        };
        loop {
            match outcome {
                RunOutcome::Completed(result) => return Ok(result),
                RunOutcome::Paused(paused) => {
                    let (log, _) = LogFile::open_for_continue(path(k))?;
                    let answers = approve(&paused.deferred);
                    k += 1;
                    outcome = self.go(agent.run_with(()).resume_log(&log, answers)?, LogFile::create(path(k))?)?;
                }
            }
        }
    }

    /// The outcome of the run logged at `path` — continued if it had not
    /// ended — or `None` when it never began.
    fn continue_run(&self, agent: &Agent<()>, path: &Path) -> Result<Option<RunOutcome<String>>, Error> {
        if !path.exists() {
            return Ok(None);
        }
        match LogFile::open_for_continue(path) {
            Ok((log, file)) => self.go(agent.run_with(()).continue_log(&log)?, file).map(Some),
            Err(Error::Log(LogError::NotStarted { .. })) => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// The human of the tests: approves every call waiting for approval.
pub fn approve_all(deferred: &DeferredRequests) -> DeferredResults {
    deferred
        .approvals
        .iter()
        .fold(DeferredResults::new(), |answers, call| answers.approval(&call.call_id, Approval::approve()))
}

/// The run's log files, oldest first.
pub fn log_files(dir: &Path) -> Vec<PathBuf> {
    (0..).map(|k| dir.join(format!("run.{k}.jsonl"))).take_while(|p| p.exists()).collect()
}

/// What one run's log says of its tool calls, by provider call id.
#[derive(Clone, Default)]
pub struct Ledger {
    /// The log it was read from.
    pub bytes: Vec<u8>,
    /// The run's id (the first part of its idempotency keys).
    pub run_id: String,
    /// Indexes of the `tool_started` records of each call.
    pub started: BTreeMap<String, Vec<usize>>,
    /// Indexes of the `tool_finished` records of each call.
    pub finished: BTreeMap<String, Vec<usize>>,
}

impl Ledger {
    /// Read the ledger of the log `bytes` by replaying it, and check the
    /// recovery decisions the run made against the guide's table. Also
    /// returns the replayed run's outcome.
    pub fn of(bytes: &[u8]) -> (Ledger, Option<Outcome>) {
        let log = EventLog::read_bytes(bytes).unwrap_or_else(|e| panic!("the log reads: {e}")).log;
        let replayed = replay(&log).unwrap_or_else(|e| panic!("the log replays: {e}"));
        let mut calls = BTreeMap::new();
        let mut ledger = Ledger { bytes: bytes.to_vec(), run_id: log.header.run_id.clone(), ..Ledger::default() };
        let approved: BTreeSet<&String> = log.header.start.resume.iter().flat_map(|r| r.approvals.keys()).collect();
        for output in replayed.outputs.iter().flatten() {
            match output {
                Output::Command(Command::ExecuteTool { id, call, .. }) => {
                    calls.insert(id.0, call.id.clone());
                }
                Output::Event(event) => {
                    if let EventKind::Recovered { call_id, tool, started, decision } = &event.kind {
                        let policy = match tool.as_str() {
                            "lookup_a" | "lookup_b" => UnknownOutcome::Redo,
                            // An approved re-run had its human decision (SPEC LOG-06).
                            "notify" if approved.contains(call_id) => UnknownOutcome::Interrupt,
                            "notify" => UnknownOutcome::AskHuman,
                            _ => UnknownOutcome::Interrupt,
                        };
                        let expected = if *started { policy } else { UnknownOutcome::Redo };
                        assert_eq!(*decision, expected, "the guide's table for {tool} started={started}");
                    }
                }
                _ => {}
            }
        }
        for (index, record) in log.records.iter().enumerate() {
            let (id, into) = match &record.input {
                Some(Input::ToolStarted { id }) => (id, &mut ledger.started),
                Some(Input::ToolFinished { id, .. }) => (id, &mut ledger.finished),
                _ => continue,
            };
            into.entry(calls[&id.0].clone()).or_default().push(index);
        }
        (ledger, replayed.machine.into_outcome())
    }

    /// The ledger of the log's first `records` records.
    pub fn prefix(&self, records: usize) -> Ledger {
        let keep = |by_call: &BTreeMap<String, Vec<usize>>| {
            by_call
                .iter()
                .map(|(call, at)| (call.clone(), at.iter().copied().filter(|&i| i < records).collect::<Vec<_>>()))
                .filter(|(_, at)| !at.is_empty())
                .collect()
        };
        Ledger {
            bytes: Vec::new(),
            run_id: self.run_id.clone(),
            started: keep(&self.started),
            finished: keep(&self.finished),
        }
    }

    /// How often each call's body may have run in this run, by idempotency
    /// key: once per `tool_started` record (the driver writes it before
    /// the body runs).
    pub fn starts(&self) -> BTreeMap<String, usize> {
        self.started.iter().map(|(call, at)| (format!("{}:{call}", self.run_id), at.len())).collect()
    }
}

/// Check the run whose logs are in `dir` after the recipe brought it to
/// its end: every log reads whole (nothing torn is left), the last one
/// completed with the reference answer and the others paused, no call
/// whose finish was recorded started again, a call of a tool that must not
/// be redone started at most once per run, and no body ran without its
/// `tool_started` record (`ran` counts bodies by idempotency key). Logs
/// whose ledger is among `known` are not replayed again. Returns the
/// ledgers of the logs.
pub fn check_run(
    dir: &Path,
    result: &RunResult<String>,
    ran: &BTreeMap<String, usize>,
    known: &[Ledger],
    context: &str,
) -> Vec<Ledger> {
    assert_eq!(result.output, REFERENCE, "{context}");
    let files = log_files(dir);
    let mut ledgers = Vec::new();
    for (k, path) in files.iter().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let read = EventLog::read_bytes(&bytes).unwrap_or_else(|e| panic!("{context}: run.{k} reads: {e}"));
        assert_eq!((read.intact, read.unterminated), (bytes.len(), false), "{context}: run.{k} has no torn tail");
        let last = k + 1 == files.len();
        assert_eq!(read.log.end, Some(if last { EndKind::Completed } else { EndKind::Paused }), "{context}: run.{k}");
        if let Some(ledger) = known.iter().find(|l| l.bytes == bytes) {
            ledgers.push(ledger.clone());
            continue;
        }
        let (ledger, outcome) = Ledger::of(&bytes);
        if last {
            let Some(Outcome::Completed { summary, .. }) = outcome else { panic!("{context}: the last log completed") };
            assert_eq!(summary.messages, result.messages, "{context}: the log replays to the result");
        }
        for (call, started) in &ledger.started {
            if let Some(&finished) = ledger.finished.get(call).and_then(|f| f.first()) {
                assert!(started.iter().all(|&s| s < finished), "{context}: run.{k}: {call} started after it finished");
            }
        }
        for call in ["c3", "c5"] {
            let n = ledger.started.get(call).map_or(0, Vec::len);
            assert!(n <= 1, "{context}: run.{k}: {call}, whose tool is not redone, started {n} times");
        }
        ledgers.push(ledger);
    }
    // The idempotent lookups were always redone, never interrupted.
    for message in result.messages.iter().filter(|m| m.tool_name.starts_with("lookup")) {
        assert!(!message.failed && message.content.starts_with(&message.tool_name), "{context}: {message:?}");
    }
    let starts: BTreeMap<String, usize> = ledgers.iter().flat_map(Ledger::starts).collect();
    for (key, &n) in ran {
        let logged = starts.get(key).copied().unwrap_or(0);
        assert!(n <= logged, "{context}: {key} ran {n} times with {logged} tool_started records");
    }
    ledgers
}

//! A logged run as the report shows it: model attempts, tool calls and
//! notable moments in the order they happened, with their times.

use crate::observe::settings::TraceSettings;
use golem_core::log::{replay, EventLog, ReplayError};
use golem_core::machine::{Command, Input, Outcome, Output};
use golem_core::{EventKind, FinishReason, Message, ModelError, Moment, ToolEndOutcome, Usage};
use std::collections::BTreeMap;

/// One model-call attempt.
pub(super) struct ModelRow {
    pub(super) round: u32,
    pub(super) turn: u32,
    pub(super) attempt: u32,
    pub(super) member: u32,
    pub(super) model: Option<String>,
    pub(super) started: Moment,
    pub(super) ended: Option<Moment>,
    pub(super) usage: Usage,
    pub(super) finish: Option<FinishReason>,
    pub(super) error: Option<ModelError>,
    pub(super) cost: Option<f64>,
    pub(super) response: Option<Message>,
    pub(super) streamed: bool,
}

/// One tool execution.
pub(super) struct ToolRow {
    pub(super) call_id: String,
    pub(super) tool: String,
    pub(super) args: String,
    pub(super) started: Moment,
    pub(super) ended: Option<Moment>,
    pub(super) outcome: Option<ToolEndOutcome>,
    pub(super) deferred: Option<String>,
}

/// Something worth a line of its own: a retry, a rejected answer, a
/// cancellation.
pub(super) struct Note {
    pub(super) at: Moment,
    pub(super) kind: &'static str,
    pub(super) text: String,
    pub(super) error: bool,
}

/// One entry of the timeline.
pub(super) enum Item {
    Model(Box<ModelRow>),
    Tool(ToolRow),
    Note(Note),
}

/// How the run ended.
pub(super) struct Ending {
    /// `completed`, `paused`, `failed` or `unfinished`.
    pub(super) kind: &'static str,
    /// The failure's text (stage and cause).
    pub(super) error: Option<String>,
    pub(super) usage: Usage,
    pub(super) requests: u64,
    pub(super) messages: Vec<Message>,
}

/// The whole run.
pub(super) struct Timeline {
    pub(super) epoch: Moment,
    pub(super) started_at_unix_ms: u64,
    pub(super) run_id: String,
    pub(super) conversation_id: String,
    /// The agent's name: the settings', else the log's; empty: unnamed.
    pub(super) agent: String,
    pub(super) items: Vec<Item>,
    pub(super) ending: Ending,
    pub(super) cost: Option<f64>,
    pub(super) last: Moment,
}

impl Timeline {
    /// Replay `log` and gather what it did.
    pub(super) fn of(log: &EventLog, settings: &TraceSettings) -> Result<Timeline, ReplayError> {
        let replayed = replay(log)?;
        let start = log.header.machine_start();
        let epoch = log.moment(0);
        let mut builder =
            Builder { settings, items: Vec::new(), open_model: None, open_tools: BTreeMap::new(), round: 0 };
        let mut outputs = replayed.outputs.iter();
        let mut now = epoch;
        if let Some(first) = outputs.next() {
            builder.outputs(now, first);
        }
        for (record, produced) in log.records.iter().filter(|r| r.input.is_some()).zip(outputs) {
            now = log.moment(record.at);
            if let Some(input) = &record.input {
                builder.input(input);
            }
            builder.outputs(now, produced);
        }
        let ending = match replayed.machine.outcome() {
            Some(Outcome::Completed { summary, .. }) => ending("completed", summary),
            Some(Outcome::Paused { summary, .. }) => ending("paused", summary),
            Some(Outcome::Failed(error)) => {
                let partial = error.partial.as_ref();
                Ending {
                    kind: "failed",
                    error: Some(error.to_string()),
                    usage: partial.map(|p| p.usage).unwrap_or_default(),
                    requests: error.requests,
                    messages: partial.map(|p| p.messages.clone()).unwrap_or_default(),
                }
            }
            None => {
                Ending { kind: "unfinished", error: None, usage: Usage::default(), requests: 0, messages: Vec::new() }
            }
        };
        let cost = total_cost(&builder.items);
        Ok(Timeline {
            epoch,
            started_at_unix_ms: log.header.started_at_unix_ms,
            run_id: start.run_id.into(),
            conversation_id: start.conversation_id.into(),
            agent: settings.name().unwrap_or(&log.header.agent).to_string(),
            items: builder.items,
            ending,
            cost,
            last: now,
        })
    }

    /// Milliseconds from the run's start to `at`.
    pub(super) fn offset_ms(&self, at: Moment) -> f64 {
        at.as_nanos().saturating_sub(self.epoch.as_nanos()) as f64 / 1e6
    }

    /// The distinct model turns (a round's turn, however many attempts).
    pub(super) fn turns(&self) -> usize {
        let mut turns: Vec<(u32, u32)> = self
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Model(row) => Some((row.round, row.turn)),
                _ => None,
            })
            .collect();
        turns.dedup();
        turns.len()
    }
}

/// The run's estimated cost: `None` unless every attempt that reported
/// usage has a price (a partial sum would understate it).
fn total_cost(items: &[Item]) -> Option<f64> {
    let mut total = None;
    for item in items {
        let Item::Model(row) = item else { continue };
        match row.cost {
            Some(cost) => *total.get_or_insert(0.0) += cost,
            None if row.usage == Usage::default() => {}
            None => return None,
        }
    }
    total
}

fn ending(kind: &'static str, summary: &golem_core::machine::RunSummary) -> Ending {
    Ending { kind, error: None, usage: summary.usage, requests: summary.requests, messages: summary.messages.clone() }
}

struct Builder<'s> {
    settings: &'s TraceSettings,
    items: Vec<Item>,
    /// Index of the model row in flight.
    open_model: Option<usize>,
    /// Index of each tool row in flight, by provider call id.
    open_tools: BTreeMap<String, usize>,
    round: u32,
}

impl Builder<'_> {
    fn input(&mut self, input: &Input) {
        if let (Input::ModelFinished { result: Ok(response), .. }, Some(index)) = (input, self.open_model) {
            if let Some(Item::Model(row)) = self.items.get_mut(index) {
                row.response = Some(response.message.clone());
            }
        }
    }

    fn outputs(&mut self, now: Moment, outputs: &[Output]) {
        for output in outputs {
            match output {
                Output::Event(event) => self.event(now, &event.kind),
                Output::Command(Command::CallModel { stream, .. }) => {
                    if let Some(Item::Model(row)) = self.open_model.and_then(|i| self.items.get_mut(i)) {
                        row.streamed = *stream;
                    }
                }
                _ => {}
            }
        }
    }

    fn note(&mut self, at: Moment, kind: &'static str, text: String, error: bool) {
        self.items.push(Item::Note(Note { at, kind, text, error }));
    }

    fn event(&mut self, now: Moment, kind: &EventKind) {
        match kind {
            EventKind::ModelStart { turn, attempt, member } => {
                let model = self.settings.model_info(*member).map(|m| m.model().to_string());
                self.open_model = Some(self.items.len());
                self.items.push(Item::Model(Box::new(ModelRow {
                    round: self.round,
                    turn: *turn,
                    attempt: *attempt,
                    member: *member,
                    model,
                    started: now,
                    ended: None,
                    usage: Usage::default(),
                    finish: None,
                    error: None,
                    cost: None,
                    response: None,
                    streamed: false,
                })));
            }
            EventKind::ModelEnd { usage, finish_reason, error, .. } => {
                let settings = self.settings;
                if let Some(Item::Model(row)) = self.open_model.take().and_then(|i| self.items.get_mut(i)) {
                    row.ended = Some(now);
                    row.usage = *usage;
                    row.finish = *finish_reason;
                    row.error.clone_from(error);
                    row.cost = settings.model_info(row.member).and_then(|m| m.price()).map(|p| p.cost(usage));
                }
            }
            EventKind::ToolStart { call_id, tool, args, .. } => {
                self.open_tools.insert(call_id.clone(), self.items.len());
                self.items.push(Item::Tool(ToolRow {
                    call_id: call_id.clone(),
                    tool: tool.clone(),
                    args: args.as_str().to_string(),
                    started: now,
                    ended: None,
                    outcome: None,
                    deferred: None,
                }));
            }
            EventKind::ToolEnd { call_id, outcome, .. } => {
                if let Some(Item::Tool(row)) = self.open_tools.remove(call_id).and_then(|i| self.items.get_mut(i)) {
                    row.ended = Some(now);
                    row.outcome = Some(outcome.clone());
                }
            }
            EventKind::Deferred { call_id, reason, .. } => {
                if let Some(Item::Tool(row)) = self.open_tools.remove(call_id).and_then(|i| self.items.get_mut(i)) {
                    row.ended = Some(now);
                    row.deferred = Some(reason.clone());
                }
            }
            EventKind::Retrying { attempt, delay, cause, .. } => {
                let text = format!("attempt {attempt} after {} ms: {cause}", delay.as_millis());
                self.note(now, "retrying", text, true);
            }
            EventKind::OutputRejected { round, reason } => {
                self.round = *round;
                self.note(now, "output rejected", format!("round {round} follows: {reason}"), true);
            }
            EventKind::TurnDiscarded { attempt, member, .. } => {
                let text = format!("streamed fragments of attempt {attempt} (member {member}) are void");
                self.note(now, "turn discarded", text, true);
            }
            EventKind::RetryDeclined { reason, .. } => self.note(now, "retry declined", reason.to_string(), true),
            EventKind::Canceled { reason } => {
                let reason = serde_json::to_value(reason).ok();
                let reason = reason.as_ref().and_then(|r| r.as_str()).unwrap_or("unknown").to_string();
                self.note(now, "canceled", reason, true);
            }
            EventKind::Recovered { tool, call_id, started, .. } => {
                let text = format!("{tool} ({call_id}) after a crash; it had started: {started}");
                self.note(now, "recovered", text, false);
            }
            _ => {}
        }
    }
}

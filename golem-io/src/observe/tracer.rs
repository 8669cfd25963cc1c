//! A run's machine traffic as OpenTelemetry GenAI spans (SPEC OBS-01..03).
//!
//! The tracer reads what the machine consumed and produced — inputs with
//! their moments, then commands and events — never the drivers' own state.
//! Both drivers step the machine through the same `RecordedMachine`, and a replayed
//! log yields the same inputs at the same moments, so all three produce the
//! same spans with the same attributes, timestamps included.
//!
//! `tracing` spans take their start and end times from the subscriber's
//! clock. The run's own times (live: the driver's clock; replayed: the
//! log's) ride on every span as `golem.start_time_unix_nano` and
//! `golem.end_time_unix_nano`, so a replayed trace still says when the
//! original run did what.

use super::metrics;
use super::names::{finish_reason, model_error_type, stage_name};
use super::settings::TraceSettings;
use golem_core::machine::{Command, Input, Outcome, Output};
use golem_core::{Cause, EventKind, ModelError, Moment, RunEvent, ToolEndOutcome, Usage};
use std::collections::BTreeMap;
use std::sync::Arc;
use tracing::field::Empty;
use tracing::Span;

/// Where the run's timeline sits on the wall clock: `epoch` (the machine's
/// start moment) happened at `unix_ms`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TraceClock {
    /// The machine's moment at its start.
    pub(crate) epoch: Moment,
    /// The wall-clock time of that moment, in milliseconds since 1970 (the
    /// log header's precision, so live and replayed traces agree).
    pub(crate) unix_ms: u64,
}

impl TraceClock {
    fn unix_nanos(&self, at: Moment) -> u64 {
        let since = at.as_nanos().saturating_sub(self.epoch.as_nanos());
        self.unix_ms.saturating_mul(1_000_000).saturating_add(since)
    }
}

/// An open span and when it started on the run's timeline.
struct Open {
    span: Span,
    started: Moment,
}

/// The model call in flight.
struct Chat {
    open: Open,
    member: u32,
}

/// Builds one run's spans as its traffic goes by.
pub(crate) struct RunTracer {
    settings: Arc<TraceSettings>,
    clock: TraceClock,
    now: Moment,
    root: Open,
    chat: Option<Chat>,
    /// Tool spans by provider call id.
    tools: BTreeMap<String, Open>,
    /// The response the next `model_end` reports (content, opt-in).
    response: Option<golem_core::Response>,
    round: u32,
    /// Usage per fallback member, for cost.
    usage: BTreeMap<u32, Usage>,
    deltas: u64,
}

impl RunTracer {
    /// A tracer for the run `ids` name, starting at `clock.epoch`; `None`
    /// when no subscriber wants its root span, so an unobserved run builds
    /// no attributes at all.
    pub(crate) fn start(
        settings: Arc<TraceSettings>,
        clock: TraceClock,
        run_id: &str,
        conversation_id: &str,
    ) -> Option<Self> {
        let span = tracing::info_span!(
            target: "golem",
            "invoke_agent",
            otel.name = Empty,
            otel.kind = "internal",
            otel.status_code = Empty,
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = Empty,
            gen_ai.provider.name = Empty,
            gen_ai.request.model = Empty,
            gen_ai.conversation.id = Empty,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            golem.run.id = Empty,
            golem.outcome = Empty,
            golem.stage = Empty,
            golem.requests = Empty,
            golem.tool_calls = Empty,
            golem.cost_usd = Empty,
            error.type = Empty,
            golem.start_time_unix_nano = clock.unix_nanos(clock.epoch),
            golem.end_time_unix_nano = Empty,
        );
        if span.is_disabled() {
            return None;
        }
        let name = settings.name().map_or_else(|| "invoke_agent".to_string(), |n| format!("invoke_agent {n}"));
        span.record("otel.name", name.as_str());
        if let Some(agent) = settings.name() {
            span.record("gen_ai.agent.name", agent);
        }
        if let Some(primary) = settings.model_info(0) {
            span.record("gen_ai.provider.name", primary.provider());
            span.record("gen_ai.request.model", primary.model());
        }
        record_nonempty(&span, "gen_ai.conversation.id", conversation_id);
        record_nonempty(&span, "golem.run.id", run_id);
        Some(RunTracer {
            settings,
            clock,
            now: clock.epoch,
            root: Open { span, started: clock.epoch },
            chat: None,
            tools: BTreeMap::new(),
            response: None,
            round: 0,
            usage: BTreeMap::new(),
            deltas: 0,
        })
    }

    /// The machine consumed `input` at `now`.
    pub(crate) fn input(&mut self, now: Moment, input: &Input) {
        self.now = now;
        if let Input::ModelFinished { result: Ok(response), .. } = input {
            if self.settings.records_content() {
                self.response = Some(response.clone());
            }
        }
    }

    /// The machine produced `output` (at the moment of the last input).
    pub(crate) fn output(&mut self, output: &Output) {
        match output {
            Output::Event(event) => self.event(event),
            Output::Command(Command::CallModel { request, stream, .. }) => {
                if let Some(chat) = &self.chat {
                    chat.open.span.record("golem.streamed", *stream);
                    if self.settings.records_content() {
                        let messages = serde_json::to_string(&request.messages).unwrap_or_default();
                        chat.open.span.record("gen_ai.input.messages", messages.as_str());
                    }
                }
            }
            _ => {}
        }
    }

    fn event(&mut self, event: &RunEvent) {
        match &event.kind {
            EventKind::ModelStart { turn, attempt, member } => self.model_start(event, *turn, *attempt, *member),
            EventKind::ModelEnd { usage, finish_reason, error, .. } => {
                self.model_end(usage, finish_reason.as_ref(), error.as_ref());
            }
            EventKind::ToolStart { turn, call_id, tool, args, approved } => {
                let span = tracing::info_span!(
                    target: "golem",
                    parent: &self.root.span,
                    "execute_tool",
                    otel.name = format!("execute_tool {tool}").as_str(),
                    otel.kind = "internal",
                    otel.status_code = Empty,
                    gen_ai.operation.name = "execute_tool",
                    gen_ai.tool.name = tool.as_str(),
                    gen_ai.tool.call.id = call_id.as_str(),
                    gen_ai.tool.type = "function",
                    gen_ai.tool.call.arguments = Empty,
                    gen_ai.tool.call.result = Empty,
                    gen_ai.conversation.id = Empty,
                    golem.run.id = Empty,
                    golem.turn = *turn,
                    golem.round = self.round,
                    golem.approved = *approved,
                    golem.tool.outcome = Empty,
                    error.type = Empty,
                    golem.start_time_unix_nano = self.clock.unix_nanos(self.now),
                    golem.end_time_unix_nano = Empty,
                );
                record_nonempty(&span, "gen_ai.conversation.id", &event.conversation_id);
                record_nonempty(&span, "golem.run.id", &event.run_id);
                if self.settings.records_content() {
                    span.record("gen_ai.tool.call.arguments", args.as_str());
                }
                self.tools.insert(call_id.clone(), Open { span, started: self.now });
            }
            EventKind::ToolEnd { call_id, outcome, .. } => {
                let Some(open) = self.tools.remove(call_id) else { return };
                let (kind, error) = tool_outcome(outcome);
                open.span.record("golem.tool.outcome", kind);
                if let Some(error) = error {
                    open.span.record("error.type", error);
                    open.span.record("otel.status_code", "error");
                }
                if let (Some(content), true) = (outcome.output(), self.settings.records_content()) {
                    open.span.record("gen_ai.tool.call.result", content);
                }
                self.close(open);
            }
            EventKind::Deferred { call_id, kind, .. } => {
                let Some(open) = self.tools.remove(call_id) else { return };
                let kind = match kind {
                    golem_core::DeferKind::Approval => "deferred_approval",
                    _ => "deferred_external",
                };
                open.span.record("golem.tool.outcome", kind);
                self.close(open);
            }
            EventKind::OutputRejected { round, .. } => {
                self.round = *round;
                tracing::event!(target: "golem", parent: &self.root.span, tracing::Level::INFO, golem.round = *round, "output_rejected");
            }
            EventKind::Retrying { turn, attempt, delay, cause } => {
                let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
                tracing::event!(
                    target: "golem",
                    parent: &self.root.span,
                    tracing::Level::INFO,
                    golem.turn = *turn,
                    golem.attempt = *attempt,
                    golem.retry.delay_ms = delay_ms,
                    error.type = model_error_type(cause),
                    "retrying"
                );
            }
            EventKind::TurnDiscarded { turn, attempt, member } => tracing::event!(
                target: "golem",
                parent: &self.root.span,
                tracing::Level::INFO,
                golem.turn = *turn,
                golem.attempt = *attempt,
                golem.member = *member,
                "turn_discarded"
            ),
            EventKind::RetryDeclined { turn, attempt, member, .. } => tracing::event!(
                target: "golem",
                parent: &self.root.span,
                tracing::Level::INFO,
                golem.turn = *turn,
                golem.attempt = *attempt,
                golem.member = *member,
                "retry_declined"
            ),
            EventKind::Canceled { reason } => {
                let reason = serde_json::to_value(reason).ok();
                let reason = reason.as_ref().and_then(|r| r.as_str()).unwrap_or("unknown");
                tracing::event!(target: "golem", parent: &self.root.span, tracing::Level::INFO, golem.cancel.reason = reason, "canceled");
            }
            EventKind::Recovered { call_id, tool, started, .. } => tracing::event!(
                target: "golem",
                parent: &self.root.span,
                tracing::Level::INFO,
                gen_ai.tool.name = tool.as_str(),
                gen_ai.tool.call.id = call_id.as_str(),
                golem.started = *started,
                "recovered"
            ),
            EventKind::Delta { .. } => self.deltas += 1,
            // A late answer changes nothing the trace shows.
            _ => {}
        }
    }

    fn model_start(&mut self, event: &RunEvent, turn: u32, attempt: u32, member: u32) {
        let info = self.settings.model_info(member);
        let span = tracing::info_span!(
            target: "golem",
            parent: &self.root.span,
            "chat",
            otel.name = Empty,
            otel.kind = "client",
            otel.status_code = Empty,
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = Empty,
            gen_ai.request.model = Empty,
            gen_ai.response.finish_reasons = Empty,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            gen_ai.usage.cache_read.input_tokens = Empty,
            gen_ai.usage.cache_creation.input_tokens = Empty,
            gen_ai.input.messages = Empty,
            gen_ai.output.messages = Empty,
            gen_ai.conversation.id = Empty,
            golem.run.id = Empty,
            golem.turn = turn,
            golem.round = self.round,
            golem.attempt = attempt,
            golem.member = member,
            golem.streamed = Empty,
            golem.stream.deltas = Empty,
            golem.cost_usd = Empty,
            error.type = Empty,
            golem.start_time_unix_nano = self.clock.unix_nanos(self.now),
            golem.end_time_unix_nano = Empty,
        );
        // The conventions name a model call `chat {model}`, or just `chat`
        // when the model is unknown.
        match info {
            Some(info) => {
                span.record("otel.name", format!("chat {}", info.model()).as_str());
                span.record("gen_ai.provider.name", info.provider());
                span.record("gen_ai.request.model", info.model());
            }
            None => {
                span.record("otel.name", "chat");
            }
        }
        record_nonempty(&span, "gen_ai.conversation.id", &event.conversation_id);
        record_nonempty(&span, "golem.run.id", &event.run_id);
        self.deltas = 0;
        self.chat = Some(Chat { open: Open { span, started: self.now }, member });
    }

    fn model_end(&mut self, usage: &Usage, finish: Option<&golem_core::FinishReason>, error: Option<&ModelError>) {
        let Some(Chat { open, member }) = self.chat.take() else { return };
        let span = &open.span;
        let info = self.settings.model_info(member);
        span.record("gen_ai.usage.input_tokens", usage.input_tokens);
        span.record("gen_ai.usage.output_tokens", usage.output_tokens);
        if usage.cache_read_tokens > 0 {
            span.record("gen_ai.usage.cache_read.input_tokens", usage.cache_read_tokens);
        }
        if usage.cache_write_tokens > 0 {
            span.record("gen_ai.usage.cache_creation.input_tokens", usage.cache_write_tokens);
        }
        if self.deltas > 0 {
            span.record("golem.stream.deltas", self.deltas);
        }
        if let Some(finish) = finish {
            // The conventions' attribute is a string array; `tracing` fields
            // are scalars, so the array travels as its JSON text.
            span.record("gen_ai.response.finish_reasons", format!("[\"{}\"]", finish_reason(*finish)).as_str());
        }
        let error_type = error.map(model_error_type);
        if let Some(error_type) = error_type {
            span.record("error.type", error_type);
            span.record("otel.status_code", "error");
        }
        if let Some(cost) = info.and_then(|i| i.price()).map(|p| p.cost(usage)) {
            span.record("golem.cost_usd", cost);
        }
        if let Some(response) = self.response.take() {
            let message = serde_json::to_string(&[&response.message]).unwrap_or_default();
            span.record("gen_ai.output.messages", message.as_str());
        }
        self.usage.entry(member).or_default().add(usage);
        let seconds = self.now.as_nanos().saturating_sub(open.started.as_nanos()) as f64 / 1e9;
        metrics::model_call(info, usage, seconds, error_type);
        self.close(open);
    }

    /// The run ended with `outcome` (`None`: the log of a run that had not
    /// finished): close every span still open (a failed run may leave calls
    /// behind) and then the root.
    pub(crate) fn finish(mut self, outcome: Option<&Outcome>) {
        if let Some(Chat { open, .. }) = self.chat.take() {
            open.span.record("error.type", "abandoned");
            self.close(open);
        }
        for (_, open) in std::mem::take(&mut self.tools) {
            open.span.record("error.type", "abandoned");
            self.close(open);
        }
        let span = &self.root.span;
        let Some(outcome) = outcome else {
            span.record("golem.outcome", "unfinished");
            let root = Open { span: self.root.span.clone(), started: self.root.started };
            self.close(root);
            return;
        };
        let (kind, summary) = match outcome {
            Outcome::Completed { summary, .. } => ("completed", Some(summary)),
            Outcome::Paused { summary, .. } => ("paused", Some(summary)),
            Outcome::Failed(_) => ("failed", None),
        };
        span.record("golem.outcome", kind);
        let (usage, requests, tool_calls) = match (summary, outcome) {
            (Some(s), _) => (s.usage, s.requests, s.tool_calls),
            (None, Outcome::Failed(error)) => {
                let partial = error.partial.as_ref();
                (partial.map(|p| p.usage).unwrap_or_default(), error.requests, partial.map_or(0, |p| p.tool_calls))
            }
            (None, _) => (Usage::default(), 0, 0),
        };
        span.record("gen_ai.usage.input_tokens", usage.input_tokens);
        span.record("gen_ai.usage.output_tokens", usage.output_tokens);
        span.record("golem.requests", requests);
        span.record("golem.tool_calls", tool_calls);
        if let Outcome::Failed(error) = outcome {
            span.record("golem.stage", stage_name(error.stage));
            span.record("error.type", run_error_type(&error.cause));
            span.record("otel.status_code", "error");
        }
        let cost = self.cost();
        if let Some(cost) = cost {
            span.record("golem.cost_usd", cost);
        }
        let root = Open { span: self.root.span.clone(), started: self.root.started };
        self.close(root);
    }

    /// The run's estimated cost: the sum over the members it used, `None`
    /// unless every member that reported usage has a price (a partial sum
    /// would understate it).
    fn cost(&self) -> Option<f64> {
        let mut total = None;
        for (member, usage) in &self.usage {
            match self.settings.model_info(*member).and_then(|m| m.price()) {
                Some(price) => *total.get_or_insert(0.0) += price.cost(usage),
                None if *usage == Usage::default() => {}
                None => return None,
            }
        }
        total
    }

    fn close(&self, open: Open) {
        open.span.record("golem.end_time_unix_nano", self.clock.unix_nanos(self.now));
        drop(open);
    }
}

fn record_nonempty(span: &Span, field: &str, value: &str) {
    if !value.is_empty() {
        span.record(field, value);
    }
}

/// How a tool call ended (`golem.tool.outcome`) and, when it is an error,
/// its `error.type`.
fn tool_outcome(outcome: &ToolEndOutcome) -> (&'static str, Option<&'static str>) {
    match outcome {
        ToolEndOutcome::Output { .. } => ("output", None),
        ToolEndOutcome::Rejected { .. } => ("rejected", Some("rejected")),
        ToolEndOutcome::Failed { .. } => ("failed", Some("failed")),
        ToolEndOutcome::CanceledRun { .. } => ("canceled_run", Some("canceled")),
        ToolEndOutcome::Fatal { .. } => ("fatal", Some("fatal")),
        ToolEndOutcome::Deferred { .. } => ("deferred", Some("deferred")),
        ToolEndOutcome::TimedOut { .. } => ("timed_out", Some("timeout")),
        ToolEndOutcome::Interrupted { .. } => ("interrupted", Some("interrupted")),
        _ => ("other", Some("other")),
    }
}

fn run_error_type(cause: &Cause) -> &'static str {
    match cause {
        Cause::Model(error) => model_error_type(error),
        Cause::Tool(_) => "tool",
        Cause::Decode(_) => "decode",
        Cause::Usage(_) => "usage_limit",
        Cause::Loop { .. } => "turn_limit",
        Cause::Canceled { .. } => "canceled",
        _ => "other",
    }
}

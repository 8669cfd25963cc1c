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

/// The model call in flight, with what its span is opened from: a muted
/// tracer opens it only when it goes live.
struct Chat {
    open: Open,
    ids: (String, String),
    turn: u32,
    attempt: u32,
    member: u32,
    round: u32,
    /// Whether the call streams (`golem.streamed`), once commanded.
    streamed: Option<bool>,
    /// The request's messages (`gen_ai.input.messages`), when content is
    /// recorded.
    input: Option<String>,
}

/// A tool execution in flight: its span and, while muted, the event and
/// round it is to be opened from.
struct ToolOpen {
    open: Open,
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    recipe: Option<(RunEvent, u32)>,
}

/// Builds one run's spans as its traffic goes by.
///
/// A tracer may start *muted* (a durable run replaying its journal, whose
/// spans the process that first ran it emitted): it follows the traffic
/// but opens no span and emits no event or metric, until [`go_live`]
/// opens the spans still open at that point — the root first, marked
/// `golem.resumed` — so the live remainder of the run is traced once and
/// whole.
///
/// [`go_live`]: RunTracer::go_live
pub(crate) struct RunTracer {
    settings: Arc<TraceSettings>,
    clock: TraceClock,
    now: Moment,
    root: Open,
    /// The run's ids, for a root span opened late.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    ids: (String, String),
    muted: bool,
    chat: Option<Chat>,
    /// Tool spans by provider call id.
    tools: BTreeMap<String, ToolOpen>,
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
        let span = root_span(&settings, clock, run_id, conversation_id);
        if span.is_disabled() {
            return None;
        }
        let ids = (run_id.to_string(), conversation_id.to_string());
        Some(Self::with_root(settings, clock, ids, span, false))
    }

    /// A muted tracer (see the type's documentation), or `None` when no
    /// subscriber would want the run's spans.
    pub(crate) fn start_muted(
        settings: Arc<TraceSettings>,
        clock: TraceClock,
        run_id: &str,
        conversation_id: &str,
    ) -> Option<Self> {
        if !tracing::enabled!(target: "golem", tracing::Level::INFO) {
            return None;
        }
        let ids = (run_id.to_string(), conversation_id.to_string());
        Some(Self::with_root(settings, clock, ids, Span::none(), true))
    }

    fn with_root(
        settings: Arc<TraceSettings>,
        clock: TraceClock,
        ids: (String, String),
        span: Span,
        muted: bool,
    ) -> Self {
        RunTracer {
            settings,
            clock,
            now: clock.epoch,
            root: Open { span, started: clock.epoch },
            ids,
            muted,
            chat: None,
            tools: BTreeMap::new(),
            response: None,
            round: 0,
            usage: BTreeMap::new(),
            deltas: 0,
        }
    }

    /// Stop following silently: open the root span (marked
    /// `golem.resumed`, its start the run's) and every span the run still
    /// has open, as they would have been opened, and trace live from here.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    pub(crate) fn go_live(&mut self) {
        if !self.muted {
            return;
        }
        self.muted = false;
        let (run_id, conversation_id) = &self.ids;
        self.root.span = root_span(&self.settings, self.clock, run_id, conversation_id);
        self.root.span.record("golem.resumed", true);
        if let Some(chat) = &self.chat {
            let span = self.chat_span(chat);
            if let Some(chat) = &mut self.chat {
                chat.open.span = span;
            }
        }
        let opened: Vec<(String, Span)> = self
            .tools
            .iter()
            .filter_map(|(id, tool)| {
                let (event, round) = tool.recipe.as_ref()?;
                Some((id.clone(), self.tool_span(event, *round, tool.open.started)))
            })
            .collect();
        for (id, span) in opened {
            if let Some(tool) = self.tools.get_mut(&id) {
                (tool.open.span, tool.recipe) = (span, None);
            }
        }
    }

    /// The machine consumed `input` at `now`.
    pub(crate) fn input(&mut self, now: Moment, input: &Input) {
        self.now = now;
        if let Input::ModelFinished { result: Ok(response), .. } = input {
            if self.settings.records_content() {
                self.response = Some(golem_core::Response::clone(response));
            }
        }
    }

    /// The machine produced `output` (at the moment of the last input).
    pub(crate) fn output(&mut self, output: &Output) {
        match output {
            Output::Event(event) => self.event(event),
            Output::Command(Command::CallModel { request, stream, .. }) => {
                let input = self
                    .settings
                    .records_content()
                    .then(|| serde_json::to_string(&request.messages).unwrap_or_default());
                if let Some(chat) = &mut self.chat {
                    chat.open.span.record("golem.streamed", *stream);
                    if let Some(messages) = &input {
                        chat.open.span.record("gen_ai.input.messages", messages.as_str());
                    }
                    (chat.streamed, chat.input) = (Some(*stream), input);
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
            EventKind::ToolStart { call_id, .. } => {
                let (span, recipe) = match self.muted {
                    true => (Span::none(), Some((event.clone(), self.round))),
                    false => (self.tool_span(event, self.round, self.now), None),
                };
                let open = Open { span, started: self.now };
                self.tools.insert(call_id.clone(), ToolOpen { open, recipe });
            }
            EventKind::ToolEnd { call_id, outcome, .. } => {
                let Some(ToolOpen { open, .. }) = self.tools.remove(call_id) else { return };
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
                let Some(ToolOpen { open, .. }) = self.tools.remove(call_id) else { return };
                let kind = match kind {
                    golem_core::DeferKind::Approval => "deferred_approval",
                    _ => "deferred_external",
                };
                open.span.record("golem.tool.outcome", kind);
                self.close(open);
            }
            EventKind::OutputRejected { round, .. } => {
                self.round = *round;
                if !self.muted {
                    tracing::event!(target: "golem", parent: &self.root.span, tracing::Level::INFO, golem.round = *round, "output_rejected");
                }
            }
            EventKind::Delta { .. } => self.deltas += 1,
            // A muted tracer emits no point event: the process that first
            // ran this part of the run did.
            _ if self.muted => {}
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
            // A late answer changes nothing the trace shows.
            _ => {}
        }
    }

    fn model_start(&mut self, event: &RunEvent, turn: u32, attempt: u32, member: u32) {
        self.deltas = 0;
        let ids = (event.run_id.to_string(), event.conversation_id.to_string());
        let open = Open { span: Span::none(), started: self.now };
        let round = self.round;
        let mut chat = Chat { open, ids, turn, attempt, member, round, streamed: None, input: None };
        if !self.muted {
            chat.open.span = self.chat_span(&chat);
        }
        self.chat = Some(chat);
    }

    /// The `chat` span of `chat`, as its call's start opens it.
    fn chat_span(&self, chat: &Chat) -> Span {
        let Chat { turn, attempt, member, round, .. } = *chat;
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
            golem.round = round,
            golem.attempt = attempt,
            golem.member = member,
            golem.streamed = Empty,
            golem.stream.deltas = Empty,
            golem.cost_usd = Empty,
            error.type = Empty,
            golem.start_time_unix_nano = self.clock.unix_nanos(chat.open.started),
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
        record_nonempty(&span, "gen_ai.conversation.id", &chat.ids.1);
        record_nonempty(&span, "golem.run.id", &chat.ids.0);
        if let Some(streamed) = chat.streamed {
            span.record("golem.streamed", streamed);
        }
        if let Some(messages) = &chat.input {
            span.record("gen_ai.input.messages", messages.as_str());
        }
        span
    }

    /// The `execute_tool` span of the tool start `event`, at `started`.
    fn tool_span(&self, event: &RunEvent, round: u32, started: Moment) -> Span {
        let EventKind::ToolStart { turn, call_id, tool, args, approved } = &event.kind else { return Span::none() };
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
            golem.round = round,
            golem.approved = *approved,
            golem.tool.outcome = Empty,
            error.type = Empty,
            golem.start_time_unix_nano = self.clock.unix_nanos(started),
            golem.end_time_unix_nano = Empty,
        );
        record_nonempty(&span, "gen_ai.conversation.id", &event.conversation_id);
        record_nonempty(&span, "golem.run.id", &event.run_id);
        if self.settings.records_content() {
            span.record("gen_ai.tool.call.arguments", args.as_str());
        }
        span
    }

    fn model_end(&mut self, usage: &Usage, finish: Option<&golem_core::FinishReason>, error: Option<&ModelError>) {
        let Some(Chat { open, member, .. }) = self.chat.take() else { return };
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
        if !self.muted {
            metrics::model_call(info, usage, seconds, error_type);
        }
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
        for (_, ToolOpen { open, .. }) in std::mem::take(&mut self.tools) {
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

/// The run's root `invoke_agent` span.
fn root_span(settings: &TraceSettings, clock: TraceClock, run_id: &str, conversation_id: &str) -> Span {
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
        golem.resumed = Empty,
        error.type = Empty,
        golem.start_time_unix_nano = clock.unix_nanos(clock.epoch),
        golem.end_time_unix_nano = Empty,
    );
    if span.is_disabled() {
        return span;
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
    span
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

//! Turns and model calls: iteration limit, attempts, fallback members,
//! backoff and call deadlines (SPEC RUN-05, RUN-07, RETRY).

use super::backoff;
use super::ids::{Answer, IdKind};
use super::limits;
use super::vocabulary::{ApiMisuse, Command, ModelCallId, WaitReason};
use super::{Phase, RunMachine};
use crate::config::{OutputMode, ToolChoice};
use crate::error::{Cause, DeclineReason, Stage};
use crate::event::EventKind;
use crate::message::{FinishReason, Message, Role, Usage};
use crate::model::{Delta, ModelError, Request, Response, WireToolChoice};
use crate::stream::StreamAssembler;
use crate::time::Moment;

/// The model side of one turn.
#[derive(Debug)]
pub(crate) struct ModelPhase {
    attempt: u32,
    member: u32,
    call: Option<(ModelCallId, Option<Moment>)>,
    /// When the call's next chunk is due: its first, then — streamed — the
    /// next after each delta (SPEC TIME-01). `None`: no such limit.
    chunk_due: Option<Moment>,
    backoff_until: Option<Moment>,
    /// The fragments of this call that reached the caller, assembled;
    /// `None` until the first (SPEC RETRY-06).
    forwarded: Option<StreamAssembler>,
}

impl ModelPhase {
    pub(crate) fn in_flight(&self) -> Option<u64> {
        self.call.map(|(id, _)| id.0)
    }

    /// What the caller was shown of this call, as one assistant message;
    /// `None` when no fragment reached it.
    pub(crate) fn forwarded(&self) -> Option<Message> {
        self.forwarded.as_ref().map(StreamAssembler::snapshot)
    }

    pub(crate) fn deadline(&self) -> Option<(Moment, WaitReason)> {
        if let Some(until) = self.backoff_until {
            return Some((until, WaitReason::Backoff));
        }
        let total = match self.call {
            Some((_, Some(deadline))) => Some((deadline, WaitReason::ModelDeadline)),
            _ => None,
        };
        let chunk = self.call.and(self.chunk_due).map(|due| (due, WaitReason::ModelChunk));
        match (total, chunk) {
            (Some(t), Some(c)) if c.0 < t.0 => Some(c),
            (t, c) => t.or(c),
        }
    }
}

impl RunMachine {
    /// Start the next turn, or end the run if it may not have one.
    pub(super) fn begin_turn(&mut self) {
        if let Some(reason) = self.stop_after_turn {
            self.end_canceled(reason, Stage::Model);
            return;
        }
        if self.turns_total >= self.cfg.max_iterations {
            self.fail(Stage::Loop, Cause::Loop { turns: self.cfg.max_iterations });
            return;
        }
        self.turns_total += 1;
        self.phase = Phase::Model(ModelPhase {
            attempt: 1,
            member: 0,
            call: None,
            chunk_due: None,
            backoff_until: None,
            forwarded: None,
        });
        self.dispatch_model_call();
    }

    fn model_phase(&mut self) -> Option<&mut ModelPhase> {
        match &mut self.phase {
            Phase::Model(m) => Some(m),
            _ => None,
        }
    }

    /// Send the current attempt/member's request, after the pre-flight check.
    pub(super) fn dispatch_model_call(&mut self) {
        if let Some(crossed) = limits::before_request(&self.limits, self.ev.requests) {
            self.fail(Stage::Usage, Cause::Usage(crossed));
            return;
        }
        let Some(phase) = self.model_phase() else { return };
        let (attempt, member) = (phase.attempt, phase.member);
        phase.backoff_until = None;
        phase.forwarded = None;
        self.ev.requests += 1;
        let id = ModelCallId(self.ids.mint(IdKind::Model));
        let deadline = self.cfg.model_deadline.map(|d| self.now + d);
        let chunk_due = self.cfg.first_chunk_timeout.map(|d| self.now + d);
        if let Some(phase) = self.model_phase() {
            phase.call = Some((id, deadline));
            phase.chunk_due = chunk_due;
        }
        self.emit(EventKind::ModelStart { turn: self.turn, attempt, member });
        let request = self.build_request();
        // A plain call's answer is its first chunk: the driver may stop it
        // by the earlier of its limits. A streamed one is watched chunk by
        // chunk here, so the driver gets the total alone (SPEC TIME-01).
        let deadline = match chunk_due {
            Some(due) if !self.stream => Some(deadline.map_or(due, |d| d.min(due))),
            _ => deadline,
        };
        self.command(Command::CallModel { id, member, request, deadline, stream: self.stream });
    }

    fn build_request(&self) -> Request {
        let tool_choice = match &self.cfg.tool_choice {
            Some(ToolChoice::Force(name)) if !self.forced_satisfied => Some(WireToolChoice::Tool(name.clone())),
            Some(ToolChoice::Force(_)) => Some(WireToolChoice::Auto),
            _ => None,
        };
        Request {
            messages: std::sync::Arc::clone(&self.ev.messages),
            tools: std::sync::Arc::clone(self.cfg.advertised()),
            builtin_tools: std::sync::Arc::clone(self.cfg.builtins()),
            output_schema: self.cfg.output_schema().cloned(),
            tool_choice,
            timeout: None,
        }
    }

    pub(super) fn on_model_delta(&mut self, id: ModelCallId, delta: Delta) -> Result<(), ApiMisuse> {
        self.ids.check_known(IdKind::Model, id.0)?;
        if !self.ids.is_pending(IdKind::Model, id.0) {
            // A fragment of abandoned work: nobody is listening any more.
            return Ok(());
        }
        if !self.stream {
            return Err(ApiMisuse::UnexpectedDelta(id.0));
        }
        // The stream made progress: its next chunk is due an idle limit
        // from now, however long it has run (SPEC TIME-01).
        let next_due = self.cfg.idle_timeout.map(|d| self.now + d);
        if let Some(phase) = self.model_phase() {
            // A delta past the assembler's bounds is still forwarded; the
            // evidence keeps what it can hold, and the provider's own
            // decoder fails the call on it.
            let _ = phase.forwarded.get_or_insert_with(StreamAssembler::new).push(&delta);
            phase.chunk_due = next_due;
        }
        self.emit(EventKind::Delta { turn: self.turn, delta });
        Ok(())
    }

    pub(super) fn on_model_finished(
        &mut self,
        id: ModelCallId,
        result: Result<Box<Response>, ModelError>,
    ) -> Result<(), ApiMisuse> {
        if self.ids.answer(IdKind::Model, id.0)? == Answer::Late {
            self.late_result("model", id.0);
            return Ok(());
        }
        let Some(phase) = self.model_phase() else { return Ok(()) };
        phase.call = None;
        phase.chunk_due = None;
        if result.is_ok() {
            // The turn completed: its fragments are no longer a broken turn's.
            phase.forwarded = None;
        }
        let (attempt, member) = (phase.attempt, phase.member);
        match result {
            Ok(response) => self.on_response(attempt, member, *response),
            Err(error) => self.on_model_error(attempt, member, error),
        }
        Ok(())
    }

    fn on_response(&mut self, attempt: u32, member: u32, response: Response) {
        let Response { mut message, usage, finish_reason } = response;
        self.emit(EventKind::ModelEnd {
            turn: self.turn,
            attempt,
            member,
            usage,
            finish_reason: Some(finish_reason),
            error: None,
        });
        // Model output is untrusted: whatever role it claims, it is the assistant's turn.
        message.role = Role::Assistant;
        message.tool_call_id.clear();
        message.failed = false;
        if let Some(ToolChoice::Force(name)) = &self.cfg.tool_choice {
            if message.tool_calls.iter().any(|c| &c.name == name) {
                self.forced_satisfied = true;
            }
        }
        self.ev.usage.add(&usage);
        let index = member as usize;
        if self.ev.usage_by_member.len() <= index {
            self.ev.usage_by_member.resize(index + 1, Usage::default());
        }
        self.ev.usage_by_member[index].add(&usage);
        self.ev.cost = self.cfg.cost(&self.ev.usage_by_member).map(|own| own + self.ev.delegated_cost);
        self.ev.finish_reason = finish_reason;
        self.ev.completed_turns += 1;
        self.ev.add(message);
        if let Some(crossed) = limits::after_response(&self.limits, &self.ev.usage, self.ev.cost) {
            self.fail(Stage::Usage, Cause::Usage(crossed));
            return;
        }
        self.route_response(usage, finish_reason);
    }

    /// Decide what the completed turn means (SPEC RUN-05, RUN-06, RUN-11).
    fn route_response(&mut self, usage: Usage, finish_reason: FinishReason) {
        let last = self.ev.messages.len() - 1;
        let output_tool = match &self.cfg.output {
            OutputMode::Tool { name, .. } => Some(name.clone()),
            _ => None,
        };
        let calls = &self.ev.messages[last].tool_calls;
        if let Some(name) = output_tool {
            if let Some(index) = calls.iter().position(|c| c.name == name) {
                self.ev.finish_reason = FinishReason::ToolCall;
                self.decode_output_call(last, index, usage, finish_reason);
                return;
            }
        }
        if calls.is_empty() {
            self.decode_text(last, usage, finish_reason);
        } else {
            self.start_batch(last);
        }
    }

    fn on_model_error(&mut self, attempt: u32, member: u32, error: ModelError) {
        self.emit(EventKind::ModelEnd {
            turn: self.turn,
            attempt,
            member,
            usage: Usage::default(),
            finish_reason: None,
            error: Some(error.clone()),
        });
        let next_member = member + 1 < self.cfg.models;
        let retry_left = error.retryable && (next_member || attempt < self.cfg.retry.max_attempts);
        if !retry_left {
            self.fail(Stage::Model, Cause::Model(error));
            return;
        }
        // Fragments reached the caller: a retry streams the turn again
        // (SPEC RETRY-06). Only by the policy's leave, and announced first.
        if self.model_phase().is_some_and(|p| p.forwarded.is_some()) {
            if !self.cfg.retry.discard_and_retry {
                let reason = DeclineReason::FragmentsForwarded;
                self.emit(EventKind::RetryDeclined { turn: self.turn, attempt, member, reason });
                self.fail_declined(Stage::Model, Cause::Model(error), Some(reason));
                return;
            }
            if let Some(phase) = self.model_phase() {
                phase.forwarded = None;
            }
            self.emit(EventKind::TurnDiscarded { turn: self.turn, attempt, member });
        }
        if next_member {
            if let Some(phase) = self.model_phase() {
                phase.member += 1;
            }
            self.dispatch_model_call();
            return;
        }
        self.retries += 1;
        let backoff::Delay { wait: delay, hinted } =
            backoff::delay(&self.cfg.retry, self.jitter, self.retries, attempt, error.retry_after);
        // The provider asked for a wait the run cannot outlast: failing now
        // tells the caller so, instead of sleeping into the deadline or
        // re-sending early (SPEC TIME-02).
        if hinted && self.run_deadline.is_some_and(|end| self.now + delay >= end) {
            let reason = DeclineReason::RetryAfterPastDeadline;
            self.emit(EventKind::RetryDeclined { turn: self.turn, attempt, member, reason });
            self.fail_declined(Stage::Model, Cause::Model(error), Some(reason));
            return;
        }
        self.emit(EventKind::Retrying { turn: self.turn, attempt: attempt + 1, delay, cause: error });
        let until = self.now + delay;
        let Some(phase) = self.model_phase() else { return };
        phase.attempt += 1;
        phase.member = 0;
        if delay.is_zero() {
            self.dispatch_model_call();
        } else {
            phase.backoff_until = Some(until);
        }
    }

    pub(super) fn model_timers(&mut self) {
        let now = self.now;
        let Some(phase) = self.model_phase() else { return };
        if phase.backoff_until.is_some_and(|t| t <= now) {
            self.dispatch_model_call();
            return;
        }
        let Some((id, deadline)) = phase.call else { return };
        let total_passed = deadline.is_some_and(|d| d <= now);
        let chunk_late = phase.chunk_due.is_some_and(|d| d <= now);
        if !total_passed && !chunk_late {
            return;
        }
        let first_chunk = phase.forwarded.is_none();
        phase.call = None;
        phase.chunk_due = None;
        let (attempt, member) = (phase.attempt, phase.member);
        self.ids.abandon(id.0);
        self.command(Command::CancelModel { id });
        let ms = |d: Option<std::time::Duration>| d.unwrap_or_default().as_millis();
        let message = if total_passed {
            format!("model call exceeded its deadline of {} ms", ms(self.cfg.model_deadline))
        } else if first_chunk {
            format!("model call sent no first chunk within {} ms", ms(self.cfg.first_chunk_timeout))
        } else {
            format!("model stream was silent for {} ms", ms(self.cfg.idle_timeout))
        };
        self.on_model_error(attempt, member, ModelError::timeout(message));
    }
}

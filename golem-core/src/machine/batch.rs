//! Tool batches: classification, the pre-batch limit, groups, deadlines and
//! results in emission order (SPEC TOOL, DEFER-01, EVT-02).

use super::ids::{Answer, IdKind};
use super::limits;
use super::vocabulary::{ApiMisuse, Command, Outcome, ToolCallId, ToolOutcome};
use super::{Phase, RunMachine};
use crate::deferral::{DeferKind, DeferredRequests, PendingCall};
use crate::error::{CancelReason, Cause, CauseRecord, Stage, ToolFailure, ToolFailureKind};
use crate::event::{EventKind, Interruption, ToolEndOutcome};
use crate::message::{Message, ToolCall};
use crate::texts;
use crate::time::Moment;
use crate::tool::{TimeoutPolicy, UnknownOutcome};
use std::time::Duration;

/// The tool calls of one response being executed.
#[derive(Debug)]
pub(crate) struct Batch {
    slots: Vec<Slot>,
    /// Dispatchable slot indices, grouped (SPEC TOOL-08).
    groups: Vec<Vec<usize>>,
    group: usize,
    /// How many of the current group's slots have been dispatched: the
    /// rest wait for a concurrency slot, in group order. A position rather
    /// than a queue of its own (issue 37: no allocation or copy per group).
    next: usize,
    in_flight: usize,
    /// A call failed fatally: start nothing more.
    stopping: bool,
}

#[derive(Debug)]
struct Slot {
    call: ToolCall,
    state: SlotState,
    /// The message the model will see, once decided.
    result: Option<Message>,
}

#[derive(Debug)]
enum SlotState {
    /// Refused before dispatch (unknown tool, incomplete arguments).
    Refused,
    /// Waiting for its group or a concurrency slot.
    Waiting,
    Running {
        id: ToolCallId,
        deadline: Option<Moment>,
        timeout: Option<Duration>,
    },
    Finished {
        id: ToolCallId,
        outcome: ToolOutcome,
    },
    TimedOut {
        id: ToolCallId,
        after: Duration,
    },
    /// Canceled because a sibling failed.
    Canceled,
    /// Never started.
    Skipped,
}

/// The first thing in emission order that ends the run.
enum Stop {
    Fail(ToolFailure),
    CancelRun { index: usize, reason: String },
}

impl Batch {
    /// The call running under `id`, if one is.
    pub(crate) fn running_call(&self, id: ToolCallId) -> Option<&ToolCall> {
        self.slots.iter().find(|s| matches!(s.state, SlotState::Running { id: i, .. } if i == id)).map(|s| &s.call)
    }

    pub(crate) fn in_flight_ids(&self) -> Vec<u64> {
        self.slots
            .iter()
            .filter_map(|s| match s.state {
                SlotState::Running { id, .. } => Some(id.0),
                _ => None,
            })
            .collect()
    }

    pub(crate) fn deadline(&self) -> Option<Moment> {
        self.slots
            .iter()
            .filter_map(|s| match s.state {
                SlotState::Running { deadline, .. } => deadline,
                _ => None,
            })
            .min()
    }

    /// Messages for a batch ended by cancellation (SPEC ERR-05, TOOL-12):
    /// results of calls before `keep_before` that have one, the interrupted
    /// result for everything else, so the history stays provider-valid.
    fn closing_messages(&self, keep_before: usize) -> Vec<Message> {
        self.slots
            .iter()
            .enumerate()
            .map(|(index, slot)| match (&slot.result, index < keep_before) {
                (Some(result), true) => result.clone(),
                _ => interrupted(&slot.call),
            })
            .collect()
    }
}

fn interrupted(call: &ToolCall) -> Message {
    Message::tool_result(call.id.clone(), call.name.clone(), texts::INTERRUPTED_RESULT)
}

fn timeout_text(after: Duration) -> String {
    format!("the tool call exceeded its deadline of {} ms", after.as_millis())
}

impl RunMachine {
    /// Plan and start the batch requested by assistant message `message`.
    pub(super) fn start_batch(&mut self, message: usize) {
        let count = self.ev.messages[message].tool_calls.len();
        let mut slots = Vec::with_capacity(count);
        for index in 0..count {
            // Each call is copied once, into its slot (issue 37: the whole
            // list was copied first).
            let call = self.ev.messages[message].tool_calls[index].clone();
            let refusal = if !self.cfg.advertised_names().iter().any(|n| n == &call.name) {
                let names: Vec<&str> = self.cfg.advertised_names().iter().map(String::as_str).collect();
                Some(texts::unknown_tool(&call.name, &names))
            } else if let Some(cap) = self.cfg.args_cap(&call.name).filter(|&cap| call.args.as_str().len() as u64 > cap)
            {
                // Checked before parsing: arguments past the cap are never
                // read (SPEC CAP-01).
                Some(texts::args_too_large(call.args.as_str().len(), cap))
            } else if !call.args.is_accepted() {
                Some(texts::INCOMPLETE_ARGS.to_string())
            } else {
                None
            };
            let Some(reason) = refusal else {
                slots.push(Slot { call, state: SlotState::Waiting, result: None });
                continue;
            };
            // Refusals are charged before anything runs: without budget the
            // run fails before any call of the batch starts (SPEC TOOL-06).
            if let Err(attempts) = self.charge_rejection(&call.name) {
                let failure = ToolFailureKind::Rejected { reason, attempts };
                self.fail_tool(&call, None, failure);
                return;
            }
            let result = Message::tool_result(call.id.clone(), call.name.clone(), texts::tool_rejected(&reason));
            slots.push(Slot { call, state: SlotState::Refused, result: Some(result) });
        }
        let dispatchable: Vec<usize> =
            slots.iter().enumerate().filter(|(_, s)| matches!(s.state, SlotState::Waiting)).map(|(i, _)| i).collect();
        if let Some(crossed) = limits::before_batch(&self.limits, self.ev.tool_calls, dispatchable.len() as u64) {
            self.fail(Stage::Usage, Cause::Usage(crossed));
            return;
        }
        let groups = self.group_calls(&slots, dispatchable);
        self.phase = Phase::Tools(Batch { slots, groups, group: 0, next: 0, in_flight: 0, stopping: false });
        self.start_group();
    }

    /// Sequential mode: one call per group. Parallel mode: maximal runs of
    /// non-sequential calls, a sequential tool alone as a barrier.
    fn group_calls(&self, slots: &[Slot], dispatchable: Vec<usize>) -> Vec<Vec<usize>> {
        if !self.cfg.parallel_tools {
            return dispatchable.into_iter().map(|i| vec![i]).collect();
        }
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut current = Vec::new();
        for index in dispatchable {
            let sequential = self.cfg.tool(&slots[index].call.name).is_some_and(|t| t.sequential);
            if sequential {
                if !current.is_empty() {
                    groups.push(std::mem::take(&mut current));
                }
                groups.push(vec![index]);
            } else {
                current.push(index);
            }
        }
        if !current.is_empty() {
            groups.push(current);
        }
        groups
    }

    /// Charge one correctable rejection of `tool` (its own budget if it has
    /// one, else the run-wide counter). `Err(attempts)` when none is left.
    pub(super) fn charge_rejection(&mut self, tool: &str) -> Result<(), u32> {
        match self.cfg.tool(tool).and_then(|t| t.max_retries) {
            Some(max) => {
                let used = self.per_tool_rejections.entry(tool.to_string()).or_default();
                if *used < max {
                    *used += 1;
                    Ok(())
                } else {
                    Err(used.saturating_add(1))
                }
            }
            None if self.tool_rejections < self.cfg.retry.tool_retries => {
                self.tool_rejections += 1;
                Ok(())
            }
            None => Err(self.tool_rejections.saturating_add(1)),
        }
    }

    fn fail_tool(&mut self, call: &ToolCall, id: Option<ToolCallId>, failure: ToolFailureKind) {
        let failure = ToolFailure { id: id.map(|i| i.0), tool: call.name.clone(), call_id: call.id.clone(), failure };
        self.fail(Stage::Tool, Cause::Tool(failure));
    }

    fn batch(&mut self) -> Option<&mut Batch> {
        match &mut self.phase {
            Phase::Tools(b) => Some(b),
            _ => None,
        }
    }

    /// Announce the current group, then dispatch it, or finish the batch.
    fn start_group(&mut self) {
        let turn = self.turn;
        let muted = self.muted;
        let Some(batch) = self.batch() else { return };
        let Some(group) = batch.groups.get(batch.group) else {
            self.complete_batch();
            return;
        };
        batch.next = 0;
        if muted {
            // Nobody hears the starts: their numbers are taken, their
            // clones of ids, names and arguments skipped.
            let count = group.len();
            self.heard(count);
            self.dispatch_ready();
            return;
        }
        let starts: Vec<EventKind> = group
            .iter()
            .map(|&i| {
                let call = &batch.slots[i].call;
                EventKind::ToolStart {
                    turn,
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    args: call.args.clone(),
                    approved: false,
                }
            })
            .collect();
        for start in starts {
            self.emit(start);
        }
        self.dispatch_ready();
    }

    /// The deadline of a call: the tool's own timeout, else the agent default.
    pub(super) fn tool_timeout(&self, tool: &str) -> Option<Duration> {
        self.cfg.tool(tool).and_then(|t| t.timeout).or(self.cfg.tool_timeout)
    }

    fn dispatch_ready(&mut self) {
        let cap = self.cfg.max_concurrency.map(|c| c as usize).unwrap_or(usize::MAX);
        loop {
            let Some(batch) = self.batch() else { return };
            if batch.stopping || batch.in_flight >= cap {
                break;
            }
            let Some(&index) = batch.groups.get(batch.group).and_then(|g| g.get(batch.next)) else { break };
            batch.next += 1;
            let call = batch.slots[index].call.clone();
            let timeout = self.tool_timeout(&call.name);
            let deadline = timeout.map(|t| self.now + t);
            let id = ToolCallId(self.ids.mint(IdKind::Tool));
            self.ev.tool_calls += 1;
            if let Some(batch) = self.batch() {
                batch.slots[index].state = SlotState::Running { id, deadline, timeout };
                batch.in_flight += 1;
            }
            self.command(Command::ExecuteTool { id, call, deadline, approved: false });
        }
        self.maybe_complete_group();
    }

    pub(super) fn on_tool_started(&mut self, id: ToolCallId) -> Result<(), ApiMisuse> {
        // The ledger input (SPEC LOG-06): a call reports starting once.
        self.ids.check_known(IdKind::Tool, id.0)?;
        if !self.started.insert(id.0) {
            return Err(ApiMisuse::DuplicateStart(id.0));
        }
        Ok(())
    }

    pub(super) fn on_tool_finished(&mut self, id: ToolCallId, outcome: ToolOutcome) -> Result<(), ApiMisuse> {
        if self.ids.answer(IdKind::Tool, id.0)? == Answer::Late {
            self.late_result("tool", id.0);
            return Ok(());
        }
        let tool = match &self.phase {
            Phase::Tools(batch) => batch.running_call(id).map(|c| c.name.as_str()),
            Phase::Resuming(resume) => resume.running_call(id).map(|c| c.name.as_str()),
            _ => None,
        };
        let outcome = super::caps::cap_tool_result(outcome, tool.and_then(|t| self.cfg.result_cap(t)));
        if matches!(self.phase, Phase::Resuming(_)) {
            self.on_rerun_finished(id, outcome);
            return Ok(());
        }
        let Some(batch) = self.batch() else { return Ok(()) };
        let Some(slot) =
            batch.slots.iter_mut().find(|s| matches!(s.state, SlotState::Running { id: i, .. } if i == id))
        else {
            return Ok(());
        };
        let fatal = matches!(outcome, ToolOutcome::Fatal { .. } | ToolOutcome::CancelRun { .. });
        slot.state = SlotState::Finished { id, outcome };
        batch.in_flight -= 1;
        if fatal {
            self.stop_siblings();
        }
        self.dispatch_ready();
        Ok(())
    }

    /// A call failed fatally: cancel running siblings and start nothing more
    /// (SPEC TOOL-09).
    fn stop_siblings(&mut self) {
        let Some(batch) = self.batch() else { return };
        batch.stopping = true;
        let mut cancel = Vec::new();
        for slot in batch.slots.iter_mut() {
            if let SlotState::Running { id, .. } = slot.state {
                cancel.push(id);
                slot.state = SlotState::Canceled;
                batch.in_flight -= 1;
            }
        }
        let waiting = batch.groups.get(batch.group).map_or(&[][..], |g| g.get(batch.next..).unwrap_or_default());
        for &index in waiting {
            batch.slots[index].state = SlotState::Skipped;
        }
        batch.next += waiting.len();
        for id in cancel {
            self.ids.abandon(id.0);
            self.command(Command::CancelTool { id });
        }
    }

    pub(super) fn batch_timers(&mut self) {
        let now = self.now;
        let Some(batch) = self.batch() else { return };
        let mut expired = Vec::new();
        for slot in batch.slots.iter_mut() {
            if let SlotState::Running { id, deadline: Some(deadline), timeout } = slot.state {
                if deadline <= now {
                    let after = timeout.unwrap_or_default();
                    slot.state = SlotState::TimedOut { id, after };
                    batch.in_flight -= 1;
                    expired.push((id, slot.call.name.clone()));
                }
            }
        }
        let mut fatal = false;
        for (id, tool) in expired {
            self.ids.abandon(id.0);
            self.command(Command::CancelTool { id });
            let policy = self.cfg.tool(&tool).map(|t| t.on_timeout).unwrap_or_default();
            fatal |= policy == TimeoutPolicy::FailRun;
        }
        if fatal {
            self.stop_siblings();
        }
        self.dispatch_ready();
    }

    fn maybe_complete_group(&mut self) {
        let Some(batch) = self.batch() else { return };
        if batch.in_flight == 0 && batch.groups.get(batch.group).is_none_or(|g| batch.next >= g.len()) {
            self.complete_group();
        }
    }

    /// Every call of the group has answered or passed its deadline: report
    /// tool ends in emission order, then judge the group in emission order.
    fn complete_group(&mut self) {
        let Phase::Tools(mut batch) = std::mem::replace(&mut self.phase, Phase::Done) else { return };
        // Taken, not copied: a completed group is never read again — the
        // batch goes on to the next group, or the run ends here.
        let group = batch.groups.get_mut(batch.group).map(std::mem::take).unwrap_or_default();
        if self.heard(group.len()) {
            for &index in &group {
                let event = end_event(&batch.slots[index], self.turn);
                self.emit(event);
            }
        }
        let mut stop = None;
        for &index in &group {
            if let Some(found) = self.judge(&mut batch.slots[index], index) {
                stop = Some(found);
                break;
            }
        }
        match stop {
            Some(Stop::Fail(failure)) => {
                self.phase = Phase::Tools(batch);
                self.fail(Stage::Tool, Cause::Tool(failure));
            }
            Some(Stop::CancelRun { index, reason }) => {
                // Results before the cancelling call stand; everything else is interrupted.
                let closing = batch.closing_messages(index);
                self.ev.add_all(closing);
                self.phase = Phase::Tools(batch);
                self.end_canceled_with(CancelReason::Tool, reason, Stage::Canceled);
            }
            None => {
                batch.group += 1;
                self.phase = Phase::Tools(batch);
                self.start_group();
            }
        }
    }

    /// Decide one finished call's message, or find that it ends the run.
    fn judge(&mut self, slot: &mut Slot, index: usize) -> Option<Stop> {
        let call = &slot.call;
        let fail = |id: ToolCallId, failure| {
            Some(Stop::Fail(ToolFailure { id: Some(id.0), tool: call.name.clone(), call_id: call.id.clone(), failure }))
        };
        match &slot.state {
            SlotState::Finished { id, outcome } => match outcome {
                ToolOutcome::Output { content, parts } => {
                    // Media a tool returns is checked like a prompt's: a malformed
                    // part would only fail later, at the provider (SPEC TOOL-02).
                    if let Some((index, error)) =
                        parts.iter().enumerate().find_map(|(i, p)| p.validate().err().map(|e| (i, e)))
                    {
                        let cause =
                            CauseRecord::new("invalid_part", format!("result part {index} is invalid: {error}"));
                        return fail(*id, ToolFailureKind::Fatal { cause });
                    }
                    let msg = Message::tool_result(call.id.clone(), call.name.clone(), content.clone());
                    slot.result = Some(msg.with_parts(parts.clone()));
                    None
                }
                ToolOutcome::Failed { reason, .. } => {
                    let mut msg = Message::tool_result(call.id.clone(), call.name.clone(), reason.clone());
                    msg.failed = true;
                    slot.result = Some(msg);
                    None
                }
                ToolOutcome::Reject { reason } => match self.charge_rejection(&call.name) {
                    Ok(()) => {
                        let text = texts::tool_rejected(reason);
                        slot.result = Some(Message::tool_result(call.id.clone(), call.name.clone(), text));
                        None
                    }
                    Err(attempts) => fail(*id, ToolFailureKind::Rejected { reason: reason.clone(), attempts }),
                },
                ToolOutcome::Defer { .. } => None,
                ToolOutcome::CancelRun { reason } => Some(Stop::CancelRun { index, reason: reason.clone() }),
                ToolOutcome::Fatal { cause } => fail(*id, ToolFailureKind::Fatal { cause: cause.clone() }),
            },
            SlotState::TimedOut { id, after } => {
                if self.cfg.tool(&call.name).map(|t| t.on_timeout) == Some(TimeoutPolicy::FailedResult) {
                    let mut msg = Message::tool_result(call.id.clone(), call.name.clone(), timeout_text(*after));
                    msg.failed = true;
                    slot.result = Some(msg);
                    None
                } else {
                    fail(*id, ToolFailureKind::Timeout { after: *after })
                }
            }
            _ => None,
        }
    }

    /// All groups done: append results in emission order, then pause on
    /// deferrals or go on to the next turn.
    fn complete_batch(&mut self) {
        let Phase::Tools(batch) = std::mem::replace(&mut self.phase, Phase::Done) else { return };
        let mut deferred = DeferredRequests::default();
        for slot in batch.slots {
            if let SlotState::Finished { outcome: ToolOutcome::Defer { kind, reason }, .. } = &slot.state {
                let pending = PendingCall {
                    call_id: slot.call.id.clone(),
                    tool: slot.call.name.clone(),
                    args: slot.call.args.clone(),
                    reason: reason.clone(),
                };
                match kind {
                    DeferKind::Approval => deferred.approvals.push(pending),
                    DeferKind::External => deferred.external.push(pending),
                }
                continue;
            }
            self.ev.add(slot.result.unwrap_or_else(|| interrupted(&slot.call)));
        }
        if !deferred.is_empty() {
            let summary = self.ev.summary();
            self.finish(Outcome::Paused { summary, deferred });
            return;
        }
        self.turn += 1;
        self.begin_turn();
    }

    /// Caller cancellation in the middle of a batch: keep what finished,
    /// interrupt the rest (SPEC ERR-05).
    pub(super) fn close_batch_on_cancel(&mut self) {
        // Every call announced with tool_start gets its tool_end, in
        // emission order: finished ones with their answer, the rest canceled.
        if let Phase::Tools(batch) = &self.phase {
            let group = batch.groups.get(batch.group).cloned().unwrap_or_default();
            let turn = self.turn;
            let ends: Vec<EventKind> = group
                .iter()
                .map(|&i| {
                    let slot = &batch.slots[i];
                    match slot.state {
                        SlotState::Running { .. } | SlotState::Waiting => EventKind::ToolEnd {
                            turn,
                            call_id: slot.call.id.clone(),
                            tool: slot.call.name.clone(),
                            outcome: ToolEndOutcome::Interrupted { cause: Interruption::RunStopped },
                            approved: false,
                        },
                        _ => end_event(slot, turn),
                    }
                })
                .collect();
            for end in ends {
                self.emit(end);
            }
        }
        let Phase::Tools(batch) = &mut self.phase else { return };
        for slot in batch.slots.iter_mut() {
            if slot.result.is_some() {
                continue;
            }
            // Finished results stand; rejections, deferrals and errors were
            // never judged, so they read as interrupted like unfinished calls.
            match &slot.state {
                SlotState::Finished { outcome: ToolOutcome::Output { content, parts }, .. } => {
                    let msg = Message::tool_result(slot.call.id.clone(), slot.call.name.clone(), content.clone());
                    slot.result = Some(msg.with_parts(parts.clone()));
                }
                SlotState::Finished { outcome: ToolOutcome::Failed { reason, .. }, .. } => {
                    let mut msg = Message::tool_result(slot.call.id.clone(), slot.call.name.clone(), reason.clone());
                    msg.failed = true;
                    slot.result = Some(msg);
                }
                _ => {}
            }
        }
        let closing = batch.closing_messages(usize::MAX);
        self.ev.add_all(closing);
    }
}

/// The tool-end (or deferred) event of a slot of turn `turn`.
fn end_event(slot: &Slot, turn: u32) -> EventKind {
    let call_id = slot.call.id.clone();
    let tool = slot.call.name.clone();
    let outcome = match &slot.state {
        SlotState::Finished { outcome: ToolOutcome::Defer { kind, reason }, .. } => {
            return EventKind::Deferred { turn, call_id, tool, kind: *kind, reason: reason.clone() };
        }
        SlotState::Finished { outcome, .. } => end_outcome(outcome),
        SlotState::TimedOut { after, .. } => ToolEndOutcome::TimedOut { after: *after },
        SlotState::Canceled => ToolEndOutcome::Interrupted { cause: Interruption::SiblingFailed },
        _ => ToolEndOutcome::Interrupted { cause: Interruption::NotStarted },
    };
    EventKind::ToolEnd { turn, call_id, tool, outcome, approved: false }
}

/// What a tool's answer looks like on its `tool_end` event (SPEC EVT-01).
pub(super) fn end_outcome(outcome: &ToolOutcome) -> ToolEndOutcome {
    match outcome {
        ToolOutcome::Output { content, .. } => ToolEndOutcome::Output { content: content.clone() },
        ToolOutcome::Reject { reason } => ToolEndOutcome::Rejected { reason: reason.clone() },
        ToolOutcome::Failed { reason, cause } => {
            ToolEndOutcome::Failed { reason: reason.clone(), cause: cause.clone() }
        }
        ToolOutcome::CancelRun { reason } => ToolEndOutcome::CanceledRun { reason: reason.clone() },
        ToolOutcome::Fatal { cause } => {
            ToolEndOutcome::Fatal { kind: cause.kind.clone(), message: cause.message.clone() }
        }
        ToolOutcome::Defer { kind, reason } => ToolEndOutcome::Deferred { kind: *kind, reason: reason.clone() },
    }
}

impl RunMachine {
    /// After a crash: calls that never started run (under new ids); started
    /// ones follow their tool's `UnknownOutcome` (SPEC LOG-06).
    pub(super) fn recover_batch(&mut self) {
        let Some(batch) = self.batch() else { return };
        let running: Vec<(usize, ToolCallId)> = batch
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s.state {
                SlotState::Running { id, .. } => Some((i, id)),
                _ => None,
            })
            .collect();
        for (index, old) in running {
            let Some(batch) = self.batch() else { return };
            let call = batch.slots[index].call.clone();
            let started = self.started.contains(old.0);
            let policy = self.cfg.tool(&call.name).map(|t| t.on_unknown_outcome).unwrap_or_default();
            let decision = if started { policy } else { UnknownOutcome::Redo };
            if started && decision == UnknownOutcome::Redo {
                // The body may run a second time: that is a second dispatch.
                self.ev.tool_calls += 1;
            }
            self.ids.abandon(old.0);
            self.emit(EventKind::Recovered { call_id: call.id.clone(), tool: call.name.clone(), started, decision });
            let state = match decision {
                UnknownOutcome::Redo => {
                    let timeout = self.tool_timeout(&call.name);
                    let deadline = timeout.map(|t| self.now + t);
                    let id = ToolCallId(self.ids.mint(IdKind::Tool));
                    self.command(Command::ExecuteTool { id, call, deadline, approved: false });
                    SlotState::Running { id, deadline, timeout }
                }
                UnknownOutcome::Interrupt => {
                    SlotState::Finished { id: old, outcome: ToolOutcome::failed(texts::OUTCOME_UNKNOWN) }
                }
                UnknownOutcome::AskHuman => SlotState::Finished {
                    id: old,
                    outcome: ToolOutcome::Defer {
                        kind: DeferKind::Approval,
                        reason: texts::OUTCOME_UNKNOWN_ASK.into(),
                    },
                },
            };
            if let Some(batch) = self.batch() {
                if !matches!(state, SlotState::Running { .. }) {
                    batch.in_flight -= 1;
                }
                batch.slots[index].state = state;
            }
        }
        self.dispatch_ready();
    }
}

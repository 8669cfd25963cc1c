//! Opening a run: the preamble (SPEC RUN-02) and deferred resolutions with
//! approved re-runs (SPEC DEFER-02..05).

use super::ids::IdKind;
use super::limits;
use super::vocabulary::{Command, Prompt, SetupError, Start, ToolCallId, ToolOutcome};
use super::{Phase, RunMachine};
use crate::deferral::{DeferredResults, ResolutionError};
use crate::error::{CancelReason, Cause, CauseRecord, Stage, ToolFailure, ToolFailureKind};
use crate::event::{EventKind, ToolEndOutcome};
use crate::history;
use crate::message::{Message, Role, ToolCall};
use crate::texts;
use crate::time::Moment;
use crate::tool::{TimeoutPolicy, UnknownOutcome};
use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

/// Approved calls of a deferred resume being re-run, one at a time in
/// emission order (they were gated for a reason: no surprise concurrency).
#[derive(Debug)]
pub(crate) struct Resume {
    history: Vec<Message>,
    results: Vec<Message>,
    queue: VecDeque<ToolCall>,
    running: Option<Rerun>,
    instructions: String,
    prompt: Option<Prompt>,
}

#[derive(Debug)]
struct Rerun {
    id: ToolCallId,
    call: ToolCall,
    deadline: Option<Moment>,
    timeout: Option<Duration>,
}

impl Resume {
    pub(crate) fn in_flight(&self) -> Option<u64> {
        self.running.as_ref().map(|r| r.id.0)
    }

    pub(crate) fn deadline(&self) -> Option<Moment> {
        self.running.as_ref().and_then(|r| r.deadline)
    }

    /// The approved re-run running under `id`, if it is.
    pub(crate) fn running_call(&self, id: ToolCallId) -> Option<&ToolCall> {
        self.running.as_ref().filter(|r| r.id == id).map(|r| &r.call)
    }
}

/// Check resolutions against the paused history, in SPEC DEFER-02's order,
/// and split them into ready results and approved calls to re-run.
fn plan(history: &[Message], resolutions: &DeferredResults) -> Result<(Vec<Message>, Vec<ToolCall>), ResolutionError> {
    if let Some(call) = history.iter().flat_map(|m| &m.tool_calls).find(|c| c.id.is_empty()) {
        return Err(ResolutionError::CallWithoutId(call.name.clone()));
    }
    let pending: Vec<&ToolCall> =
        history::pending_calls(history).iter().map(|p| &history[p.message].tool_calls[p.call]).collect();
    let mut seen = BTreeSet::new();
    for call in &pending {
        if !seen.insert(call.id.as_str()) {
            return Err(ResolutionError::DuplicatePendingId(call.id.clone()));
        }
    }
    if pending.is_empty() {
        return Err(ResolutionError::NothingPending);
    }
    // Each rule is checked across every id before the next rule (SPEC DEFER-02 order).
    if let Some(id) = resolutions.approvals.keys().find(|id| !seen.contains(id.as_str())) {
        return Err(ResolutionError::ApprovalNotPending(id.clone()));
    }
    if let Some(id) = resolutions.approvals.keys().find(|id| resolutions.external.contains_key(*id)) {
        return Err(ResolutionError::ResolvedBothWays(id.clone()));
    }
    if let Some(id) = resolutions.external.keys().find(|id| !seen.contains(id.as_str())) {
        return Err(ResolutionError::ExternalNotPending(id.clone()));
    }
    let mut results = Vec::new();
    let mut approved = Vec::new();
    for call in pending {
        if let Some(approval) = resolutions.approvals.get(&call.id) {
            if approval.approved {
                approved.push(call.clone());
            } else {
                let text = texts::denied(&approval.reason);
                results.push(Message::tool_result(call.id.clone(), call.name.clone(), text));
            }
        } else if let Some(text) = resolutions.external.get(&call.id) {
            results.push(Message::tool_result(call.id.clone(), call.name.clone(), text.clone()));
        } else {
            return Err(ResolutionError::Unresolved(call.id.clone()));
        }
    }
    Ok((results, approved))
}

impl RunMachine {
    /// Run the preamble; start re-runs or the first turn.
    pub(super) fn begin(&mut self, start: Start) -> Result<(), SetupError> {
        let Start { history, instructions, prompt, resume, .. } = start;
        if let Some(prompt) = &prompt {
            for (index, part) in prompt.parts.iter().enumerate() {
                part.validate().map_err(|error| SetupError::InvalidPart { index, error })?;
            }
        }
        history::validate(&history)?;
        let Some(resolutions) = resume else {
            let prompt = Some(prompt.unwrap_or_default());
            self.open(history, Vec::new(), &instructions, prompt, false);
            return Ok(());
        };
        let (results, approved) = plan(&history, &resolutions)?;
        if approved.is_empty() {
            self.open(history, results, &instructions, prompt, true);
            return Ok(());
        }
        // Until the conversation opens, the evidence is the paused history.
        self.ev.messages = std::sync::Arc::new(history.clone());
        if let Some(crossed) = limits::before_batch(&self.limits, self.ev.tool_calls, approved.len() as u64) {
            self.fail(Stage::Usage, Cause::Usage(crossed));
            return Ok(());
        }
        self.phase = Phase::Resuming(Box::new(Resume {
            history,
            results,
            queue: approved.into(),
            running: None,
            instructions,
            prompt,
        }));
        self.next_rerun();
        Ok(())
    }

    /// Place resolutions, repair, replace system messages with the
    /// instructions, append the prompt, and start the first turn.
    fn open(
        &mut self,
        history: Vec<Message>,
        results: Vec<Message>,
        instructions: &str,
        prompt: Option<Prompt>,
        resuming: bool,
    ) {
        // Everything but the history is this run's: resolutions, closers
        // repair synthesizes, instructions and prompt carry its ids (EXTRA-01).
        // A fresh conversation (most runs) has nothing to place, repair or
        // drop: the work and its code are skipped (issue 37).
        let mut messages =
            if history.is_empty() && results.is_empty() { history } else { self.continued(history, results) };
        if !instructions.is_empty() {
            let mut system = Message::system(instructions);
            self.ev.stamp(&mut system);
            messages.insert(0, system);
        }
        self.ev.messages = std::sync::Arc::new(messages);
        if let Some(Prompt { text, parts }) = prompt {
            // A resume may continue on its resolutions alone (SPEC RUN-02).
            if !(resuming && text.is_empty() && parts.is_empty()) {
                self.ev.add(Message::user(text).with_parts(parts));
            }
        }
        self.phase = Phase::Starting;
    }

    /// A continued conversation's history with the resolutions placed,
    /// repaired (SPEC HIST-01) and without system messages, which the
    /// instructions replace.
    fn continued(&mut self, history: Vec<Message>, mut results: Vec<Message>) -> Vec<Message> {
        let mut messages = history;
        results.iter_mut().for_each(|m| self.ev.stamp(m));
        history::place_results(&mut messages, results);
        let mut messages = history::repair_in_run(messages, &self.ev.run_id, &self.ev.conversation_id);
        messages.retain(|m| m.role != Role::System);
        messages
    }

    fn next_rerun(&mut self) {
        let Phase::Resuming(resume) = &mut self.phase else { return };
        let Some(call) = resume.queue.pop_front() else {
            let Phase::Resuming(resume) = std::mem::replace(&mut self.phase, Phase::Done) else { return };
            let Resume { history, results, instructions, prompt, .. } = *resume;
            self.open(history, results, &instructions, prompt, true);
            return;
        };
        let timeout = self.tool_timeout(&call.name);
        let deadline = timeout.map(|t| self.now + t);
        let id = ToolCallId(self.ids.mint(IdKind::Tool));
        self.ev.tool_calls += 1;
        if let Phase::Resuming(resume) = &mut self.phase {
            resume.running = Some(Rerun { id, call: call.clone(), deadline, timeout });
        }
        self.emit(EventKind::ToolStart {
            turn: self.turn,
            call_id: call.id.clone(),
            tool: call.name.clone(),
            args: call.args.clone(),
            approved: true,
        });
        self.command(Command::ExecuteTool { id, call, deadline, approved: true });
    }

    pub(super) fn on_rerun_finished(&mut self, id: ToolCallId, outcome: ToolOutcome) {
        let Phase::Resuming(resume) = &mut self.phase else { return };
        let Some(rerun) = resume.running.take_if(|r| r.id == id) else { return };
        let call = &rerun.call;
        let turn = self.turn;
        let end = |outcome: ToolEndOutcome| EventKind::ToolEnd {
            turn,
            call_id: call.id.clone(),
            tool: call.name.clone(),
            outcome,
            approved: true,
        };
        let event = super::batch::end_outcome(&outcome);
        let failure = |failure| {
            Cause::Tool(ToolFailure { id: Some(id.0), tool: call.name.clone(), call_id: call.id.clone(), failure })
        };
        let detail = |what: &str| ToolFailureKind::ApprovedRerun { detail: what.to_string() };
        match outcome {
            ToolOutcome::Output { content, parts } => {
                if let Some((index, error)) =
                    parts.iter().enumerate().find_map(|(i, p)| p.validate().err().map(|e| (i, e)))
                {
                    let record = CauseRecord::new("invalid_part", format!("result part {index} is invalid: {error}"));
                    let event = ToolEndOutcome::Fatal { kind: record.kind.clone(), message: record.message.clone() };
                    let cause = failure(ToolFailureKind::Fatal { cause: record });
                    self.emit(end(event));
                    self.fail(Stage::Tool, cause);
                    return;
                }
                let msg = Message::tool_result(call.id.clone(), call.name.clone(), content.clone()).with_parts(parts);
                resume.results.push(msg);
                self.emit(end(event));
                self.next_rerun();
            }
            ToolOutcome::Failed { reason, .. } => {
                let mut msg = Message::tool_result(call.id.clone(), call.name.clone(), reason.clone());
                msg.failed = true;
                resume.results.push(msg);
                self.emit(end(event));
                self.next_rerun();
            }
            ToolOutcome::CancelRun { reason } => {
                self.emit(end(event));
                self.end_canceled_with(CancelReason::Tool, reason, Stage::Canceled);
            }
            ToolOutcome::Reject { reason } => {
                let cause = failure(detail(&format!("rejected: {reason}")));
                self.emit(end(event));
                self.fail(Stage::Tool, cause);
            }
            ToolOutcome::Defer { reason, .. } => {
                let cause = failure(detail(&format!("deferred again: {reason}")));
                self.emit(end(event));
                self.fail(Stage::Tool, cause);
            }
            ToolOutcome::Fatal { cause: record } => {
                let cause = failure(ToolFailureKind::Fatal { cause: record.clone() });
                self.emit(end(event));
                self.fail(Stage::Tool, cause);
            }
        }
    }

    pub(super) fn resume_timers(&mut self) {
        let now = self.now;
        let Phase::Resuming(resume) = &mut self.phase else { return };
        let Some(rerun) = resume.running.take_if(|r| r.deadline.is_some_and(|d| d <= now)) else { return };
        let after = rerun.timeout.unwrap_or_default();
        let text = format!("the tool call exceeded its deadline of {} ms", after.as_millis());
        self.ids.abandon(rerun.id.0);
        self.command(Command::CancelTool { id: rerun.id });
        let end = EventKind::ToolEnd {
            turn: self.turn,
            call_id: rerun.call.id.clone(),
            tool: rerun.call.name.clone(),
            outcome: ToolEndOutcome::TimedOut { after },
            approved: true,
        };
        self.emit(end);
        if self.cfg.tool(&rerun.call.name).map(|t| t.on_timeout) == Some(TimeoutPolicy::FailedResult) {
            let mut msg = Message::tool_result(rerun.call.id.clone(), rerun.call.name.clone(), text);
            msg.failed = true;
            if let Phase::Resuming(resume) = &mut self.phase {
                resume.results.push(msg);
            }
            self.next_rerun();
        } else {
            let failure = ToolFailure {
                id: Some(rerun.id.0),
                tool: rerun.call.name.clone(),
                call_id: rerun.call.id.clone(),
                failure: ToolFailureKind::Timeout { after },
            };
            self.fail(Stage::Tool, Cause::Tool(failure));
        }
    }
}

impl RunMachine {
    /// After a crash during an approved re-run: one that never started runs;
    /// a started one follows its tool's `UnknownOutcome` (SPEC LOG-06).
    pub(super) fn recover_rerun(&mut self) {
        let Phase::Resuming(resume) = &mut self.phase else { return };
        let Some(rerun) = resume.running.take() else { return };
        let started = self.started.contains(rerun.id.0);
        let policy = self.cfg.tool(&rerun.call.name).map(|t| t.on_unknown_outcome).unwrap_or_default();
        // An approved call already had its human decision: asking again
        // would loop, so AskHuman reads as Interrupt here.
        let decision = match (started, policy) {
            (false, _) | (true, UnknownOutcome::Redo) => UnknownOutcome::Redo,
            _ => UnknownOutcome::Interrupt,
        };
        self.ids.abandon(rerun.id.0);
        self.emit(EventKind::Recovered {
            call_id: rerun.call.id.clone(),
            tool: rerun.call.name.clone(),
            started,
            decision,
        });
        if decision == UnknownOutcome::Redo {
            let id = ToolCallId(self.ids.mint(IdKind::Tool));
            let call = rerun.call.clone();
            let deadline = rerun.timeout.map(|t| self.now + t);
            if let Phase::Resuming(resume) = &mut self.phase {
                resume.running = Some(Rerun { id, deadline, ..rerun });
            }
            self.command(Command::ExecuteTool { id, call, deadline, approved: true });
            return;
        }
        let mut msg = Message::tool_result(rerun.call.id.clone(), rerun.call.name.clone(), texts::OUTCOME_UNKNOWN);
        msg.failed = true;
        if let Phase::Resuming(resume) = &mut self.phase {
            resume.results.push(msg);
        }
        self.next_rerun();
    }
}

//! Cancellation as an input (SPEC MACH-07, ERR-02, ERR-05).

use super::vocabulary::CancelMode;
use super::{Phase, RunMachine};
use crate::error::{CancelReason, Cause, Stage};
use crate::event::EventKind;

impl RunMachine {
    pub(super) fn on_cancel(&mut self, reason: CancelReason, mode: CancelMode) {
        if mode == CancelMode::AfterTurn {
            // The current turn and its batch finish; the next turn never starts.
            self.stop_after_turn.get_or_insert(reason);
            return;
        }
        let stage = match &self.phase {
            Phase::Tools(_) | Phase::Resuming(_) => Stage::Tool,
            _ => Stage::Model,
        };
        if matches!(self.phase, Phase::Tools(_)) {
            self.close_batch_on_cancel();
        }
        self.end_canceled(reason, stage);
    }

    pub(super) fn end_canceled(&mut self, reason: CancelReason, stage: Stage) {
        self.end_canceled_with(reason, String::new(), stage);
    }

    pub(super) fn end_canceled_with(&mut self, reason: CancelReason, message: String, stage: Stage) {
        self.emit(EventKind::Canceled { reason });
        self.fail(stage, Cause::Canceled { reason, message });
    }
}

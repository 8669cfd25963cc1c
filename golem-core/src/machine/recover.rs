//! Continuing a crashed run after its log was replayed (SPEC LOG-05, LOG-06).
//!
//! Replay brings the machine to where the log stops; whatever was in flight
//! then died with the old process. `Input::Recover` re-issues it: model
//! calls as new requests, decodes again, and tool calls by the ledger —
//! never-started calls run, started ones follow their tool's policy.

use super::{Phase, RunMachine};

impl RunMachine {
    pub(super) fn recover(&mut self) {
        match &self.phase {
            Phase::Model(model) => {
                if let Some(id) = model.in_flight() {
                    self.ids.abandon(id);
                    self.dispatch_model_call();
                }
            }
            Phase::Decoding(_) => self.recover_decode(),
            Phase::Tools(_) => self.recover_batch(),
            Phase::Resuming(_) => self.recover_rerun(),
            Phase::Starting | Phase::Done => {}
        }
    }
}

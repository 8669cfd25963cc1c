//! What a stream decoder has parsed but not yet handed out (the
//! [`crate::codec::StreamDecoder`] contract): deltas in arrival order,
//! then at most one error — terminal, and yielded once.

use golem_core::model::{Delta, ModelError};
use std::collections::VecDeque;

#[derive(Debug, Default)]
pub(super) struct Outbox {
    deltas: VecDeque<Delta>,
    error: Option<ModelError>,
    reported: bool,
}

impl Outbox {
    pub(crate) fn push(&mut self, delta: Delta) {
        self.deltas.push_back(delta);
    }

    /// Fail the stream; the first error stands.
    pub(crate) fn fail(&mut self, error: ModelError) {
        self.error.get_or_insert(error);
    }

    /// True while neither a delta waits nor the stream failed: parse on.
    pub(crate) fn wants_more(&self) -> bool {
        self.deltas.is_empty() && self.error.is_none()
    }

    pub(crate) fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// The next delta, else the error once, else nothing.
    pub(crate) fn next(&mut self) -> Option<Result<Delta, ModelError>> {
        if let Some(delta) = self.deltas.pop_front() {
            return Some(Ok(delta));
        }
        match &self.error {
            Some(error) if !self.reported => {
                self.reported = true;
                Some(Err(error.clone()))
            }
            _ => None,
        }
    }

    /// Drop the deltas nobody drained (the response is built from the
    /// assembler); true when there were any.
    pub(crate) fn discard(&mut self) -> bool {
        let had = !self.deltas.is_empty();
        self.deltas.clear();
        had
    }

    /// The error the stream failed with, if it did.
    pub(crate) fn take_error(&mut self) -> Option<ModelError> {
        self.error.take()
    }
}

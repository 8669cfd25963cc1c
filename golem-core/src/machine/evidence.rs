//! What a run has gathered so far: the conversation, usage and counters
//! (SPEC ERR-03, ERR-05, RUN-08).

use super::io::RunSummary;
use crate::error::PartialResult;
use crate::message::{FinishReason, Message, Usage};

#[derive(Debug, Default)]
pub(crate) struct Evidence {
    pub(crate) messages: Vec<Message>,
    pub(crate) usage: Usage,
    pub(crate) finish_reason: FinishReason,
    pub(crate) requests: u64,
    pub(crate) tool_calls: u64,
    /// Turns this run completed (history does not count, SPEC ERR-05).
    pub(crate) completed_turns: u32,
}

impl Evidence {
    pub(crate) fn summary(&self) -> RunSummary {
        RunSummary {
            messages: self.messages.clone(),
            usage: self.usage,
            finish_reason: self.finish_reason,
            requests: self.requests,
            tool_calls: self.tool_calls,
        }
    }

    /// `None` iff this run completed no turn, reported no usage and ran no tool.
    pub(crate) fn partial(&self) -> Option<PartialResult> {
        if self.completed_turns == 0 && self.usage.is_zero() && self.tool_calls == 0 {
            return None;
        }
        Some(PartialResult {
            messages: self.messages.clone(),
            usage: self.usage,
            requests: self.requests,
            tool_calls: self.tool_calls,
        })
    }
}

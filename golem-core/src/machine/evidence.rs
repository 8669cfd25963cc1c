//! What a run has gathered so far: the conversation, usage and counters
//! (SPEC ERR-03, ERR-05, RUN-08), and the ids every message it adds carries
//! (SPEC EXTRA-01).

use super::vocabulary::RunSummary;
use crate::error::PartialResult;
use crate::message::{FinishReason, Message, Usage};

#[derive(Debug, Default)]
pub(crate) struct Evidence {
    /// The conversation. Messages this run adds go through [`Evidence::add`]
    /// so none misses its ids; history comes in whole at the start.
    ///
    /// Shared with the request of the model call in flight, which is sent
    /// the whole history every turn: the call holds it while it runs, and an
    /// append copies it only if a call still does.
    pub(crate) messages: std::sync::Arc<Vec<Message>>,
    pub(crate) usage: Usage,
    /// Usage per fallback member (index = member), for cost.
    pub(crate) usage_by_member: Vec<Usage>,
    /// The estimated cost so far, when every member used has a price.
    pub(crate) cost: Option<f64>,
    /// The estimated cost of delegated sub-runs, added to `cost`.
    pub(crate) delegated_cost: f64,
    /// What each delegated sub-run spent (already in the totals).
    pub(crate) sub_runs: Vec<crate::sub_run::SubRunShare>,
    pub(crate) finish_reason: FinishReason,
    pub(crate) requests: u64,
    pub(crate) tool_calls: u64,
    /// Turns this run completed (history does not count, SPEC ERR-05).
    pub(crate) completed_turns: u32,
    /// The streamed turn that broke after fragments reached the caller,
    /// as far as they went (SPEC RETRY-06); never one of `messages`.
    pub(crate) incomplete: Option<Box<Message>>,
    pub(crate) run_id: crate::id::Id,
    pub(crate) conversation_id: crate::id::Id,
}

impl Evidence {
    /// Mark `message` as this run's: its ids are overwritten, so a model
    /// cannot put another run's ids on its own turn.
    pub(crate) fn stamp(&self, message: &mut Message) {
        message.run_id = self.run_id.clone();
        message.conversation_id = self.conversation_id.clone();
    }

    /// Append a message this run produced, stamped.
    pub(crate) fn add(&mut self, mut message: Message) {
        self.stamp(&mut message);
        std::sync::Arc::make_mut(&mut self.messages).push(message);
    }

    /// Append messages this run produced, stamped, in order.
    pub(crate) fn add_all(&mut self, messages: impl IntoIterator<Item = Message>) {
        for message in messages {
            self.add(message);
        }
    }

    /// The summary of a run that ends here. It takes the messages rather
    /// than copying them: the machine is done and never reads them again.
    pub(crate) fn summary(&mut self) -> RunSummary {
        RunSummary {
            messages: std::sync::Arc::unwrap_or_clone(std::mem::take(&mut self.messages)),
            usage: self.usage,
            cost: self.cost,
            finish_reason: self.finish_reason,
            requests: self.requests,
            tool_calls: self.tool_calls,
            sub_runs: self.sub_runs.clone(),
            // Copied as text: `to_string` would run the formatter.
            run_id: self.run_id.as_str().to_owned(),
            conversation_id: self.conversation_id.as_str().to_owned(),
        }
    }

    /// `None` iff this run completed no turn, reported no usage, ran no
    /// tool and forwarded no fragment of a turn it then lost.
    pub(crate) fn partial(&self) -> Option<PartialResult> {
        if self.completed_turns == 0 && self.usage.is_zero() && self.tool_calls == 0 && self.incomplete.is_none() {
            return None;
        }
        let mut partial = PartialResult::new(self.messages.to_vec(), self.usage, self.requests, self.tool_calls);
        partial.incomplete.clone_from(&self.incomplete);
        partial.sub_runs.clone_from(&self.sub_runs);
        Some(partial)
    }
}

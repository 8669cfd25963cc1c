//! `previous_response_id` instead of the history (`chain_responses`): what
//! a codec remembers of the answers it decoded, and when a request may
//! continue one.
//!
//! The service keeps a stored response with everything that led to it. A
//! request whose history is exactly what led to an answer this codec
//! decoded, then that answer, then more, may name the answer and send only
//! the more. Anything else — a history from another process, another
//! model's answer in that place, an edited or trimmed history — matches no
//! entry and is sent whole: the answer never depends on what is
//! remembered, only the bytes sent do.

use golem_core::message::Message;
use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

/// How many answers are remembered; an older one is forgotten (its
/// conversation is then sent whole once, and remembered again).
const REMEMBERED: usize = 16;

/// The answers one codec decoded, shared by its clones and its streams.
#[derive(Clone, Default)]
pub(crate) struct Chain {
    entries: Arc<Mutex<VecDeque<Entry>>>,
}

struct Entry {
    /// What led to the answer, and the answer last.
    history: Vec<Message>,
    response_id: String,
}

impl Chain {
    /// Remember that `history` was answered with `answer`, kept as
    /// `response_id`.
    pub(crate) fn remember(&self, history: &[Message], answer: Message, response_id: &str) {
        if response_id.is_empty() {
            return;
        }
        let mut kept = history.to_vec();
        kept.push(answer);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() == REMEMBERED {
            entries.pop_front();
        }
        entries.push_back(Entry { history: kept, response_id: response_id.to_string() });
    }

    /// The answer `messages` continue — its id, and where the messages
    /// after it start — when there are messages after it; the longest
    /// such history wins.
    pub(crate) fn continued(&self, messages: &[Message]) -> Option<(String, usize)> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .iter()
            .filter(|e| e.history.len() < messages.len())
            .filter(|e| e.history.iter().zip(messages).all(|(a, b)| same(a, b)))
            .max_by_key(|e| e.history.len())
            .map(|e| (e.response_id.clone(), e.history.len()))
    }
}

/// The same message as far as the service saw it: the run and
/// conversation ids a run stamps on what it keeps do not count.
fn same(a: &Message, b: &Message) -> bool {
    a.role == b.role
        && a.content == b.content
        && a.parts == b.parts
        && a.tool_calls == b.tool_calls
        && a.tool_call_id == b.tool_call_id
        && a.tool_name == b.tool_name
        && a.failed == b.failed
        && a.thinking == b.thinking
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("Chain").field("remembered", &entries.len()).finish()
    }
}

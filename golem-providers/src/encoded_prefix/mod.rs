//! Reusing the encoded bytes of a history's unchanged prefix (issue 20).
//!
//! An agent run sends its whole history with every model call, and between
//! two calls the history usually only grows: encoding it from scratch costs
//! wire structs and serialisation for every earlier message on every turn. A
//! codec keeps here the message bytes it encoded for recent histories; the
//! next request reuses the bytes of the longest prefix, among the histories
//! that begin like it, whose messages are *equal* (`==`, every field) to the
//! request's, and encodes only the rest.
//!
//! Keyed by content, never by position or by who asks: a history that was
//! trimmed or repaired, a different conversation, a request a user built by
//! hand or concurrent runs on one client each get exactly the bytes their own
//! messages encode to — at worst nothing is reused. Comparing costs a memory
//! compare of the shared prefix, far less than encoding it.
//!
//! Short histories skip the cache altogether (the Chat Completions encoder
//! sends fewer than ten messages through the plain encoder): its own work,
//! a lookup and the copy kept for the next turn, costs more than encoding
//! a few messages.
//!
//! Bounded: at most [`cache::CAPACITY`] histories and about
//! [`cache::BUDGET`] bytes per cache, least recently used first out, so a
//! long-lived client shared by many runs does not grow.
//!
//! The encoder decides where a prefix may be cut: after a message whose
//! encoding does not depend on what follows it, it records a mark with the
//! small state `S` it needs to carry on (Chat Completions: how many
//! assistant messages came before, for synthesized call ids). One cache
//! serves one encoder configuration (the codec that owns it).

mod cache;

pub(crate) use cache::PrefixCache;

use crate::classify::encode_error;
use golem_core::message::Message;
use golem_core::model::ModelError;
use serde::Serialize;

/// A point where the encoding of the first `messages` messages is complete
/// in the first `bytes` bytes, and the encoder's state there.
#[derive(Clone, Copy, Debug)]
struct Mark<S> {
    messages: usize,
    bytes: usize,
    state: S,
}

/// The encoded messages of one history, as an encoder extends them: message
/// JSON objects joined by commas, without the array's brackets.
pub(crate) struct Prefix<S> {
    /// The messages the bytes encode; empty when not kept.
    sources: Vec<Message>,
    bytes: Vec<u8>,
    /// Ascending; the first is always the empty prefix.
    marks: Vec<Mark<S>>,
    /// Whether sources and marks are recorded (not for a one-off encode).
    keep: bool,
}

impl<S: Copy + Default> Prefix<S> {
    fn empty(keep: bool, capacity: usize) -> Self {
        Prefix {
            sources: Vec::new(),
            bytes: Vec::with_capacity(capacity),
            // A one-off encode records no marks, so it allocates none: its
            // empty prefix is `last_mark`'s default (issue 37).
            marks: if keep { vec![Mark { messages: 0, bytes: 0, state: S::default() }] } else { Vec::new() },
            keep,
        }
    }

    /// A prefix for one encode that no cache will see: nothing is copied.
    /// `capacity`: about how many bytes the encode will write.
    pub(crate) fn scratch(capacity: usize) -> Self {
        Prefix::empty(false, capacity)
    }

    /// How many messages are already encoded, and the encoder's state after
    /// them.
    pub(crate) fn resume(&self) -> (usize, S) {
        let last = self.last_mark();
        (last.messages, last.state)
    }

    /// The encoded messages so far.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Append one wire message.
    pub(crate) fn write(&mut self, wire: &impl Serialize) -> Result<(), ModelError> {
        if !self.bytes.is_empty() {
            self.bytes.push(b',');
        }
        serde_json::to_writer(&mut self.bytes, wire).map_err(|e| encode_error(&e.to_string()))
    }

    /// The bytes to append one wire message to, written by the caller
    /// (after the comma that separates it from the one before).
    pub(crate) fn next(&mut self) -> &mut Vec<u8> {
        if !self.bytes.is_empty() {
            self.bytes.push(b',');
        }
        &mut self.bytes
    }

    /// Record `message` as encoded; `clean` is the encoder's state when
    /// nothing of it waits to be written (a prefix may end here), `None`
    /// otherwise.
    pub(crate) fn encoded(&mut self, message: &Message, clean: Option<S>) {
        if !self.keep {
            return;
        }
        self.sources.push(message.clone());
        if let Some(state) = clean {
            self.marks.push(Mark { messages: self.sources.len(), bytes: self.bytes.len(), state });
        }
    }

    fn last_mark(&self) -> Mark<S> {
        // A kept prefix starts with the empty prefix's mark and nothing
        // removes it; a scratch one has none, and this is its empty prefix.
        self.marks.last().copied().unwrap_or(Mark { messages: 0, bytes: 0, state: S::default() })
    }

    /// Cut back to the last mark: what follows it belongs to no prefix.
    fn settle(&mut self) {
        let last = self.last_mark();
        self.sources.truncate(last.messages);
        self.bytes.truncate(last.bytes);
    }

    /// A copy of the prefix up to mark `mark`.
    fn head(&self, mark: usize) -> Self {
        let Mark { messages, bytes, .. } = self.marks[mark];
        Prefix {
            sources: self.sources[..messages].to_vec(),
            bytes: self.bytes[..bytes].to_vec(),
            marks: self.marks[..=mark].to_vec(),
            keep: true,
        }
    }

    /// About the memory the prefix holds: its bytes, and the copied
    /// messages counted as their structs plus as much text again as their
    /// JSON (inline media are shared, not copied, and count once).
    fn weight(&self) -> usize {
        let structs = self.sources.len().saturating_mul(std::mem::size_of::<Message>());
        self.bytes.len().saturating_mul(2).saturating_add(structs)
    }
}

#[cfg(test)]
mod tests {
    use super::cache::{BUDGET, CAPACITY};
    use super::*;

    fn encode(cache: &PrefixCache<u32>, messages: &[Message]) -> (usize, Vec<u8>) {
        let mut prefix = cache.checkout(messages);
        let (start, _) = prefix.resume();
        for message in &messages[start..] {
            prefix.write(&message.content).unwrap();
            prefix.encoded(message, Some(0));
        }
        let bytes = prefix.bytes().to_vec();
        cache.checkin(prefix);
        (start, bytes)
    }

    #[test]
    fn an_appended_history_reuses_its_prefix_and_a_changed_one_does_not() {
        let cache = PrefixCache::new();
        let mut history = vec![Message::system("s"), Message::user("a")];
        assert_eq!(encode(&cache, &history), (0, br#""s","a""#.to_vec()));
        history.push(Message::assistant("b"));
        history.push(Message::user("c"));
        assert_eq!(encode(&cache, &history), (2, br#""s","a","b","c""#.to_vec()));
        history[2] = Message::assistant("B");
        assert_eq!(encode(&cache, &history), (2, br#""s","a","B","c""#.to_vec()));
        assert_eq!(cache.size().0, 2, "the shared beginning was copied, the other history kept");
        // Another second message is another bucket: nothing is reused, and
        // nothing wrong either.
        history[1] = Message::user("A");
        assert_eq!(encode(&cache, &history), (0, br#""s","A","B","c""#.to_vec()));
    }

    #[test]
    fn a_one_message_history_is_found_once_it_has_grown() {
        // One message and two choose different buckets.
        let cache = PrefixCache::new();
        let mut history = vec![Message::user("a")];
        encode(&cache, &history);
        history.push(Message::assistant("b"));
        assert_eq!(encode(&cache, &history).0, 1);
        history.push(Message::user("c"));
        assert_eq!(encode(&cache, &history).0, 2);
        assert_eq!(cache.size().0, 1);
    }

    #[test]
    fn histories_sharing_a_bucket_are_told_apart_by_their_messages() {
        let cache = PrefixCache::new();
        let start = [Message::system("s"), Message::user("u")];
        let one = [&start[..], &[Message::assistant("one")]].concat();
        let two = [&start[..], &[Message::assistant("two")]].concat();
        encode(&cache, &one);
        assert_eq!(encode(&cache, &two), (2, br#""s","u","two""#.to_vec()));
        assert_eq!(encode(&cache, &one), (3, br#""s","u","one""#.to_vec()));
        assert_eq!(cache.size().0, 2);
    }

    #[test]
    fn the_cache_stays_within_its_capacity() {
        let cache = PrefixCache::new();
        for n in 0..3 * CAPACITY {
            encode(&cache, &[Message::user(n.to_string())]);
        }
        assert_eq!(cache.size().0, CAPACITY);
    }

    #[test]
    fn a_history_over_the_budget_is_not_kept() {
        let cache = PrefixCache::new();
        encode(&cache, &[Message::user("x".repeat(BUDGET))]);
        assert_eq!(cache.size(), (0, 0));
    }
}

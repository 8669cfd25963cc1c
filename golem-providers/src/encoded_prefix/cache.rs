//! The bounded store of encoded prefixes one codec shares across its runs.
//!
//! A server runs many conversations on one client at once, so the store
//! holds up to [`CAPACITY`] of them — more than a handful, or interleaved
//! runs would push each other out every turn and each request would pay for
//! a copy it never uses. Looking a request up must not cost a comparison
//! with every entry: entries sit in buckets chosen by a cheap key of their
//! first messages (a few bytes of text, the run and conversation ids, not a
//! whole system prompt), and only a bucket's entries are compared, message
//! by message. The key only narrows the search; equality decides.

use super::Prefix;
use golem_core::message::Message;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

/// The most histories one cache keeps.
pub(crate) const CAPACITY: usize = 64;

/// About the most memory one cache holds, in bytes (see `Prefix::weight`).
pub(crate) const BUDGET: usize = 4 << 20;

/// How many leading messages choose a bucket: the system prompt alone is
/// shared by every run of an agent, the message after it rarely is.
const KEY_MESSAGES: usize = 2;

/// How many bytes of a message's text go into its bucket key.
const KEY_TEXT: usize = 64;

/// Recently encoded histories of one codec, shared by its clones.
///
/// Equality and cloning ignore the contents: a cache is not part of a
/// codec's value, and a cloned codec (same configuration) shares it.
pub(crate) struct PrefixCache<S> {
    store: Arc<Mutex<Store<S>>>,
}

struct Store<S> {
    buckets: HashMap<u64, Vec<Entry<S>>>,
    /// Each entry's last use and its bucket, least recently used first.
    ages: BTreeMap<u64, u64>,
    clock: u64,
    weight: usize,
}

struct Entry<S> {
    used: u64,
    weight: usize,
    prefix: Prefix<S>,
}

/// The bucket of a history starting with `messages` (at most
/// [`KEY_MESSAGES`] of them).
fn bucket(messages: &[Message]) -> u64 {
    let mut hasher = DefaultHasher::new();
    for message in messages.iter().take(KEY_MESSAGES) {
        message.role.hash(&mut hasher);
        message.content.len().hash(&mut hasher);
        message.content.as_bytes()[..message.content.len().min(KEY_TEXT)].hash(&mut hasher);
        message.run_id.hash(&mut hasher);
        message.conversation_id.hash(&mut hasher);
    }
    hasher.finish()
}

impl<S: Copy + Default> PrefixCache<S> {
    /// An empty cache.
    pub(crate) fn new() -> Self {
        let store = Store { buckets: HashMap::new(), ages: BTreeMap::new(), clock: 0, weight: 0 };
        PrefixCache { store: Arc::new(Mutex::new(store)) }
    }

    /// The longest cached prefix of `messages` that may be extended, taken
    /// out of the cache when it is a whole entry (the common case: the same
    /// history with messages appended) and copied when it is part of one
    /// (another history that shares a beginning keeps its entry). Empty when
    /// nothing matches.
    pub(crate) fn checkout(&self, messages: &[Message]) -> Prefix<S> {
        let mut store = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        // An entry of one message sits in another bucket than the history
        // it began: look in both.
        let keys = (1..=messages.len().min(KEY_MESSAGES)).rev().map(|n| bucket(&messages[..n]));
        let mut best: Option<(u64, usize, usize)> = None;
        let (mut best_len, mut best_used) = (0, 0);
        for key in keys {
            let Some(entries) = store.buckets.get(&key) else { continue };
            for (i, entry) in entries.iter().enumerate() {
                let sources = &entry.prefix.sources;
                let same = sources.iter().zip(messages).take_while(|(a, b)| a == b).count();
                let marks = &entry.prefix.marks;
                let mark = marks.partition_point(|m| m.messages <= same).saturating_sub(1);
                let len = marks[mark].messages;
                // On a tie the freshest entry wins.
                if len > best_len || (len > 0 && len == best_len && entry.used > best_used) {
                    best = Some((key, i, mark));
                    (best_len, best_used) = (len, entry.used);
                }
            }
        }
        let Some((key, i, mark)) = best else { return Prefix::empty(true, 0) };
        let Some(entries) = store.buckets.get(&key) else { return Prefix::empty(true, 0) };
        if mark + 1 < entries[i].prefix.marks.len() {
            return entries[i].prefix.head(mark);
        }
        store.take(key, i)
    }

    /// Keep `prefix` (cut back to its last mark) as the most recently used
    /// entry, dropping the least recently used beyond the bounds.
    pub(crate) fn checkin(&self, mut prefix: Prefix<S>) {
        if !prefix.keep {
            return;
        }
        prefix.settle();
        let weight = prefix.weight();
        if prefix.sources.is_empty() || weight > BUDGET {
            return;
        }
        let key = bucket(&prefix.sources);
        let mut store = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        store.clock += 1;
        let used = store.clock;
        store.weight += weight;
        store.ages.insert(used, key);
        store.buckets.entry(key).or_default().push(Entry { used, weight, prefix });
        while store.ages.len() > CAPACITY || store.weight > BUDGET {
            let Some((used, key)) = store.ages.first_key_value().map(|(u, k)| (*u, *k)) else { break };
            let position = store.buckets.get(&key).and_then(|entries| entries.iter().position(|e| e.used == used));
            match position {
                Some(i) => drop(store.take(key, i)),
                // Unreachable while ages and buckets agree; never loop on it.
                None => drop(store.ages.remove(&used)),
            }
        }
    }

    /// How many histories and encoded bytes the cache holds.
    pub(crate) fn size(&self) -> (usize, usize) {
        let store = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes = store.buckets.values().flatten().map(|e| e.prefix.bytes.len()).sum();
        (store.ages.len(), bytes)
    }
}

impl<S: Copy + Default> Store<S> {
    /// Remove entry `i` of bucket `key` and return its prefix.
    fn take(&mut self, key: u64, i: usize) -> Prefix<S> {
        let Some(entries) = self.buckets.get_mut(&key) else { return Prefix::empty(true, 0) };
        let entry = entries.swap_remove(i);
        if entries.is_empty() {
            self.buckets.remove(&key);
        }
        self.ages.remove(&entry.used);
        self.weight -= entry.weight;
        entry.prefix
    }
}

impl<S> Clone for PrefixCache<S> {
    fn clone(&self) -> Self {
        PrefixCache { store: Arc::clone(&self.store) }
    }
}

impl<S> PartialEq for PrefixCache<S> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<S: Copy + Default> Default for PrefixCache<S> {
    fn default() -> Self {
        PrefixCache::new()
    }
}

/// Sizes only: the cached messages are conversation content.
impl<S: Copy + Default> fmt::Debug for PrefixCache<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (histories, bytes) = self.size();
        f.debug_struct("PrefixCache").field("histories", &histories).field("bytes", &bytes).finish()
    }
}

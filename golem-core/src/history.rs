//! History repair, validation and trimming (SPEC HIST).
//!
//! Providers require every tool call to be answered by exactly one result
//! before the next assistant turn. Histories from crashed, canceled, paused
//! or hand-edited runs break that; these pure functions restore it.
//!
//! **The pairing rule** (HIST-01), shared by every function here: a tool
//! message answers a call only if that call belongs to the *nearest preceding*
//! assistant message — no other assistant message in between — and carries the
//! same non-empty provider id (MSG-07: provider ids are the key, machine ids
//! play no part). The first such result per id is the answer; any later one is
//! a duplicate. Calls without an id are never paired.
//!
//! ```
//! use golem_core::history::{normalize_history, repair};
//! use golem_core::{texts, Message, ToolCall};
//!
//! // A crashed run: the assistant asked for two calls, only the second answered,
//! // plus a stray result of a call nobody made.
//! let history = vec![
//!     Message::user("weather?"),
//!     Message::assistant_calls(vec![ToolCall::new("a", "paris", "{}"), ToolCall::new("b", "rome", "{}")]),
//!     Message::tool_result("b", "rome", "sunny"),
//!     Message::tool_result("zzz", "ghost", "?"),
//! ];
//! let (repaired, report) = normalize_history(history);
//! assert_eq!(report.synthesized, vec!["a".to_string()]);
//! assert_eq!(report.dropped, vec!["zzz".to_string()]);
//! // The interrupted result sits right after the assistant message, before the real results.
//! assert_eq!(repaired[2], Message::tool_result("a", "paris", texts::INTERRUPTED_RESULT));
//! assert_eq!(repaired[3].content, "sunny");
//! assert_eq!(repaired.len(), 4);
//! // Repair is idempotent.
//! assert_eq!(repair(repaired.clone()), repaired);
//! ```

use crate::id::Id;
use crate::message::{Message, PartError, PartKind, Role};
use crate::texts;
use std::collections::HashSet;

/// Why a history was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// Parts on a message whose role cannot carry them.
    #[error("message {index} ({role}) carries parts; only user and tool messages may")]
    PartsNotAllowed {
        /// Message index.
        index: usize,
        /// Its role.
        role: crate::message::Role,
    },
    /// A malformed part.
    #[error("message {index} part {part} is invalid: {error}")]
    InvalidPart {
        /// Message index.
        index: usize,
        /// Part index.
        part: usize,
        /// What is wrong.
        error: PartError,
    },
    /// Thinking blocks on a non-assistant message.
    #[error("message {index} ({role}) carries thinking; only assistant messages may")]
    ThinkingNotAllowed {
        /// Message index.
        index: usize,
        /// Its role.
        role: crate::message::Role,
    },
    /// A malformed thinking block.
    #[error("message {index} thinking block {block} is invalid: exactly one of text/redacted, no signature on redacted data")]
    InvalidThinking {
        /// Message index.
        index: usize,
        /// Block index.
        block: usize,
    },
    /// `trim_history` with a budget below 1.
    #[error("history trim budget must be at least 1, got {0}")]
    InvalidTrimBudget(usize),
    /// Trimming left nothing that can open a request.
    #[error("history trimming left no message that can open a request")]
    NothingLeft,
}

// ---------------------------------------------------------------------------
// Validation (HIST-05)
// ---------------------------------------------------------------------------

/// Check a history before it is repaired and sent (SPEC HIST-05): parts only
/// on user and tool messages, thinking only on assistant messages, every part
/// and thinking block well formed.
///
/// Returns the first problem in message order. Pairing problems are not
/// errors here: [`repair`] fixes those silently.
pub fn validate(messages: &[Message]) -> Result<(), HistoryError> {
    for (index, message) in messages.iter().enumerate() {
        let role = message.role;
        if !message.parts.is_empty() && !matches!(role, Role::User | Role::Tool) {
            return Err(HistoryError::PartsNotAllowed { index, role });
        }
        for (part, p) in message.parts.iter().enumerate() {
            p.validate().map_err(|error| HistoryError::InvalidPart { index, part, error })?;
        }
        if !message.thinking.is_empty() && role != Role::Assistant {
            return Err(HistoryError::ThinkingNotAllowed { index, role });
        }
        if let Some(block) = message.thinking.iter().position(|b| !b.is_valid()) {
            return Err(HistoryError::InvalidThinking { index, block });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Pairing (HIST-01) — the one place the rule is implemented
// ---------------------------------------------------------------------------

/// The outcome of applying the pairing rule to a history, without changing it.
struct Pairing {
    /// Per message: false for a tool message that answers nothing (orphan,
    /// duplicate, empty id, before any assistant); true otherwise.
    keep: Vec<bool>,
    /// Per assistant message (by index), the call ids its turn answered.
    answered: Vec<(usize, HashSet<String>)>,
}

impl Pairing {
    fn of(messages: &[Message]) -> Pairing {
        let mut keep = vec![true; messages.len()];
        let mut answered: Vec<(usize, HashSet<String>)> = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            match message.role {
                Role::Assistant => answered.push((i, HashSet::new())),
                Role::Tool => {
                    let id = &message.tool_call_id;
                    // `answered.last_mut()` is the nearest preceding assistant
                    // message: a result never looks past it (providers reject
                    // results that skip an assistant turn).
                    keep[i] = match answered.last_mut() {
                        Some((a, ids)) if !id.is_empty() => {
                            let called = messages.get(*a).is_some_and(|m| m.tool_calls.iter().any(|c| &c.id == id));
                            called && ids.insert(id.clone())
                        }
                        _ => false,
                    };
                }
                Role::System | Role::User => {}
            }
        }
        Pairing { keep, answered }
    }

    /// Every call slot with an id and no answer, in history order.
    fn unanswered<'m>(&'m self, messages: &'m [Message]) -> impl Iterator<Item = PendingRef> + 'm {
        self.answered.iter().flat_map(move |(a, ids)| {
            let calls = messages.get(*a).map(|m| m.tool_calls.as_slice()).unwrap_or_default();
            calls
                .iter()
                .enumerate()
                .filter(move |(_, c)| !c.id.is_empty() && !ids.contains(&c.id))
                .map(move |(call, _)| PendingRef { message: *a, call })
        })
    }
}

// ---------------------------------------------------------------------------
// Repair (HIST-01, HIST-06)
// ---------------------------------------------------------------------------

/// What [`normalize_history`] changed or noticed (SPEC HIST-06).
///
/// Ids are reported as they appear in the history, so a dropped result with
/// an empty `tool_call_id` (or a truncated call without an id) shows as `""`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// Call ids that received the interrupted result, in output order.
    pub synthesized: Vec<String>,
    /// `tool_call_id`s of dropped results (orphans and duplicates), in input order.
    pub dropped: Vec<String>,
    /// Ids of calls whose arguments are not blank and not a JSON object — what
    /// codecs send as `{"truncated_args": …}`. Reported only: the bytes are kept.
    pub truncated: Vec<String>,
}

impl RepairReport {
    /// True when repair changed nothing (truncated calls are not changes).
    pub fn is_clean(&self) -> bool {
        self.synthesized.is_empty() && self.dropped.is_empty()
    }
}

/// Repair call/result pairing and say what changed (SPEC HIST-01, HIST-06).
///
/// Under the pairing rule (module docs): results that answer nothing are
/// dropped; each call with an id and no answer gets
/// [`texts::INTERRUPTED_RESULT`] right after its assistant message, in call
/// order and before that turn's real results. A call id repeated inside one
/// assistant message is one key: it is answered (or synthesized) once, at its
/// first occurrence. Other messages stay where they are, untouched.
///
/// A synthesized result carries the run and conversation ids of the
/// assistant turn that left the call open (SPEC EXTRA-01); a run repairing
/// its own history stamps its ids on them instead, as on every message it
/// adds.
///
/// Deterministic and idempotent; when nothing is wrong the input vector is
/// returned as it came.
pub fn normalize_history(messages: Vec<Message>) -> (Vec<Message>, RepairReport) {
    normalize(messages, None)
}

/// [`normalize_history`] with the ids of the closers it synthesizes chosen:
/// `run` gives `(run_id, conversation_id)` to stamp on them, `None` copies
/// the ids of the assistant turn that left the call open.
fn normalize(messages: Vec<Message>, run: Option<(&Id, &Id)>) -> (Vec<Message>, RepairReport) {
    let pairing = Pairing::of(&messages);
    let truncated = messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| &m.tool_calls)
        .filter(|c| !c.args.as_str().trim().is_empty() && !c.args.is_object())
        .map(|c| c.id.clone())
        .collect();

    // Per assistant index: the synthesized results to place after it.
    let mut synthesized = Vec::new();
    let mut synth: Vec<(usize, Vec<Message>)> = Vec::new();
    for (a, ids) in &pairing.answered {
        let Some(assistant) = messages.get(*a) else { continue };
        let mut seen: HashSet<&str> = HashSet::new();
        let mut block = Vec::new();
        for call in &assistant.tool_calls {
            if call.id.is_empty() || ids.contains(&call.id) || !seen.insert(&call.id) {
                continue;
            }
            let mut result = Message::tool_result(call.id.clone(), call.name.clone(), texts::INTERRUPTED_RESULT);
            // EXTRA-01: inside a run the closer is a message that run adds,
            // so it carries the run's ids; standalone, it belongs to the run
            // and conversation that left the call open.
            let (run_id, conversation_id) = run.unwrap_or((&assistant.run_id, &assistant.conversation_id));
            result.run_id = run_id.clone();
            result.conversation_id = conversation_id.clone();
            synthesized.push(call.id.clone());
            block.push(result);
        }
        if !block.is_empty() {
            synth.push((*a, block));
        }
    }

    let dropped =
        messages.iter().zip(&pairing.keep).filter(|(_, keep)| !**keep).map(|(m, _)| m.tool_call_id.clone()).collect();
    let report = RepairReport { synthesized, dropped, truncated };

    if report.is_clean() {
        return (messages, report);
    }

    let mut out = Vec::with_capacity(messages.len() + report.synthesized.len());
    let mut synth = synth.into_iter().peekable();
    for (i, (message, keep)) in messages.into_iter().zip(pairing.keep).enumerate() {
        if keep {
            out.push(message);
        }
        if let Some((_, block)) = synth.next_if(|(a, _)| *a == i) {
            out.extend(block);
        }
    }
    (out, report)
}

/// Repair call/result pairing (SPEC HIST-01): [`normalize_history`] without
/// the report. Runs on every run's history.
pub fn repair(messages: Vec<Message>) -> Vec<Message> {
    normalize_history(messages).0
}

/// [`repair`] as a run applies it to its history (SPEC EXTRA-01): the
/// interrupted results it synthesizes are messages the run adds, so they
/// carry `run_id` and `conversation_id`. A run without an id (a log from
/// before ids) repairs exactly as [`repair`] does.
pub(crate) fn repair_in_run(messages: Vec<Message>, run_id: &Id, conversation_id: &Id) -> Vec<Message> {
    let run = (!run_id.is_empty()).then_some((run_id, conversation_id));
    normalize(messages, run).0
}

/// The conversation id of the newest message in `messages` that has one
/// (SPEC EXTRA-01): the conversation a run on this history continues.
///
/// ```
/// use golem_core::history::latest_conversation_id;
/// use golem_core::Message;
///
/// let mut old = Message::user("hi");
/// old.conversation_id = "c-1".into();
/// let history = vec![old, Message::assistant("hello")];
/// assert_eq!(latest_conversation_id(&history), Some("c-1"));
/// assert_eq!(latest_conversation_id(&[]), None);
/// ```
pub fn latest_conversation_id(messages: &[Message]) -> Option<&str> {
    latest_conversation(messages).map(Id::as_str)
}

/// [`latest_conversation_id`] as the message holds it: a run that continues
/// the conversation shares the id instead of copying it.
///
/// ```
/// use golem_core::history::latest_conversation;
/// use golem_core::Message;
///
/// let mut old = Message::user("hi");
/// old.conversation_id = "c-1".into();
/// assert_eq!(latest_conversation(&[old]).map(|id| id.as_str()), Some("c-1"));
/// ```
pub fn latest_conversation(messages: &[Message]) -> Option<&Id> {
    messages.iter().rev().map(|m| &m.conversation_id).find(|id| !id.is_empty())
}

// ---------------------------------------------------------------------------
// Pending calls and result placement (DEFER-02, DEFER-05)
// ---------------------------------------------------------------------------

/// Where a tool call sits in a history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PendingRef {
    /// Index of the assistant message holding the call.
    pub message: usize,
    /// Index of the call in that message's `tool_calls`.
    pub call: usize,
}

/// The calls a deferred resume must resolve (SPEC DEFER-02): every call with
/// a non-empty id that has no result under the pairing rule, in history order.
///
/// A call id repeated inside one assistant message yields one entry per
/// occurrence, so the caller can refuse duplicate pending ids (MSG-07) rather
/// than have them silently merged. Calls without an id are not listed; the
/// resume checks for those separately.
pub fn pending_calls(messages: &[Message]) -> Vec<PendingRef> {
    Pairing::of(messages).unanswered(messages).collect()
}

/// Put tool results (each with `tool_call_id` set) next to their calls
/// (SPEC DEFER-05), before repair runs.
///
/// Each result goes into the block of contiguous tool messages right after
/// the latest assistant message that has a call with its id, ordered by the
/// calls' emission order: before the first existing result whose call was
/// emitted later, else at the end of the block. Existing messages never move
/// relative to each other. So resolutions of the last turn interleave with
/// its results, and resolutions of an older turn land right after that turn's
/// own results — where the pairing rule can still see them. A result whose
/// call is found nowhere is appended at the end, where repair drops it.
pub fn place_results(messages: &mut Vec<Message>, results: Vec<Message>) {
    for result in results {
        let id = result.tool_call_id.as_str();
        let found = if id.is_empty() {
            None
        } else {
            messages.iter().enumerate().rev().find_map(|(a, m)| {
                let slot = m.tool_calls.iter().position(|c| c.id == id);
                (m.role == Role::Assistant).then_some(slot).flatten().map(|slot| (a, slot))
            })
        };
        let Some((a, slot)) = found else {
            messages.push(result);
            continue;
        };
        let calls = &messages[a].tool_calls;
        let emitted_at = |m: &Message| calls.iter().position(|c| c.id == m.tool_call_id);
        let mut at = a + 1;
        while let Some(m) = messages.get(at).filter(|m| m.role == Role::Tool) {
            // Results answering no call of this turn have no emission order;
            // they are stepped over rather than used as anchors.
            if emitted_at(m).is_some_and(|s| s > slot) {
                break;
            }
            at += 1;
        }
        messages.insert(at, result);
    }
}

// ---------------------------------------------------------------------------
// Trimming (HIST-04)
// ---------------------------------------------------------------------------

/// Keep the newest `max_messages` messages (SPEC HIST-04), cut where a
/// request can start. The result never holds more than `max_messages`
/// messages and always opens with a user message (system messages aside:
/// the run replaces them).
///
/// A budget of 0 is an error. A history within budget that opens with a
/// user message is returned unchanged. Otherwise a window of the newest
/// messages is kept, the largest that fits these rules:
///
/// - leading tool messages (their call was cut) and system messages are
///   skipped, so the window opens with a user or an assistant message;
/// - a window opening with a user message is kept as it is;
/// - a window opening with an assistant message gets the newest user
///   message before it in front — so a long single-prompt tool loop keeps
///   its prompt — and that prompt counts toward the budget: the window is
///   one message shorter than it could be without it.
///
/// Tool messages before the window's first assistant message are dropped
/// (their call was cut, even with a user message in between), so a repaired
/// input yields a repaired output. With no user message to open the result,
/// [`HistoryError::NothingLeft`].
pub fn trim_history(messages: &[Message], max_messages: usize) -> Result<Vec<Message>, HistoryError> {
    if max_messages < 1 {
        return Err(HistoryError::InvalidTrimBudget(max_messages));
    }
    let opens_with_user = messages.iter().find(|m| m.role != Role::System).is_none_or(|m| m.role == Role::User);
    if messages.len() <= max_messages && opens_with_user {
        return Ok(messages.to_vec());
    }
    let opener =
        |from: usize| (from..messages.len()).find(|&i| matches!(messages[i].role, Role::User | Role::Assistant));
    // The largest window of the newest `size` messages that can open a
    // request, with the prompt in front when it opens with an assistant.
    for size in (1..=max_messages.min(messages.len())).rev() {
        let cut = messages.len() - size;
        let Some(start) = opener(cut) else { continue };
        if messages[start].role == Role::User {
            return Ok(kept(messages, None, start));
        }
        if size < max_messages {
            if let Some(prompt) = messages[..cut].iter().rposition(|m| m.role == Role::User) {
                return Ok(kept(messages, Some(prompt), start));
            }
        }
    }
    Err(HistoryError::NothingLeft)
}

/// `messages[start..]` after `prompt` (when given), without the tool
/// messages before its first assistant message: their calls were cut.
fn kept(messages: &[Message], prompt: Option<usize>, start: usize) -> Vec<Message> {
    let first_assistant =
        (start..messages.len()).find(|&i| messages[i].role == Role::Assistant).unwrap_or(messages.len());
    let mut out = Vec::with_capacity(messages.len() - start + 1);
    out.extend(prompt.map(|p| messages[p].clone()));
    out.extend(
        messages[start..]
            .iter()
            .enumerate()
            .filter(|(k, m)| !(m.role == Role::Tool && start + k < first_assistant))
            .map(|(_, m)| m.clone()),
    );
    out
}

// ---------------------------------------------------------------------------
// System messages and sanitizing (HIST-02, HIST-07)
// ---------------------------------------------------------------------------

/// Remove every system message (SPEC HIST-02): a history's system messages
/// are always replaced by the current run's instructions, or by nothing.
pub fn drop_system(messages: Vec<Message>) -> Vec<Message> {
    messages.into_iter().filter(|m| m.role != Role::System).collect()
}

/// A URL part removed by [`sanitize_history`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedPart {
    /// Index of its message in the input history.
    pub message: usize,
    /// What the part held.
    pub kind: PartKind,
    /// The URL's scheme, lowercased; empty when the URL has none.
    pub scheme: String,
}

/// What [`sanitize_history`] removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SanitizeReport {
    /// Input indices of the dropped system messages.
    pub dropped_system: Vec<usize>,
    /// URL parts whose scheme is not http or https.
    pub dropped_parts: Vec<DroppedPart>,
    /// Input indices of user messages dropped because they were empty (blank
    /// content, no parts) once their parts were filtered.
    pub dropped_user: Vec<usize>,
    /// What the final repair changed.
    pub repair: RepairReport,
}

/// Clean a history from an untrusted source (SPEC HIST-07; never automatic):
/// drop system messages, drop URL parts whose scheme is not http/https (a
/// `file:` or `data:` URL would make a provider — or a proxy — fetch what the
/// caller never meant to send), drop user messages left empty, then repair.
/// Tool messages are never dropped for emptiness: that would unanswer a call.
///
/// Pure and idempotent.
pub fn sanitize_history(messages: Vec<Message>) -> (Vec<Message>, SanitizeReport) {
    let mut report = SanitizeReport::default();
    let mut kept = Vec::with_capacity(messages.len());
    for (index, mut message) in messages.into_iter().enumerate() {
        if message.role == Role::System {
            report.dropped_system.push(index);
            continue;
        }
        message.parts.retain(|part| {
            if part.url.is_empty() {
                return true;
            }
            let scheme = url_scheme(&part.url);
            let allowed = scheme == "http" || scheme == "https";
            if !allowed {
                report.dropped_parts.push(DroppedPart { message: index, kind: part.kind, scheme });
            }
            allowed
        });
        if message.role == Role::User && message.parts.is_empty() && message.content.trim().is_empty() {
            report.dropped_user.push(index);
            continue;
        }
        kept.push(message);
    }
    let (repaired, repair_report) = normalize_history(kept);
    report.repair = repair_report;
    (repaired, report)
}

/// The scheme of a URL per RFC 3986 (`ALPHA *( ALPHA / DIGIT / "+" / "-" /
/// "." ) ":"`), lowercased; empty when there is none.
fn url_scheme(url: &str) -> String {
    let Some((scheme, _)) = url.split_once(':') else { return String::new() };
    let mut chars = scheme.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if well_formed {
        scheme.to_ascii_lowercase()
    } else {
        String::new()
    }
}

//! A streamed model call's fragments, as its journaled step keeps them
//! (SPEC DUR-04).
//!
//! The fragments reach the run's observers live, while the call runs; the
//! journal keeps only the call's end. A replay must still feed the machine
//! the same fragments at the same moments — every event's `seq`, the
//! evidence of a broken turn and golem's log depend on them — so the step
//! records when each came, and as little else as it can: fragments that
//! spell the answer's text exactly are kept as their lengths (the text is
//! the journaled answer's), anything else whole.

use golem_core::Delta;
use serde::{Deserialize, Serialize};

/// A fragment and when it came, in nanoseconds since its step began.
pub(crate) type Timed = (u64, Delta);

/// The fragments of one call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Fragments {
    /// The call did not stream, or sent nothing.
    #[default]
    None,
    /// Text fragments that spell the answer's text: when each came, and
    /// its length in bytes.
    Text(Vec<(u64, u32)>),
    /// Any other stream, fragment by fragment.
    Whole(Vec<Timed>),
}

impl Fragments {
    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, Fragments::None)
    }

    /// How to journal the fragments `sent` of a call whose answer's text
    /// is `answer` (`None`: the call failed or ran out of time).
    pub(crate) fn keep(sent: Vec<Timed>, answer: Option<&str>) -> Self {
        if sent.is_empty() {
            return Fragments::None;
        }
        match text_lengths(&sent, answer) {
            Some(lengths) => Fragments::Text(lengths),
            None => Fragments::Whole(sent),
        }
    }

    /// The fragments again, from the journal alone: `answer` is the
    /// journaled answer's text. `None` when they do not fit it — a journal
    /// written by something other than this driver.
    pub(crate) fn restore(&self, answer: Option<&str>) -> Option<Vec<Timed>> {
        match self {
            Fragments::None => Some(Vec::new()),
            Fragments::Whole(sent) => Some(sent.clone()),
            Fragments::Text(lengths) => {
                let mut text = answer?;
                let mut restored = Vec::with_capacity(lengths.len());
                for &(at, length) in lengths {
                    let length = usize::try_from(length).ok()?;
                    let piece = text.get(..length)?;
                    text = &text[length..];
                    restored.push((at, Delta::text(piece)));
                }
                text.is_empty().then_some(restored)
            }
        }
    }
}

/// The fragments' lengths, when they are all text and spell `text`.
fn text_lengths(sent: &[Timed], text: Option<&str>) -> Option<Vec<(u64, u32)>> {
    let mut rest = text?;
    let mut lengths = Vec::with_capacity(sent.len());
    for (at, delta) in sent {
        let Delta::Text { text: piece } = delta else { return None };
        rest = rest.strip_prefix(piece.as_str())?;
        lengths.push((*at, u32::try_from(piece.len()).ok()?));
    }
    rest.is_empty().then_some(lengths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(pieces: &[&str]) -> Vec<Timed> {
        pieces.iter().enumerate().map(|(i, p)| (i as u64 * 10, Delta::text(*p))).collect()
    }

    #[test]
    fn text_that_spells_the_answer_is_kept_as_lengths_and_restored_exactly() {
        let sent = texts(&["Grüß", " dich", ", ", "Welt"]);
        let answer = Some("Grüß dich, Welt");
        let kept = Fragments::keep(sent.clone(), answer);
        assert_eq!(kept, Fragments::Text(vec![(0, 6), (10, 5), (20, 2), (30, 4)]));
        assert_eq!(kept.restore(answer), Some(sent));
    }

    #[test]
    fn anything_else_is_kept_whole() {
        let answer = Some("hello");
        // Fragments that do not spell the answer (a provider's final text
        // may differ from its stream).
        let differs = texts(&["hel", "p"]);
        assert_eq!(Fragments::keep(differs.clone(), answer), Fragments::Whole(differs.clone()));
        // A tool call's fragments.
        let call = vec![(
            5,
            Delta::ToolCall {
                index: 0,
                id: "c1".into(),
                name: "f".into(),
                args: "{}".into(),
                signature: String::new(),
            },
        )];
        assert_eq!(Fragments::keep(call.clone(), answer), Fragments::Whole(call));
        // A call that failed or ran out of time has no answer to spell.
        let sent = texts(&["hel"]);
        assert_eq!(Fragments::keep(sent.clone(), None), Fragments::Whole(sent.clone()));
        assert_eq!(Fragments::keep(sent.clone(), None).restore(None), Some(sent));
        assert_eq!(Fragments::keep(Vec::new(), answer), Fragments::None);
    }

    #[test]
    fn lengths_that_do_not_fit_the_answer_do_not_restore() {
        for lengths in [vec![(0, 3)], vec![(0, 9)], vec![(0, 3), (1, 3)]] {
            assert_eq!(Fragments::Text(lengths.clone()).restore(Some("hello")), None, "{lengths:?}");
        }
        // Not on a character boundary.
        assert_eq!(Fragments::Text(vec![(0, 1), (1, 1)]).restore(Some("ü")), None);
        assert_eq!(Fragments::Text(vec![(0, 1)]).restore(None), None);
    }
}

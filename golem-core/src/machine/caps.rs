//! Agent-level caps on tool data (SPEC CAP-01): a result over its cap is
//! cut, with a note the model reads, before it enters the history, the
//! events or a later request.

use super::vocabulary::ToolOutcome;
use crate::texts;

/// `outcome` with its text cut to `cap` bytes, the note included, when it
/// is longer (SPEC CAP-01). Cutting is idempotent: a capped result is under
/// the cap, so a driver may cap before feeding — keeping the whole text out
/// of its log — and the machine caps again after.
///
/// ```
/// use golem_core::machine::{cap_tool_result, ToolOutcome};
///
/// let cut = cap_tool_result(ToolOutcome::output("x".repeat(10_000)), Some(200));
/// let ToolOutcome::Output { content, .. } = &cut else { unreachable!() };
/// assert!(content.len() <= 200 && content.ends_with("of 10000 bytes]"));
/// assert_eq!(cap_tool_result(cut.clone(), Some(200)), cut);
/// ```
pub fn cap_tool_result(outcome: ToolOutcome, cap: Option<u64>) -> ToolOutcome {
    let (ToolOutcome::Output { content, parts }, Some(cap)) = (&outcome, cap) else { return outcome };
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    if content.len() <= cap {
        return outcome;
    }
    let total = content.len();
    // The note's length depends on the numbers in it; measure it with the
    // widest `kept` it can state.
    let room = cap.saturating_sub(texts::result_truncated(total, total).len());
    let mut kept = room.min(total);
    while !content.is_char_boundary(kept) {
        kept -= 1;
    }
    let mut text = String::with_capacity(cap);
    text.push_str(&content[..kept]);
    text.push_str(&texts::result_truncated(kept, total));
    ToolOutcome::Output { content: text, parts: parts.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(outcome: &ToolOutcome) -> &str {
        match outcome {
            ToolOutcome::Output { content, .. } => content,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cap_01_a_result_over_its_cap_is_cut_with_a_note_within_the_cap() {
        let long = "é".repeat(600); // 1200 bytes, two per character
        let cut = cap_tool_result(ToolOutcome::output(long.clone()), Some(201));
        let text = content(&cut);
        assert!(text.len() <= 201, "{}", text.len());
        assert!(text.ends_with("of 1200 bytes]"), "{text}");
        assert!(long.starts_with(text.split('\n').next().unwrap()));
        // Idempotent, and a result within its cap is left alone.
        assert_eq!(cap_tool_result(cut.clone(), Some(201)), cut);
        assert_eq!(cap_tool_result(ToolOutcome::output("short"), Some(201)), ToolOutcome::output("short"));
        assert_eq!(cap_tool_result(ToolOutcome::output(long.clone()), None), ToolOutcome::output(long));
    }
}

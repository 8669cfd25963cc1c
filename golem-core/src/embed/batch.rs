//! Splitting a request to a provider's limits: at most so many inputs, and
//! at most so many characters, per call.

use super::EmbedRequest;
use std::ops::Range;

/// The consecutive ranges of a request's inputs that each fit one call:
/// at most `max_inputs` inputs and, where a provider bounds the body, at
/// most `max_chars` characters together (an input longer than that alone
/// still goes alone: the provider judges it).
///
/// ```
/// use golem_core::embed::{Batches, EmbedRequest};
///
/// let request = EmbedRequest::documents(["a", "b", "c", "d", "e"]);
/// let ranges: Vec<_> = Batches::new(&request, 2).collect();
/// assert_eq!(ranges, [0..2, 2..4, 4..5]);
/// ```
#[derive(Clone, Debug)]
pub struct Batches<'a> {
    inputs: &'a [String],
    max_inputs: usize,
    max_chars: usize,
    next: usize,
}

impl<'a> Batches<'a> {
    /// Batches of at most `max_inputs` (at least 1).
    pub fn new(request: &'a EmbedRequest, max_inputs: usize) -> Self {
        Batches { inputs: &request.inputs, max_inputs: max_inputs.max(1), max_chars: usize::MAX, next: 0 }
    }

    /// Builder-style: at most `max_chars` characters per batch as well.
    pub fn with_max_chars(mut self, max_chars: usize) -> Self {
        self.max_chars = max_chars.max(1);
        self
    }
}

impl Iterator for Batches<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let start = self.next;
        if start >= self.inputs.len() {
            return None;
        }
        let (mut end, mut chars) = (start, 0usize);
        while end < self.inputs.len() && end - start < self.max_inputs {
            let len = self.inputs[end].chars().count();
            if end > start && chars.saturating_add(len) > self.max_chars {
                break;
            }
            chars = chars.saturating_add(len);
            end += 1;
        }
        self.next = end;
        Some(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_input_once_in_order() {
        for n in 0..20 {
            let inputs: Vec<String> = (0..n).map(|i| "x".repeat(i % 5 + 1)).collect();
            let request = EmbedRequest::documents(inputs);
            for max in 1..6 {
                for chars in [3, 7, usize::MAX] {
                    let ranges: Vec<_> = Batches::new(&request, max).with_max_chars(chars).collect();
                    let covered: Vec<usize> = ranges.iter().flat_map(Clone::clone).collect();
                    assert_eq!(covered, (0..n).collect::<Vec<_>>());
                    assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= max));
                }
            }
        }
    }

    #[test]
    fn a_text_longer_than_the_char_bound_goes_alone() {
        let request = EmbedRequest::documents(["aaaaaaaaaa", "b", "c"]);
        let ranges: Vec<_> = Batches::new(&request, 10).with_max_chars(4).collect();
        assert_eq!(ranges, [0..1, 1..3]);
    }
}

//! Untrusted text cut down to size before a model reads it or an error
//! message quotes it (issue 15): a URL, a path or a tool result can be
//! as long as whoever wrote it liked.

use std::borrow::Cow;

/// How many bytes of an argument (a URL, a path, a program name) an error
/// text quotes.
pub(crate) const QUOTED_BYTES: usize = 200;

/// The longest prefix of `text` with at most `max` bytes that ends on a
/// character boundary.
pub(crate) fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut at = max;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    &text[..at]
}

/// `text` as an error message quotes it: whole when short, else its first
/// [`QUOTED_BYTES`] bytes, an ellipsis and its full length.
pub(crate) fn quoted(text: &str) -> Cow<'_, str> {
    if text.len() <= QUOTED_BYTES {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{}… ({} bytes)", prefix(text, QUOTED_BYTES), text.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_character_boundaries() {
        assert_eq!(prefix("añb", 2), "a");
        assert_eq!(prefix("añb", 3), "añ");
        assert_eq!(prefix("ab", 10), "ab");
        assert_eq!(quoted("short"), "short");
        let long = "é".repeat(150);
        assert_eq!(quoted(&long), format!("{}… (300 bytes)", "é".repeat(100)));
    }
}

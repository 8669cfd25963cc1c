//! What a response body is and how it becomes text (SPEC WEB-05, WEB-06):
//! the accepted content types, the charset, the cut at the byte cap.

/// How an accepted body is turned into text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// HTML or XHTML: reduced to its visible text.
    Html,
    /// Any other text-like type: passed through.
    Text,
}

/// The media type (lowercased, without parameters) and charset of a
/// `Content-Type` header value.
pub(crate) fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let charset = parts.find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim().eq_ignore_ascii_case("charset").then(|| value.trim().trim_matches('"').to_ascii_lowercase())
    });
    (media, charset)
}

/// How a body of media type `media` is read, or `None` when it is not read.
pub(crate) fn kind_of(media: &str) -> Option<Kind> {
    match media {
        "text/html" | "application/xhtml+xml" => Some(Kind::Html),
        _ if media.starts_with("text/") => Some(Kind::Text),
        "application/json" | "application/xml" | "application/yaml" | "application/x-yaml" => Some(Kind::Text),
        _ if media.ends_with("+json") || media.ends_with("+xml") => Some(Kind::Text),
        _ => None,
    }
}

/// True for a body without a content type that may be read as text:
/// UTF-8 (a sequence cut by the cap allowed) without NUL.
pub(crate) fn looks_like_text(body: &[u8], truncated: bool) -> bool {
    !body.contains(&0) && utf8_prefix_len(body, truncated).is_some()
}

/// True for a body that is binary whatever its label says (issue 15): it
/// holds a NUL byte, or more than one byte in 16 is a control character
/// text does not use (C0 bar tab, line feed, vertical tab, form feed,
/// carriage return and escape). Images, archives and compressed data fail
/// both; text in any ASCII-compatible charset passes.
pub(crate) fn looks_binary(body: &[u8]) -> bool {
    let controls =
        body.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1b)).count();
    body.contains(&0) || controls > body.len() / 16
}

/// The length of `body` without an incomplete UTF-8 sequence at its end
/// (only when `truncated`), or `None` when it is not UTF-8.
fn utf8_prefix_len(body: &[u8], truncated: bool) -> Option<usize> {
    match std::str::from_utf8(body) {
        Ok(_) => Some(body.len()),
        Err(e) if truncated && e.error_len().is_none() => Some(e.valid_up_to()),
        Err(_) => None,
    }
}

/// The body as text in its charset (UTF-8 unless told ISO-8859-1 or
/// Windows-1252; anything else is read as lossy UTF-8). A body cut by the
/// cap loses the incomplete UTF-8 sequence at its end.
pub(crate) fn decode(body: &[u8], charset: Option<&str>, truncated: bool) -> String {
    match charset {
        Some(
            "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" | "l1" | "windows-1252" | "cp1252" | "x-cp1252"
            | "us-ascii" | "ascii" | "iso-ir-100" | "cp819" | "ibm819" | "csisolatin1",
        ) => body.iter().map(|&b| windows_1252(b)).collect(),
        _ => {
            let body = &body[..utf8_prefix_len(body, truncated).unwrap_or(body.len())];
            String::from_utf8_lossy(body).into_owned()
        }
    }
}

/// One byte of Windows-1252 (which the web also uses for ISO-8859-1).
fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}', '\u{2C6}',
        '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}', '\u{90}', '\u{2018}', '\u{2019}',
        '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}', '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}',
        '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        assert_eq!(
            parse_content_type("Text/HTML; Charset=\"ISO-8859-1\""),
            ("text/html".into(), Some("iso-8859-1".into()))
        );
        assert_eq!(kind_of("application/ld+json"), Some(Kind::Text));
        assert_eq!(kind_of("application/xhtml+xml"), Some(Kind::Html));
        assert_eq!(kind_of("image/png"), None);
        assert_eq!(kind_of("application/octet-stream"), None);
    }

    #[test]
    fn charsets_and_cuts() {
        assert_eq!(decode(b"caf\xe9 \x80", Some("iso-8859-1"), false), "café €");
        assert_eq!(decode("añb".as_bytes(), None, false), "añb");
        assert_eq!(decode(&"ñ".as_bytes()[..1], None, true), "");
        assert_eq!(decode(b"a\xffb", Some("koi8-r"), false), "a\u{fffd}b");
        assert!(looks_like_text("añ".as_bytes(), false));
        assert!(looks_like_text(&"añ".as_bytes()[..2], true));
        assert!(!looks_like_text(&"añ".as_bytes()[..2], false));
        assert!(!looks_like_text(b"a\0b", false));
    }

    #[test]
    fn binary_whatever_the_label() {
        assert!(!looks_binary(b"plain text\twith tabs\r\n\x1b[1mbold\x1b[0m\x0c"));
        assert!(!looks_binary("café, naïve, 日本".as_bytes()));
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
        assert!(looks_binary(b"text with one \0 NUL"));
        assert!(looks_binary(&[0x1f, 0x8b, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, b'a', b'b']));
        assert!(!looks_binary(b""));
    }
}

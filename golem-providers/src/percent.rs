//! Percent-encoding of URL path segments and query values (RFC 3986).

/// `text` with every byte outside the unreserved set (`A–Z a–z 0–9 - . _
/// ~`) written as `%XX` — safe as one path segment or one query value.
///
/// ```
/// use golem_providers::percent::encode;
/// assert_eq!(encode("gpt-4o"), "gpt-4o");
/// assert_eq!(encode("my deploy/1?x"), "my%20deploy%2F1%3Fx");
/// ```
pub fn encode(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
    }
    out
}

//! Percent-encoding of URL path segments and query values, and decoding
//! of URL user info (RFC 3986).

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

/// `text` with every `%XX` escape decoded; `None` when an escape is cut
/// short, not hexadecimal, or the result is not UTF-8. `+` stays a plus.
///
/// ```
/// use golem_providers::percent::decode;
/// assert_eq!(decode("p%40ss%3Aword+1").as_deref(), Some("p@ss:word+1"));
/// assert_eq!(decode("bad%2"), None);
/// assert_eq!(decode("%+1"), None);
/// ```
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // `from_str_radix` alone would take a sign ("%+1").
            let hex = text.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

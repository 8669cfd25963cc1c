//! A strict pull reader of JSON, for the typed views of Chat Completions
//! bodies and chunks (issue 37).
//!
//! The views used to be serde derives. Derived visitors are generic code:
//! one copy per struct, per field type and per `serde_json` reader, about
//! 400 lines of machine code that every plain answer walked, the largest
//! piece of a run's code footprint — which, over the loopback, is what a
//! run's time goes on (BENCHMARKS.md, issue 37). The views read a dozen
//! fields of a handful of shapes, so this reader does exactly that in one
//! copy of each step.
//!
//! It needs to be right only when it accepts. Every doubt — an escaped
//! key, a number that is not a plain unsigned integer, a lone surrogate, a
//! nesting deeper than `serde_json` allows, anything not JSON — is
//! [`Refused`], and the view's caller then decodes through `serde_json`'s
//! `Value`, which defines what a body means (`fuzzing::chat_response` and
//! `fuzzing::chat_stream` check the two agree on every input the view
//! accepts). Values the views do not read are checked against JSON's
//! grammar and skipped, as `serde_json` ignores a field: the numbers'
//! range and the strings' UTF-8 are not checked there.

/// The input does not fit what the view reads.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Refused;

/// A step of a read.
pub(super) type Read<T> = Result<T, Refused>;

/// `serde_json`'s default nesting limit: input with this many containers
/// open at once fails there, so it is refused here.
const MAX_DEPTH: usize = 128;

/// The reader: the input and the position of the next byte to read.
pub(super) struct Reader<'a> {
    input: &'a [u8],
    at: usize,
    /// Containers entered and not yet left.
    depth: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `input`.
    pub(super) fn new(input: &'a [u8]) -> Self {
        Reader { input, at: 0, depth: 0 }
    }

    /// The next byte after whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.input.get(self.at) {
            self.at += 1;
        }
        self.input.get(self.at).copied()
    }

    /// Consume `byte`, the next after whitespace.
    fn expect(&mut self, byte: u8) -> Read<()> {
        if self.peek() != Some(byte) {
            return Err(Refused);
        }
        self.at += 1;
        Ok(())
    }

    /// One more container open, within `serde_json`'s limit.
    fn enter(&mut self) -> Read<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(Refused);
        }
        Ok(())
    }

    /// Consume `word` (a literal), which starts at the current byte.
    fn literal(&mut self, word: &[u8]) -> Read<()> {
        if !self.input[self.at..].starts_with(word) {
            return Err(Refused);
        }
        self.at += word.len();
        Ok(())
    }

    /// Only whitespace is left.
    pub(super) fn end(mut self) -> Read<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Refused),
        }
    }

    /// Whether the next value is `null`, consumed if it is.
    pub(super) fn null(&mut self) -> Read<bool> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.literal(b"null")?;
        Ok(true)
    }

    /// Enter an object; [`key`](Self::key) then reads its members.
    pub(super) fn object(&mut self) -> Read<Members> {
        self.expect(b'{')?;
        self.enter()?;
        Ok(Members { first: true })
    }

    /// The next member's key (its value is next), or `None` past the
    /// object's end. Keys with escapes are refused: the views' keys have
    /// none, and comparing them unescaped would need a copy. The key comes
    /// as bytes, for the views to compare with their ASCII names; only a
    /// key that is not ASCII is checked for UTF-8 (a view's field names are
    /// two dozen short keys a body, where a general check cost more than
    /// everything else about reading them).
    pub(super) fn key(&mut self, members: &mut Members) -> Read<Option<&'a [u8]>> {
        if self.peek() == Some(b'}') {
            self.at += 1;
            self.depth -= 1;
            return Ok(None);
        }
        if !std::mem::take(&mut members.first) {
            self.expect(b',')?;
        }
        self.expect(b'"')?;
        let start = self.at;
        let end =
            start + self.input[start..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).ok_or(Refused)?;
        if self.input[end] != b'"' {
            return Err(Refused);
        }
        self.at = end + 1;
        let key = &self.input[start..end];
        if !key.is_ascii() && std::str::from_utf8(key).is_err() {
            return Err(Refused);
        }
        self.expect(b':')?;
        Ok(Some(key))
    }

    /// Whether the next value is an array.
    pub(super) fn at_array(&mut self) -> bool {
        self.peek() == Some(b'[')
    }

    /// Enter an array; [`item`](Self::item) then says whether another
    /// element follows.
    pub(super) fn array(&mut self) -> Read<Members> {
        self.expect(b'[')?;
        self.enter()?;
        Ok(Members { first: true })
    }

    /// Whether another element of the array follows (it is next), or the
    /// array ended.
    pub(super) fn item(&mut self, items: &mut Members) -> Read<bool> {
        if self.peek() == Some(b']') {
            self.at += 1;
            self.depth -= 1;
            return Ok(false);
        }
        if !std::mem::take(&mut items.first) {
            self.expect(b',')?;
        }
        Ok(true)
    }

    /// A string, unescaped.
    pub(super) fn string(&mut self) -> Read<String> {
        self.expect(b'"')?;
        let start = self.at;
        let run = self.input[start..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).ok_or(Refused)?;
        let end = start + run;
        let plain = std::str::from_utf8(&self.input[start..end]).map_err(|_| Refused)?;
        match self.input[end] {
            b'"' => {
                self.at = end + 1;
                Ok(plain.to_owned())
            }
            b'\\' => {
                self.at = end;
                self.escaped(plain.to_owned())
            }
            _ => Err(Refused),
        }
    }

    /// The rest of a string with escapes, after `text`, from an escape.
    fn escaped(&mut self, mut text: String) -> Read<String> {
        loop {
            match self.input.get(self.at).copied().ok_or(Refused)? {
                b'"' => {
                    self.at += 1;
                    return Ok(text);
                }
                b'\\' => {
                    let escape = self.input.get(self.at + 1).copied().ok_or(Refused)?;
                    self.at += 2;
                    match escape {
                        b'"' => text.push('"'),
                        b'\\' => text.push('\\'),
                        b'/' => text.push('/'),
                        b'b' => text.push('\u{8}'),
                        b'f' => text.push('\u{c}'),
                        b'n' => text.push('\n'),
                        b'r' => text.push('\r'),
                        b't' => text.push('\t'),
                        b'u' => text.push(self.unicode()?),
                        _ => return Err(Refused),
                    }
                }
                _ => {
                    let start = self.at;
                    let run =
                        self.input[start..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).ok_or(Refused)?;
                    if run == 0 {
                        return Err(Refused); // a control character
                    }
                    self.at = start + run;
                    text.push_str(std::str::from_utf8(&self.input[start..self.at]).map_err(|_| Refused)?);
                }
            }
        }
    }

    /// The character of a `\u` escape (its four hex digits next), joining a
    /// surrogate pair; a lone surrogate is refused, as `serde_json` refuses
    /// it in a string it reads.
    fn unicode(&mut self) -> Read<char> {
        let unit = self.hex4()?;
        let code = match unit {
            0xD800..=0xDBFF => {
                if !self.input[self.at..].starts_with(b"\\u") {
                    return Err(Refused);
                }
                self.at += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(Refused);
                }
                0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(Refused),
            _ => u32::from(unit),
        };
        char::from_u32(code).ok_or(Refused)
    }

    fn hex4(&mut self) -> Read<u16> {
        let digits = self.input.get(self.at..self.at + 4).ok_or(Refused)?;
        let mut unit = 0u16;
        for &digit in digits {
            let value = (digit as char).to_digit(16).ok_or(Refused)?;
            unit = (unit << 4) | value as u16;
        }
        self.at += 4;
        Ok(unit)
    }

    /// A string, or `None` for `null`.
    pub(super) fn opt_string(&mut self) -> Read<Option<String>> {
        if self.null()? {
            return Ok(None);
        }
        self.string().map(Some)
    }

    /// An unsigned integer that fits a `u64`. A sign, a fraction or an
    /// exponent is refused: `serde_json` reads `1.0` or `-0` as a
    /// non-integer and the `Value` path then counts nothing.
    pub(super) fn u64(&mut self) -> Read<u64> {
        let start = match self.peek() {
            Some(b'0'..=b'9') => self.at,
            _ => return Err(Refused),
        };
        let digits = self.input[start..].iter().take_while(|b| b.is_ascii_digit()).count();
        self.at = start + digits;
        if (digits > 1 && self.input[start] == b'0') || matches!(self.input.get(self.at), Some(b'.' | b'e' | b'E')) {
            return Err(Refused);
        }
        self.input[start..self.at]
            .iter()
            .try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
            .ok_or(Refused)
    }

    /// An unsigned integer, or `None` for `null`.
    pub(super) fn opt_u64(&mut self) -> Read<Option<u64>> {
        if self.null()? {
            return Ok(None);
        }
        self.u64().map(Some)
    }

    /// The text of the next value, whatever it is, checked and skipped.
    pub(super) fn raw(&mut self) -> Read<&'a str> {
        self.peek();
        let start = self.at;
        self.skip()?;
        std::str::from_utf8(&self.input[start..self.at]).map_err(|_| Refused)
    }

    /// Skip the next value, whatever it is, checking it is JSON.
    pub(super) fn skip(&mut self) -> Read<()> {
        // Open containers, innermost last: `true` for an object.
        let mut open: Vec<bool> = Vec::new();
        loop {
            // A value.
            match self.peek().ok_or(Refused)? {
                b'{' | b'[' if self.depth + open.len() + 1 >= MAX_DEPTH => return Err(Refused),
                b'{' => {
                    self.at += 1;
                    if self.peek() != Some(b'}') {
                        open.push(true);
                        self.skip_key()?;
                        continue;
                    }
                    self.at += 1;
                }
                b'[' => {
                    self.at += 1;
                    if self.peek() != Some(b']') {
                        open.push(false);
                        continue;
                    }
                    self.at += 1;
                }
                b'"' => self.skip_string()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => self.skip_number()?,
            }
            // After a value: the next member or element, or the ends of the
            // containers it closes.
            loop {
                let Some(&object) = open.last() else { return Ok(()) };
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if object {
                            self.skip_key()?;
                        }
                        break;
                    }
                    Some(b'}') if object => {
                        self.at += 1;
                        open.pop();
                    }
                    Some(b']') if !object => {
                        self.at += 1;
                        open.pop();
                    }
                    _ => return Err(Refused),
                }
            }
        }
    }

    /// A member's key and colon, skipped.
    fn skip_key(&mut self) -> Read<()> {
        if self.peek() != Some(b'"') {
            return Err(Refused);
        }
        self.skip_string()?;
        self.expect(b':')
    }

    /// A string, skipped: escapes checked for form, characters not.
    fn skip_string(&mut self) -> Read<()> {
        self.at += 1; // the opening quote, seen by the caller
        loop {
            let run = self.input[self.at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).ok_or(Refused)?;
            self.at += run;
            match self.input[self.at] {
                b'"' => {
                    self.at += 1;
                    return Ok(());
                }
                b'\\' => {
                    let escape = self.input.get(self.at + 1).copied().ok_or(Refused)?;
                    self.at += 2;
                    match escape {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            self.hex4()?;
                        }
                        _ => return Err(Refused),
                    }
                }
                _ => return Err(Refused),
            }
        }
    }

    /// A number by JSON's grammar, skipped; its range is not checked.
    fn skip_number(&mut self) -> Read<()> {
        let digits = |reader: &mut Self| {
            let n = reader.input[reader.at..].iter().take_while(|b| b.is_ascii_digit()).count();
            reader.at += n;
            n
        };
        if self.input.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.input.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(Refused),
        }
        if self.input.get(self.at) == Some(&b'.') {
            self.at += 1;
            if digits(self) == 0 {
                return Err(Refused);
            }
        }
        if let Some(b'e' | b'E') = self.input.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.input.get(self.at) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return Err(Refused);
            }
        }
        Ok(())
    }
}

/// Where a read stands in an object or array: whether the next member or
/// element is the first (and so has no comma before it).
pub(super) struct Members {
    first: bool,
}

/// Each field's bit in a view's record of the fields it has read: a field
/// given twice is refused, as a derived struct refuses it.
pub(super) fn once(seen: &mut u32, field: u32) -> Read<()> {
    let bit = 1 << field;
    if *seen & bit != 0 {
        return Err(Refused);
    }
    *seen |= bit;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Read, Reader, Refused};
    use serde_json::Value;

    /// Skipping `text` as one value accepts exactly what `serde_json`
    /// accepts as a value — numbers of any range and strings' UTF-8 aside,
    /// which a skipped field does not check either.
    fn skips(text: &str) -> bool {
        let mut reader = Reader::new(text.as_bytes());
        reader.skip().is_ok() && reader.end().is_ok()
    }

    #[test]
    fn skipping_accepts_json_and_refuses_the_rest() {
        for json in [
            "0",
            "-0",
            "12.5e-3",
            "1E+2",
            "true",
            "false",
            "null",
            r#""a\"b\\\/\u00e9""#,
            "[]",
            "{}",
            " [1, [2, {}], {\"a\": [true]}] ",
            r#"{"a":{"b":{"c":[null,"x",-1.5]}},"d":""}"#,
        ] {
            assert!(serde_json::from_str::<Value>(json).is_ok(), "{json}");
            assert!(skips(json), "{json}");
        }
        for junk in [
            "",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\"}",
            "{1:2}",
            "[1 2]",
            "{\"a\":1 \"b\":2}",
            "\"a",
            "\"\\x\"",
            "\"\\u12\"",
            "\"tab\there\"",
            "[",
            "{\"a\":",
            "]",
            "1 2",
        ] {
            assert!(serde_json::from_str::<Value>(junk).is_err(), "{junk}");
            assert!(!skips(junk), "{junk}");
        }
        // Nesting is refused exactly where serde_json stops.
        for depth in [1, 126, 127, 128, 129, 400] {
            let nested = "[".repeat(depth) + &"]".repeat(depth);
            assert_eq!(skips(&nested), serde_json::from_str::<Value>(&nested).is_ok(), "{depth}");
        }
    }

    fn string(text: &str) -> Read<String> {
        let mut reader = Reader::new(text.as_bytes());
        let read = reader.string()?;
        reader.end()?;
        Ok(read)
    }

    #[test]
    fn strings_unescape_as_serde_json_does() {
        for json in [
            r#""""#,
            r#""plain""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""a\u00e9b\u20ac\ud83d\ude00c""#,
            r#""{\"x\":1}""#,
            "\"caf\u{e9} \u{1f600}\"",
            r#""\u0000""#,
        ] {
            assert_eq!(string(json).ok(), serde_json::from_str::<String>(json).ok(), "{json}");
        }
        for refused in [r#""\ud800""#, r#""\udc00x""#, r#""\ud800\u0041""#, r#""\q""#, "\"a\u{1}\"", r#""open"#] {
            assert_eq!(string(refused), Err(Refused), "{refused}");
        }
    }

    #[test]
    fn integers_are_plain_unsigned_ones() {
        let read = |text: &str| Reader::new(text.as_bytes()).u64();
        assert_eq!(read("0"), Ok(0));
        assert_eq!(read(" 42"), Ok(42));
        assert_eq!(read("18446744073709551615"), Ok(u64::MAX));
        for refused in ["18446744073709551616", "-1", "-0", "1.0", "1e3", "01", "x", "\"1\""] {
            assert_eq!(read(refused), Err(Refused), "{refused}");
        }
    }

    #[test]
    fn objects_and_arrays_read_member_by_member() {
        let text = br#" { "a" : [1, 2] , "b":null,"c":{"d":"e"} } "#;
        let mut reader = Reader::new(text);
        let mut members = reader.object().unwrap();
        let mut seen = Vec::new();
        while let Some(key) = reader.key(&mut members).unwrap() {
            match key {
                b"a" => {
                    let mut items = reader.array().unwrap();
                    while reader.item(&mut items).unwrap() {
                        seen.push(reader.u64().unwrap().to_string());
                    }
                }
                b"b" => assert!(reader.null().unwrap()),
                _ => seen.push(reader.raw().unwrap().to_string()),
            }
        }
        reader.end().unwrap();
        assert_eq!(seen, ["1", "2", r#"{"d":"e"}"#]);
        // An escaped key, a trailing comma, a missing comma: refused.
        for text in [&br#"{"\u0061":1}"#[..], br#"{"a":1,}"#, br#"{"a":1 "b":2}"#] {
            let mut reader = Reader::new(text);
            let mut members = reader.object().unwrap();
            let outcome = (|| {
                while reader.key(&mut members)?.is_some() {
                    reader.skip()?;
                }
                Ok(())
            })();
            assert_eq!(outcome, Err(Refused), "{}", String::from_utf8_lossy(text));
        }
    }
}

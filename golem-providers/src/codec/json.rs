//! Whole JSON bodies, parsed the cheap way with the same outcome (issue 37).

/// A whole JSON body (or a stream's payload) as `T`. A body that is
/// UTF-8 throughout is checked once and parsed as text; parsing bytes
/// checks each string on its own, ~15% of decoding a plain answer
/// (issue 37). Anything else is parsed as bytes, so what parses, and
/// every error, is the same as `serde_json::from_slice`'s.
pub(crate) fn parse_json<'de, T: serde::Deserialize<'de>>(body: &'de [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(body) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(body),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_json;
    use proptest::prelude::*;
    use serde_json::Value;

    fn both<'de, T: serde::Deserialize<'de> + PartialEq + std::fmt::Debug>(body: &'de [u8]) {
        let ours = parse_json::<T>(body).map_err(|e| e.to_string());
        let bytes = serde_json::from_slice::<T>(body).map_err(|e| e.to_string());
        assert_eq!(ours, bytes, "{}", String::from_utf8_lossy(body));
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Kept {
        a: u32,
    }

    #[test]
    fn values_and_errors_are_from_slices() {
        for body in [
            &br#"{"a":"\u00e9 \ud83d\ude00","b":[1,2.5,-0,null,true]}"#[..],
            "{\"a\":\"é\"}".as_bytes(),
            b"{\"a\":\"\xff\"}",
            b"{\"a\":1",
            b"",
            b"[1,2] x",
            br#"{"a":"\ud800"}"#,
            b"\xef\xbb\xbf{}",
        ] {
            both::<Value>(body);
            both::<Kept>(body);
        }
    }

    /// A typed view skips fields it does not read: invalid bytes there
    /// fail neither way (the body is parsed as bytes, as before).
    #[test]
    fn invalid_bytes_in_a_skipped_field_are_read_as_bytes_would() {
        both::<Kept>(b"{\"a\":1,\"junk\":\"\xff\"}");
        assert_eq!(parse_json::<Kept>(b"{\"a\":1,\"junk\":\"\xff\"}").ok(), Some(Kept { a: 1 }));
    }

    proptest! {
        #[test]
        fn any_bytes_parse_as_from_slice_parses_them(body in prop::collection::vec(any::<u8>(), 0..64)) {
            both::<Value>(&body);
            both::<Kept>(&body);
        }

        #[test]
        fn json_with_any_text_parses_as_from_slice_parses_it(text in any::<String>(), cut in 0usize..80) {
            let mut body = serde_json::json!({"a": 7, "t": text}).to_string().into_bytes();
            body.truncate(cut.max(1).min(body.len()));
            both::<Value>(&body);
            both::<Kept>(&body);
        }
    }
}

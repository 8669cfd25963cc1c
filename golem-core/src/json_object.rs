//! "Is this text a JSON object?" without building one.
//!
//! Tool-call arguments are checked on every encode of a message that holds
//! them and when a run repairs its history, and most are small objects that
//! are never needed as values there. Parsing them into a
//! `serde_json::Value` allocated every key and string just to answer yes.
//! This walks the same parser over the text keeping nothing, and accepts
//! exactly what `Value` accepts: every number is read as `Value` reads it
//! (so `1e400` is refused here too, where serde's `IgnoredAny` would skip
//! it), strings are checked the same way, nesting hits the same recursion
//! limit, and trailing characters fail both.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// True when `text` is valid JSON whose top level is an object: the same
/// answer as `matches!(serde_json::from_str(text), Ok(Value::Object(_)))`.
pub(crate) fn is_json_object(text: &str) -> bool {
    matches!(serde_json::from_str::<Shape>(text), Ok(Shape::Object))
}

/// What a JSON text is at its top level, once it has been read whole.
enum Shape {
    Object,
    Other,
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Shape, D::Error> {
        deserializer.deserialize_any(Walk).map(|top| match top {
            Kind::Object => Shape::Object,
            Kind::Other => Shape::Other,
        })
    }
}

/// Any JSON value, read in full and dropped.
struct Any;

impl<'de> Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Any, D::Error> {
        deserializer.deserialize_any(Walk).map(|_| Any)
    }
}

enum Kind {
    Object,
    Other,
}

/// Visits what `Value`'s visitor visits, recursing through arrays and
/// objects, and keeps only whether the value was an object.
struct Walk;

impl<'de> Visitor<'de> for Walk {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Kind, D::Error> {
        deserializer.deserialize_any(Walk)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq.next_element::<Any>()?.is_some() {}
        Ok(Kind::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while map.next_key::<Any>()?.is_some() {
            map.next_value::<Any>()?;
        }
        Ok(Kind::Object)
    }
}

#[cfg(test)]
mod tests {
    use super::is_json_object;
    use serde_json::Value;

    fn by_value(text: &str) -> bool {
        matches!(serde_json::from_str(text), Ok(Value::Object(_)))
    }

    #[test]
    fn agrees_with_a_value_parse_on_the_edges() {
        let deep_ok = format!("{}1{}", "{\"a\":".repeat(100), "}".repeat(100));
        let too_deep = format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200));
        let cases = [
            "",
            " ",
            "{}",
            " {} ",
            "{} x",
            "{}{}",
            "[]",
            "[{}]",
            "1",
            "null",
            "\"{}\"",
            r#"{"a":1}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a":1e400}"#,
            r#"{"a":-0,"b":18446744073709551616,"c":1.5e-400}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\ud83d\ude00"}"#,
            r#"{"a":"\u00e9\n"}"#,
            r#"{"a":[1,{"b":null}],"c":{"d":[]}}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":01}"#,
            r#"{1:2}"#,
            "{\"a\":\"\u{0}\"}",
            "{\"a\":\"\t\"}",
            deep_ok.as_str(),
            too_deep.as_str(),
        ];
        for text in cases {
            assert_eq!(is_json_object(text), by_value(text), "{text:?}");
        }
    }
}

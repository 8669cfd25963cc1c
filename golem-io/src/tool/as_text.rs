//! A tool's value that serializes as a JSON string, taken as its text
//! directly (issue 37).
//!
//! [`IntoToolResult`](super::IntoToolResult) gives such a value to the
//! model unquoted: what `serde_json` would write, parsed back into a
//! `String`. Most tools return a `String`, and for those the round trip
//! escaped the text, allocated it twice and ran the JSON parser over it,
//! every call. This serializer takes the text as the value hands it over
//! and refuses every other shape, so the caller can fall back to JSON for
//! those. It follows `serde_json` wherever a value becomes a string:
//! `str`, `char`, a unit variant (its name), `Some` and a newtype around
//! any of these, and `Display` values written through `collect_str`.

use serde::ser::{Impossible, Serialize, Serializer};
use std::fmt;

/// The text `value` serializes to as a JSON string, or `None` when it
/// serializes to anything else (an object, an array, a number, `null`).
pub(super) fn text_of<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    value.serialize(TextOnly).ok()
}

/// The name `serde_json::value::RawValue` serializes under: its inner
/// string is JSON text, not the value's text, so it takes the JSON path.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// Why a value has no text of its own: it is not a string in JSON.
#[derive(Debug)]
pub(super) struct NotText;

impl fmt::Display for NotText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the value does not serialize as a string")
    }
}

impl std::error::Error for NotText {}

impl serde::ser::Error for NotText {
    fn custom<M: fmt::Display>(_: M) -> Self {
        NotText
    }
}

struct TextOnly;

/// The scalars that JSON writes as something other than a string.
macro_rules! refuse_scalars {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<String, NotText> {
            Err(NotText)
        })*
    };
}

type No = Impossible<String, NotText>;

impl Serializer for TextOnly {
    type Ok = String;
    type Error = NotText;
    type SerializeSeq = No;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = No;
    type SerializeStructVariant = No;

    fn serialize_str(self, text: &str) -> Result<String, NotText> {
        Ok(text.to_owned())
    }

    fn serialize_char(self, c: char) -> Result<String, NotText> {
        Ok(c.to_string())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<String, NotText> {
        Ok(variant.to_owned())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<String, NotText> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<String, NotText> {
        if name == RAW_VALUE {
            return Err(NotText);
        }
        value.serialize(self)
    }

    refuse_scalars!(
        serialize_bool: bool,
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_f32: f32,
        serialize_f64: f64,
        serialize_bytes: &[u8],
    );

    fn serialize_none(self) -> Result<String, NotText> {
        Err(NotText)
    }

    fn serialize_unit(self) -> Result<String, NotText> {
        Err(NotText)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<String, NotText> {
        Err(NotText)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, NotText> {
        Err(NotText)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<No, NotText> {
        Err(NotText)
    }

    fn serialize_tuple(self, _: usize) -> Result<No, NotText> {
        Err(NotText)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<No, NotText> {
        Err(NotText)
    }

    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<No, NotText> {
        Err(NotText)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<No, NotText> {
        Err(NotText)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<No, NotText> {
        Err(NotText)
    }

    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<No, NotText> {
        Err(NotText)
    }
}

#[cfg(test)]
mod tests {
    use super::text_of;
    use serde::Serialize;
    use serde_json::json;

    /// What the JSON path gives: the value's JSON, unquoted when a string.
    fn through_json<T: Serialize + ?Sized>(value: &T) -> Option<String> {
        let json = serde_json::to_string(value).ok()?;
        json.starts_with('"').then(|| serde_json::from_str::<String>(&json).expect("a JSON string"))
    }

    #[derive(Serialize)]
    enum Mood {
        Calm,
        Cross(u8),
    }

    #[derive(Serialize)]
    struct Name(String);

    #[derive(Serialize)]
    struct Point {
        x: i32,
    }

    fn agrees<T: Serialize + ?Sized>(value: &T) {
        assert_eq!(text_of(value), through_json(value), "{}", serde_json::to_string(value).unwrap_or_default());
    }

    #[test]
    fn every_string_shape_agrees_with_the_json_path() {
        agrees("plain");
        agrees(&String::from("quote \" backslash \\ newline \n tab \t bell \u{7} é 😀"));
        agrees(&'x');
        agrees(&'"');
        agrees(&Mood::Calm);
        agrees(&Name("wrapped".into()));
        agrees(&Some("maybe"));
        agrees(&Some(Some(Name("deep".into()))));
        agrees(&std::net::Ipv4Addr::LOCALHOST); // collect_str
        agrees(&std::borrow::Cow::Borrowed("cow"));
        agrees(&json!("a value"));
    }

    #[test]
    fn every_other_shape_is_refused() {
        for refused in [
            text_of(&1),
            text_of(&1.5),
            text_of(&f64::NAN),
            text_of(&true),
            text_of(&()),
            text_of(&None::<String>),
            text_of(&vec!["a"]),
            text_of(&Point { x: 1 }),
            text_of(&Mood::Cross(2)),
            text_of(&json!({"a": "b"})),
            text_of(&json!(null)),
            text_of(&(1u128 << 100)),
        ] {
            assert_eq!(refused, None);
        }
    }

    #[test]
    fn raw_json_takes_the_json_path() {
        let raw = serde_json::value::RawValue::from_string(r#""already json""#.into()).expect("raw JSON");
        assert_eq!(text_of(&raw), None);
    }
}

//! The arguments of a tool call as the model wrote them (SPEC MSG-02):
//! raw JSON text kept byte for byte, also the raw form of a provider's
//! built-in tool blocks.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The arguments of a tool call: raw JSON text, kept byte for byte.
///
/// Model output is untrusted, so the text may be anything — including JSON
/// cut off by a length stop. Valid JSON serialises as itself (byte-exact);
/// anything else serialises as a JSON string holding the text, which keeps it
/// recognisably "not an object" after a round trip.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct ToolArgs(String);

impl ToolArgs {
    /// Wrap raw argument text as produced by the model.
    pub fn new(raw: impl Into<String>) -> Self {
        ToolArgs(raw.into())
    }

    /// Arguments serialised from a JSON value.
    pub fn from_value(value: &serde_json::Value) -> Self {
        ToolArgs(value.to_string())
    }

    /// The raw text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when `text` is empty or whitespace only (as `str::trim` sees
    /// whitespace): arguments a tool receives as `{}` (see
    /// [`object`](Self::object)). A function of the text, so a decoder can
    /// apply the rule before it makes the arguments.
    ///
    /// ```
    /// use golem_core::ToolArgs;
    /// assert!(ToolArgs::is_blank(""));
    /// assert!(ToolArgs::is_blank(" \n\u{a0}"));
    /// assert!(!ToolArgs::is_blank(" {}"));
    /// ```
    pub fn is_blank(text: &str) -> bool {
        // Arguments nearly always open with `{`, and text whose first byte
        // is a visible ASCII character cannot be blank, so only other text
        // pays for the Unicode-aware trim (issue 37: it was walked four
        // times per tool call).
        !text.as_bytes().first().is_some_and(u8::is_ascii_graphic) && text.trim().is_empty()
    }

    /// True when the text is a JSON object (what tools accept).
    pub fn is_object(&self) -> bool {
        crate::json_object::is_json_object(&self.0)
    }

    /// The arguments as a tool receives them: a JSON object as itself, empty
    /// text as `{}` (a call of a tool without parameters, as some providers
    /// send it), anything else `None` — the one reading the machine screens
    /// calls by (SPEC TOOL-05) and the drivers hand to handlers.
    ///
    /// ```
    /// use golem_core::ToolArgs;
    /// assert_eq!(ToolArgs::new(" ").object(), Some(serde_json::json!({})));
    /// assert_eq!(ToolArgs::new(r#"{"a":1}"#).object(), Some(serde_json::json!({"a": 1})));
    /// assert_eq!(ToolArgs::new(r#"{"a":"#).object(), None);
    /// assert_eq!(ToolArgs::new("[1]").object(), None);
    /// ```
    pub fn object(&self) -> Option<serde_json::Value> {
        if Self::is_blank(&self.0) {
            return Some(serde_json::Value::Object(serde_json::Map::new()));
        }
        serde_json::from_str::<serde_json::Value>(&self.0).ok().filter(serde_json::Value::is_object)
    }

    /// Whether [`object`](Self::object) reads these arguments (empty text or a
    /// JSON object), answered without building the value: the machine screens
    /// every call this way (SPEC TOOL-05), and the driver parses the
    /// arguments once more for the handler anyway.
    ///
    /// ```
    /// use golem_core::ToolArgs;
    /// for text in ["", " ", r#"{"a":[1,{"b":null}]}"#, r#"{"a":"#, "[1]", "1e400", r#"{"a":1} x"#] {
    ///     assert_eq!(ToolArgs::new(text).is_accepted(), ToolArgs::new(text).object().is_some(), "{text}");
    /// }
    /// ```
    pub fn is_accepted(&self) -> bool {
        Self::is_blank(&self.0) || self.is_object()
    }

    /// Parse the text as a JSON value.
    pub fn parse(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(&self.0)
    }

    /// The text providers should be sent (SPEC HIST-06): empty → `{}`, a JSON
    /// object unchanged, anything else wrapped as `{"truncated_args": "<raw>"}`.
    /// Borrowed when unchanged: every request resends every call of the
    /// history, and copying their arguments to write them was an allocation
    /// per call per request (issue 37).
    ///
    /// ```
    /// use golem_core::ToolArgs;
    /// assert_eq!(ToolArgs::new(" ").normalized_for_wire(), "{}");
    /// assert_eq!(ToolArgs::new(r#"{"a":1}"#).normalized_for_wire(), r#"{"a":1}"#);
    /// assert_eq!(ToolArgs::new("[1]").normalized_for_wire(), r#"{"truncated_args":"[1]"}"#);
    /// ```
    pub fn normalized_for_wire(&self) -> Cow<'_, str> {
        if Self::is_blank(&self.0) {
            Cow::Borrowed("{}")
        } else if self.is_object() {
            Cow::Borrowed(&self.0)
        } else {
            Cow::Owned(serde_json::json!({ "truncated_args": self.0 }).to_string())
        }
    }
}

impl fmt::Debug for ToolArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolArgs({})", self.0)
    }
}

impl fmt::Display for ToolArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ToolArgs {
    fn from(s: &str) -> Self {
        ToolArgs(s.to_string())
    }
}

impl From<String> for ToolArgs {
    fn from(s: String) -> Self {
        ToolArgs(s)
    }
}

impl Serialize for ToolArgs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match serde_json::value::RawValue::from_string(self.0.clone()) {
            Ok(raw) if !self.0.is_empty() => raw.serialize(s),
            _ => s.serialize_str(&self.0),
        }
    }
}

/// The name serde_json recognises to hand out raw JSON text. Asking for it
/// ourselves (rather than through `RawValue`) lets the same visitor also
/// accept buffered input — inside internally tagged or flattened types, where
/// serde offers no raw text — by re-serialising the value.
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

struct ArgsVisitor;

impl<'de> serde::de::Visitor<'de> for ArgsVisitor {
    type Value = ToolArgs;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tool-call arguments (any JSON value)")
    }

    // serde_json's raw path: a one-entry map whose value is the exact text.
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ToolArgs, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Ok(ToolArgs("{}".to_string()));
        };
        if key == RAW_TOKEN {
            let raw: String = map.next_value()?;
            return Ok(ToolArgs(raw));
        }
        // A genuine object from a buffered source: rebuild it.
        let mut object = serde_json::Map::new();
        object.insert(key, map.next_value()?);
        while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
            object.insert(k, v);
        }
        Ok(ToolArgs(serde_json::Value::Object(object).to_string()))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<ToolArgs, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        Ok(ToolArgs(value.to_string()))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ToolArgs, E> {
        Ok(ToolArgs(serde_json::Value::String(v.to_string()).to_string()))
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<ToolArgs, E> {
        Ok(ToolArgs(v.to_string()))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ToolArgs, E> {
        Ok(ToolArgs(v.to_string()))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ToolArgs, E> {
        Ok(ToolArgs(v.to_string()))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<ToolArgs, E> {
        Ok(ToolArgs(serde_json::Value::from(v).to_string()))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<ToolArgs, E> {
        Ok(ToolArgs("null".to_string()))
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<ToolArgs, E> {
        Ok(ToolArgs("null".to_string()))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ToolArgs, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<serde_json::Value>()? {
            items.push(item);
        }
        Ok(ToolArgs(serde_json::Value::Array(items).to_string()))
    }
}

impl<'de> Deserialize<'de> for ToolArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(RAW_TOKEN, ArgsVisitor)
    }
}

impl ToolArgs {
    pub(crate) fn is_empty_text(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::ToolArgs;

    /// The shortcut on the first byte gives `trim`'s answer for text that
    /// opens with every ASCII character and with Unicode whitespace.
    #[test]
    fn blank_is_trims_answer() {
        let openers = (0u8..=0x7f).map(char::from).chain(['\u{a0}', '\u{2028}', '\u{3000}', '\u{feff}', 'é']);
        for first in openers {
            for rest in ["", " ", "\t\n", "x", " {}", "\u{85}"] {
                let text = format!("{first}{rest}");
                assert_eq!(ToolArgs::is_blank(&text), text.trim().is_empty(), "{text:?}");
            }
        }
        assert!(ToolArgs::is_blank(""));
    }
}

//! The request body's common messages and its last fields, written as JSON
//! by hand (issue 37).
//!
//! They were serde derives (`WireMessage`, `BodyRest`): generic code that
//! every request walked, field by field through serde's serializer, to
//! write a few fixed keys around values. Here the keys are literal bytes
//! and every value still goes through `serde_json`'s own formatting
//! (strings, numbers and values through `to_writer`), in the derives' field order, so the body is byte for byte
//! what they wrote — which the golden request tests pin. Messages with
//! media parts keep the derived wire structs: they are rare, and their
//! shapes many.

use crate::classify::encode_error;
use golem_core::model::ModelError;
use serde::Serialize;

/// `text` as a JSON string.
pub(super) fn string(out: &mut Vec<u8>, text: &str) {
    // Writing a string into a `Vec` cannot fail.
    let _ = serde_json::to_writer(out, text);
}

/// Any other value, through `serde_json`.
pub(super) fn value(out: &mut Vec<u8>, value: &(impl Serialize + ?Sized)) -> Result<(), ModelError> {
    serde_json::to_writer(out, value).map_err(|e| encode_error(&e.to_string()))
}

/// `"name":`, for a member after the first; `name` is one of the body's
/// keys, which need no escaping.
pub(super) fn key(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

/// A message whose content is text: `{"role":…,"content":…}`.
pub(super) fn text_message(out: &mut Vec<u8>, role: &str, content: &str) {
    open_message(out, role);
    key(out, "content");
    string(out, content);
    out.push(b'}');
}

/// A tool result: `{"role":"tool","content":…,"tool_call_id":…}`.
pub(super) fn tool_message(out: &mut Vec<u8>, content: &str, call_id: &str) {
    open_message(out, "tool");
    key(out, "content");
    string(out, content);
    key(out, "tool_call_id");
    string(out, call_id);
    out.push(b'}');
}

/// An assistant turn: `{"role":"assistant"`, then its `content` when it
/// has one; the caller adds the calls with [`call`] and closes it.
pub(super) fn open_assistant(out: &mut Vec<u8>, content: Option<&str>) {
    open_message(out, "assistant");
    if let Some(content) = content {
        key(out, "content");
        string(out, content);
    }
}

/// One entry of an assistant turn's `tool_calls`, the `n`th (from 0).
pub(super) fn call(out: &mut Vec<u8>, n: usize, id: &str, name: &str, arguments: &str) {
    out.extend_from_slice(if n == 0 { b",\"tool_calls\":[{\"id\":" } else { b",{\"id\":" });
    string(out, id);
    out.extend_from_slice(b",\"type\":\"function\",\"function\":{\"name\":");
    string(out, name);
    out.extend_from_slice(b",\"arguments\":");
    string(out, arguments);
    out.extend_from_slice(b"}}");
}

/// Close an assistant turn that wrote `calls` calls.
pub(super) fn close_assistant(out: &mut Vec<u8>, calls: usize) {
    out.extend_from_slice(if calls == 0 { b"}" } else { b"]}" });
}

fn open_message(out: &mut Vec<u8>, role: &str) {
    out.extend_from_slice(b"{\"role\":\"");
    out.extend_from_slice(role.as_bytes());
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Text<'a> {
        role: &'a str,
        content: &'a str,
    }

    const AWKWARD: &str = "quote \" backslash \\ slash / newline \n tab \t nul \u{0} del \u{7f} é 😀";

    /// The hand-written shapes are the bytes serde writes for the same
    /// fields, awkward text included.
    #[test]
    fn messages_are_what_serde_writes() {
        let mut out = Vec::new();
        text_message(&mut out, "user", AWKWARD);
        assert_eq!(out, serde_json::to_vec(&Text { role: "user", content: AWKWARD }).unwrap());

        let mut out = Vec::new();
        tool_message(&mut out, AWKWARD, "call\"1");
        let expected = format!(
            r#"{{"role":"tool","content":{},"tool_call_id":{}}}"#,
            serde_json::to_string(AWKWARD).unwrap(),
            serde_json::to_string("call\"1").unwrap()
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);

        let mut out = Vec::new();
        open_assistant(&mut out, None);
        call(&mut out, 0, "a", "f", "{}");
        call(&mut out, 1, "b", AWKWARD, r#"{"x":"\"y\""}"#);
        close_assistant(&mut out, 2);
        let expected = format!(
            r#"{{"role":"assistant","tool_calls":[{{"id":"a","type":"function","function":{{"name":"f","arguments":"{{}}"}}}},{{"id":"b","type":"function","function":{{"name":{},"arguments":{}}}}}]}}"#,
            serde_json::to_string(AWKWARD).unwrap(),
            serde_json::to_string(r#"{"x":"\"y\""}"#).unwrap()
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);

        let mut out = Vec::new();
        open_assistant(&mut out, Some("hi"));
        close_assistant(&mut out, 0);
        assert_eq!(out, br#"{"role":"assistant","content":"hi"}"#);
    }
}

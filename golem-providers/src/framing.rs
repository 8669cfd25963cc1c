//! Model-facing frames for tool-result media (SPEC MM-04).
//!
//! APIs whose tool messages take only text (Chat Completions, Gemini) get a
//! tool result's images, documents and audio on one synthetic user message
//! after the run of tool messages; each call's parts sit between an opening
//! and a closing text part so the model can tell whose media it is. The
//! frames exist only on the wire, never in stored history.
//!
//! These texts are a model-facing contract like those in
//! `golem_core::texts` (pinned by golden tests here); they belong there once
//! golem-core grows a place for provider-side texts.

/// The text part opening a tool result's media.
///
/// ```
/// use golem_providers::framing::tool_result_open;
/// assert_eq!(tool_result_open("chart", "call_1"), r#"<tool_result tool_name="chart" tool_call_id="call_1">"#);
/// ```
pub fn tool_result_open(tool_name: &str, tool_call_id: &str) -> String {
    format!(r#"<tool_result tool_name="{}" tool_call_id="{}">"#, escape(tool_name), escape(tool_call_id))
}

/// The text part closing a tool result's media.
pub const TOOL_RESULT_CLOSE: &str = "</tool_result>";

/// The text of a failed tool result as the model sees it on APIs without an
/// error flag: `{"error": reason}` (SPEC MM-04).
///
/// ```
/// assert_eq!(golem_providers::framing::failed_result("no such city"), r#"{"error":"no such city"}"#);
/// ```
pub fn failed_result(reason: &str) -> String {
    serde_json::json!({ "error": reason }).to_string()
}

/// XML attribute escaping: ids are provider payload and may hold anything.
fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

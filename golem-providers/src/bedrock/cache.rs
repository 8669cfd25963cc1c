//! Automatic prompt caching (SPEC PROV-BR-03, issue 37): which models get
//! `cachePoint` blocks by default, and where the blocks go.
//!
//! Bedrock caches a prefix up to a `cachePoint` block for the Claude and
//! Nova models that document it, at most [`MAX_CACHE_POINTS`] per request.
//! The points go, in prefix order:
//!
//! 1. after the tool definitions (Claude only: Nova takes points in the
//!    system and the messages alone);
//! 2. after the system texts: tools and instructions together;
//! 3. at the end of the turn the previous request ended with (the turn
//!    before the last assistant turn), the entry that request wrote;
//! 4. at the end of the last turn, written now and read by the next one.
//!
//! Other models (Llama, Mistral, older Claude 3 models) refuse the block,
//! so they get none unless the config sets a point explicitly.

use serde_json::{Map, Value};

/// The most `cachePoint` blocks a Converse request may carry.
pub const MAX_CACHE_POINTS: usize = 4;

/// The Claude models on Bedrock that predate prompt caching there.
const CLAUDE_WITHOUT_CACHE: [&str; 6] =
    ["claude-v2", "claude-instant", "claude-3-haiku", "claude-3-sonnet", "claude-3-opus", "claude-3-5-sonnet-20240620"];

/// Whether `model` (an id, an inference profile or an ARN) documents
/// prompt caching, so caching is on by default.
///
/// ```
/// use golem_providers::bedrock::caches_by_default;
///
/// assert!(caches_by_default("us.anthropic.claude-sonnet-4-5-20250929-v1:0"));
/// assert!(caches_by_default("amazon.nova-pro-v1:0"));
/// assert!(!caches_by_default("anthropic.claude-3-haiku-20240307-v1:0"));
/// assert!(!caches_by_default("meta.llama3-70b-instruct-v1:0"));
/// ```
pub fn caches_by_default(model: &str) -> bool {
    let claude = model.contains("anthropic.claude") && !CLAUDE_WITHOUT_CACHE.iter().any(|old| model.contains(old));
    claude || model.contains("amazon.nova")
}

/// Whether `model` takes a point after its tool definitions: Claude does,
/// Nova does not.
fn caches_tools(model: &str) -> bool {
    !model.contains("amazon.nova")
}

/// Adds `point` (a `cachePoint` block) to `body`, a Converse body as
/// encoded for `model`, at the places listed in the module docs.
pub(super) fn place(body: &mut Map<String, Value>, model: &str, point: &Value) {
    if caches_tools(model) {
        if let Some(tools) = body.get_mut("toolConfig").and_then(|c| c.get_mut("tools")).and_then(Value::as_array_mut) {
            tools.push(point.clone());
        }
    }
    if let Some(system) = body.get_mut("system").and_then(Value::as_array_mut) {
        system.push(point.clone());
    }
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else { return };
    let last_assistant = messages.iter().rposition(|m| m.get("role").and_then(Value::as_str) == Some("assistant"));
    let previous = last_assistant.and_then(|a| a.checked_sub(1));
    let last = messages.len().checked_sub(1);
    for turn in [previous, last].into_iter().flatten() {
        if let Some(content) = messages[turn].get_mut("content").and_then(Value::as_array_mut) {
            if !content.is_empty() && content.last() != Some(point) {
                content.push(point.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn points(value: &Value) -> usize {
        match value {
            Value::Object(map) => usize::from(map.contains_key("cachePoint")) + map.values().map(points).sum::<usize>(),
            Value::Array(items) => items.iter().map(points).sum(),
            _ => 0,
        }
    }

    fn conversation() -> Value {
        json!({
            "system": [{"text": "Be brief."}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "a"}}]},
            "messages": [
                {"role": "user", "content": [{"text": "q"}]},
                {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1"}}]},
                {"role": "user", "content": [{"toolResult": {"toolUseId": "t1"}}]},
            ]
        })
    }

    #[test]
    fn claude_gets_four_points_nova_three() {
        let point = json!({"cachePoint": {"type": "default"}});
        let mut claude = conversation();
        place(claude.as_object_mut().unwrap(), "anthropic.claude-sonnet-4-5", &point);
        assert_eq!(points(&claude), MAX_CACHE_POINTS);
        assert_eq!(claude["toolConfig"]["tools"][1], point);
        assert_eq!(claude["system"][1], point);
        assert_eq!(claude["messages"][0]["content"][1], point, "the previous frontier");
        assert_eq!(claude["messages"][2]["content"][1], point, "the frontier");
        let mut nova = conversation();
        place(nova.as_object_mut().unwrap(), "amazon.nova-lite-v1:0", &point);
        assert_eq!(points(&nova), 3);
        assert_eq!(points(&nova["toolConfig"]), 0, "Nova takes no point after its tools");
    }

    #[test]
    fn a_first_turn_gets_one_point_in_its_messages() {
        let point = json!({"cachePoint": {"type": "default"}});
        let mut body = json!({"messages": [{"role": "user", "content": [{"text": "q"}]}]});
        place(body.as_object_mut().unwrap(), "amazon.nova-micro-v1:0", &point);
        assert_eq!(body["messages"][0]["content"], json!([{"text": "q"}, point]));
    }
}

//! Automatic prompt caching (SPEC PROV-ANT-07, issue 37): where the
//! `cache_control` breakpoints of a Messages body go.
//!
//! Anthropic caches a prompt prefix only up to a block marked with
//! `cache_control`, reads it back at a tenth of the input price and looks
//! for earlier entries at most 20 blocks before each mark. The prefix is
//! tools, then system, then messages, so a run places at most
//! [`MAX_BREAKPOINTS`] marks, the API's limit:
//!
//! 1. the last tool definition: the tools alone are shared by every run
//!    of an agent whatever its instructions;
//! 2. the system text: tools and instructions together;
//! 3. the previous frontier, the end of the turn the previous request
//!    ended with (the turn before the last assistant turn): the entry that
//!    request wrote, read back however many blocks the last turn added;
//! 4. the frontier, the last block of the conversation: written now, read
//!    by the next turn.
//!
//! A mark changes no cached content (the API hashes the blocks, not the
//! marks), so moving 3 and 4 forward each turn keeps every earlier entry
//! readable. Thinking blocks and empty texts cannot carry a mark; the
//! frontiers walk back past them. A replayed server tool block
//! (`server_tool_use`, `web_search_tool_result`, …) can: the API's block
//! params for them take `cache_control` like a `tool_use` or `tool_result`
//! does, and the mark is added beside the stored JSON, never inside it.

use serde_json::{Map, Value};

/// The most `cache_control` marks a Messages request may carry.
pub const MAX_BREAKPOINTS: usize = 4;

/// Marks `body` (a Messages body as encoded) with `cache` at the places
/// listed in the module docs. The system text becomes one text block, the
/// form that can carry a mark.
pub(super) fn place(body: &mut Map<String, Value>, cache: &Value) {
    if let Some(last) = body.get_mut("tools").and_then(Value::as_array_mut).and_then(|t| t.last_mut()) {
        last["cache_control"] = cache.clone();
    }
    if let Some(system) = body.get_mut("system") {
        if let Some(text) = system.as_str().filter(|t| !t.is_empty()) {
            *system = serde_json::json!([{"type": "text", "text": text, "cache_control": cache}]);
        }
    }
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else { return };
    let last_assistant = messages.iter().rposition(|m| m.get("role").and_then(Value::as_str) == Some("assistant"));
    if let Some(previous) = last_assistant {
        mark_last(&mut messages[..previous], cache);
    }
    mark_last(messages, cache);
}

/// Marks the last block of `messages` that can carry a mark.
fn mark_last(messages: &mut [Value], cache: &Value) {
    let blocks = messages
        .iter_mut()
        .rev()
        .filter_map(|m| m.get_mut("content").and_then(Value::as_array_mut))
        .flat_map(|content| content.iter_mut().rev());
    for block in blocks {
        if markable(block) {
            block["cache_control"] = cache.clone();
            return;
        }
    }
}

/// Thinking blocks take no mark, nor do empty texts (the API refuses both).
fn markable(block: &Value) -> bool {
    match block.get("type").and_then(Value::as_str) {
        Some("thinking" | "redacted_thinking") => false,
        Some("text") => block.get("text").and_then(Value::as_str).is_some_and(|t| !t.is_empty()),
        Some(_) => true,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn marks(value: &Value) -> usize {
        match value {
            Value::Object(map) => {
                usize::from(map.contains_key("cache_control")) + map.values().map(marks).sum::<usize>()
            }
            Value::Array(items) => items.iter().map(marks).sum(),
            _ => 0,
        }
    }

    #[test]
    fn four_marks_at_most_on_tools_system_and_both_frontiers() {
        let mut body = json!({
            "system": "Be brief.",
            "tools": [{"name": "a"}, {"name": "b"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "q"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}, {"type": "tool_use", "id": "t2"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2"}, {"type": "text", "text": ""}]},
            ]
        });
        let cache = json!({"type": "ephemeral"});
        place(body.as_object_mut().unwrap(), &cache);
        assert_eq!(marks(&body), MAX_BREAKPOINTS);
        assert_eq!(body["tools"][1]["cache_control"], cache);
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["system"], json!([{"type": "text", "text": "Be brief.", "cache_control": cache}]));
        assert_eq!(body["messages"][2]["content"][0]["cache_control"], cache, "the previous frontier");
        assert_eq!(body["messages"][4]["content"][0]["cache_control"], cache, "past the empty text");
    }

    #[test]
    fn a_replayed_server_block_can_carry_the_frontier() {
        let result = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []});
        let mut body = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "q"}]},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                result,
            ]},
        ]});
        let cache = json!({"type": "ephemeral"});
        place(body.as_object_mut().unwrap(), &cache);
        let marked = &body["messages"][1]["content"][1];
        assert_eq!(marked["cache_control"], cache);
        let mut unmarked = marked.clone();
        unmarked.as_object_mut().unwrap().remove("cache_control");
        assert_eq!(unmarked, result, "the stored block is otherwise untouched");
        assert_eq!(marks(&body), 2, "the previous frontier on the user's text");
    }

    #[test]
    fn a_first_turn_has_one_frontier_and_thinking_is_never_marked() {
        let mut body = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]});
        place(body.as_object_mut().unwrap(), &json!({"type": "ephemeral"}));
        assert_eq!(marks(&body), 1);
        let mut prefill = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "q"}]},
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]},
        ]});
        place(prefill.as_object_mut().unwrap(), &json!({"type": "ephemeral"}));
        assert_eq!(marks(&prefill), 1, "both frontiers fall on the same block");
        assert!(prefill["messages"][1]["content"][0].get("cache_control").is_none());
    }
}

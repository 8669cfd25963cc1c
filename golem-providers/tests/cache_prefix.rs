//! Prompt caching across the turns of a run (issue 37), for every family:
//! the request of turn n+1 begins with the bytes of turn n's request up to
//! the end of its conversation, so implicit caches (OpenAI, Azure, Gemini,
//! a local server's KV cache) hit; tools and instructions encode the same
//! every turn; and where caching is explicit (Anthropic, Bedrock) the
//! breakpoints sit where the providers document them, move forward with
//! the conversation and never exceed the providers' limit.

use golem_core::message::{Message, ToolCall};
use golem_core::model::Request;
use golem_core::tool::ToolDefinition;
use golem_providers::codec::HttpCodec;
use golem_providers::sigv4::Credentials;
use golem_providers::{anthropic, azure, bedrock, gemini, openai};
use serde_json::{json, Value};
use std::ops::Range;
use std::sync::Arc;

const TURNS: usize = 12;

/// Tools in the order the agent declared them, with schemas whose keys
/// are out of order and numbers that are not integers.
fn tools() -> Arc<Vec<ToolDefinition>> {
    let schema = |unit: &str| {
        json!({"type": "object", "required": ["z", "a"],
               "properties": {"z": {"type": "number", "maximum": 0.1}, "a": {"type": "string", "description": unit}}})
    };
    Arc::new(vec![
        ToolDefinition::new("weather", "The weather in a city.", schema("celsius")),
        ToolDefinition::new("convert", "Convert between units.", schema("unit")),
        ToolDefinition::new("add", "Add two numbers.", schema("number")),
    ])
}

/// The history of an agent run before its request `turn` (0 = the first):
/// instructions, the prompt, then per turn two parallel calls with
/// fractional arguments and their results.
fn history(turn: usize) -> Vec<Message> {
    let mut messages =
        vec![Message::system("You are a careful assistant. Use the tools."), Message::user("Plan a trip.")];
    for t in 0..turn {
        let (a, b) = (format!("toolu_{t}_a"), format!("toolu_{t}_b"));
        messages.push(Message::assistant_calls(vec![
            ToolCall::new(&a, "weather", format!(r#"{{"z": 0.{t}1, "a": "Lisbon"}}"#)),
            ToolCall::new(&b, "convert", r#"{"a": "km", "z": 1e-7}"#),
        ]));
        messages.push(Message::tool_result(&a, "weather", format!("{t}.5 degrees")));
        messages.push(Message::tool_result(&b, "convert", "0.621371 miles"));
    }
    messages
}

fn request(turn: usize) -> Request {
    Request::new(history(turn)).with_tools(tools())
}

/// The span of `key`'s value in the JSON text `raw` (a top-level key of
/// the body, which appears once).
fn span(raw: &[u8], key: &str) -> Range<usize> {
    let needle = format!("\"{key}\":");
    let start = raw.windows(needle.len()).position(|w| w == needle.as_bytes()).unwrap_or_else(|| panic!("{key}"))
        + needle.len();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &byte) in raw.iter().enumerate().skip(start) {
        match (in_string, byte) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') => in_string = false,
            (true, _) => {}
            (false, b'"') => in_string = true,
            (false, b'[' | b'{') => depth += 1,
            (false, b']' | b'}') => {
                depth -= 1;
                if depth == 0 {
                    return start..i + 1;
                }
            }
            (false, _) => {}
        }
    }
    panic!("{key} does not close")
}

/// Turn n's body up to the end of its conversation, the closing bracket
/// left off, is where turn n+1's body begins; the `stable` keys (tools,
/// instructions) encode to the same bytes in both.
fn assert_prefix_extends(family: &str, bodies: &[Vec<u8>], conversation: &str, stable: &[&str]) {
    for (n, pair) in bodies.windows(2).enumerate() {
        let (before, after) = (&pair[0], &pair[1]);
        let end = span(before, conversation).end - 1;
        let same = before.iter().zip(after.iter()).take_while(|(a, b)| a == b).count();
        assert!(
            same >= end,
            "{family}: turn {n} and {} part at byte {same}, before the end of turn {n}'s {conversation} at {end}: \
             …{}… vs …{}…",
            n + 1,
            String::from_utf8_lossy(&before[same.saturating_sub(40)..(same + 40).min(before.len())]),
            String::from_utf8_lossy(&after[same.saturating_sub(40)..(same + 40).min(after.len())]),
        );
        for key in stable {
            assert_eq!(
                &before[span(before, key)],
                &after[span(after, key)],
                "{family}: {key} encodes the same in turns {n} and {}",
                n + 1
            );
        }
    }
}

fn bodies(codec: &impl HttpCodec) -> Vec<Vec<u8>> {
    (0..TURNS).map(|turn| codec.encode(&request(turn), true).unwrap().body.to_vec()).collect()
}

fn openai_codec() -> openai::Codec {
    openai::Codec::new(openai::Config::builder(openai::Preset::openai(), "gpt-4.1").api_key("sk-test").build().unwrap())
}

fn azure_codec() -> azure::Codec {
    let config = azure::Config::builder("https://example.openai.azure.com", "gpt-4o", "2024-12-01-preview");
    azure::Codec::new(config.api_key("azure-test-key").build().unwrap())
}

fn gemini_codec() -> gemini::Codec {
    gemini::Codec::new(gemini::Config::builder("gemini-2.5-flash").api_key("AIza-test").build().unwrap())
}

fn anthropic_config() -> anthropic::ConfigBuilder {
    anthropic::Config::builder("claude-sonnet-4-5").api_key("sk-ant-test")
}

fn bedrock_config(model: &str) -> bedrock::ConfigBuilder {
    bedrock::Config::builder("us-east-1", model).credentials(Credentials::new("AKIDEXAMPLE", "secret"))
}

const CLAUDE: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const NOVA: &str = "amazon.nova-pro-v1:0";

#[test]
fn chat_completions_turns_extend_the_previous_turns_bytes() {
    // The codec reuses the encoded history between requests (issue 20);
    // what it sends must extend byte for byte all the same.
    assert_prefix_extends("openai", &bodies(&openai_codec()), "messages", &["tools"]);
    assert_prefix_extends("azure", &bodies(&azure_codec()), "messages", &["tools"]);
}

#[test]
fn gemini_turns_extend_the_previous_turns_bytes() {
    assert_prefix_extends("gemini", &bodies(&gemini_codec()), "contents", &["tools", "systemInstruction"]);
}

#[test]
fn uncached_anthropic_and_bedrock_turns_extend_the_previous_turns_bytes() {
    let anthropic = anthropic::Codec::new(anthropic_config().no_cache().build().unwrap());
    assert_prefix_extends("anthropic", &bodies(&anthropic), "messages", &["tools", "system"]);
    for model in [CLAUDE, NOVA] {
        let bedrock = bedrock::Codec::new(bedrock_config(model).no_cache().build().unwrap());
        assert_prefix_extends(model, &bodies(&bedrock), "messages", &["toolConfig", "system"]);
    }
}

/// `body` without its cache marks: what the provider hashes.
fn unmarked(mut body: Value) -> Vec<u8> {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("cache_control");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => {
                items.retain(|item| item.get("cachePoint").is_none());
                items.iter_mut().for_each(strip);
            }
            _ => {}
        }
    }
    strip(&mut body);
    serde_json::to_vec(&body).unwrap()
}

/// Where the marks are: JSON pointers to every object holding `key`.
fn marks(value: &Value, key: &str, at: String, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if map.contains_key(key) {
                found.push(at.clone());
            }
            map.iter().for_each(|(k, v)| marks(v, key, format!("{at}/{k}"), found));
        }
        Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| marks(v, key, format!("{at}/{i}"), found)),
        _ => {}
    }
}

fn marked(body: &[u8], key: &str) -> (Value, Vec<String>) {
    let value: Value = serde_json::from_slice(body).unwrap();
    let mut found = Vec::new();
    marks(&value, key, String::new(), &mut found);
    (value, found)
}

/// The index of the user turn request `turn` ends with: the prompt, then
/// one assistant turn and one user turn of results per tool turn.
fn frontier(turn: usize) -> usize {
    2 * turn
}

#[test]
fn anthropic_breakpoints_mark_tools_system_and_the_moving_frontier() {
    let codec = anthropic::Codec::new(anthropic_config().build().unwrap());
    let bodies = bodies(&codec);
    for (turn, body) in bodies.iter().enumerate() {
        let (value, mut found) = marked(body, "cache_control");
        assert!(found.len() <= anthropic::MAX_BREAKPOINTS, "turn {turn}: {found:?}");
        let mut expected = vec!["/messages/0/content/0".to_string()];
        if turn > 0 {
            // The results turn this request ends with (the second result
            // block), and the one the previous request ended with.
            let previous = if turn == 1 { "/messages/0/content/0".into() } else { last_block(frontier(turn - 1)) };
            expected = vec![previous, last_block(frontier(turn))];
        }
        expected.extend(["/system/0".to_string(), "/tools/2".to_string()]);
        found.sort();
        expected.sort();
        assert_eq!(found, expected, "turn {turn}");
        assert_eq!(value["system"][0]["cache_control"], json!({"type": "ephemeral"}));
    }
    // What a mark leaves out of the hash extends turn by turn as well.
    let stripped: Vec<Vec<u8>> = bodies.iter().map(|b| unmarked(serde_json::from_slice(b).unwrap())).collect();
    assert_prefix_extends("anthropic (unmarked)", &stripped, "messages", &["tools", "system"]);
    let hour = anthropic::Codec::new(
        anthropic_config()
            .cache_control(anthropic::CacheControl::new().ttl(anthropic::CacheTtl::OneHour))
            .build()
            .unwrap(),
    );
    let (value, _) = marked(&hour.encode(&request(3), true).unwrap().body, "cache_control");
    assert_eq!(value["tools"][2]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
}

fn last_block(message: usize) -> String {
    format!("/messages/{message}/content/1")
}

#[test]
fn bedrock_cache_points_follow_the_model_and_move_with_the_frontier() {
    for (model, tools_point) in [(CLAUDE, true), (NOVA, false)] {
        let codec = bedrock::Codec::new(bedrock_config(model).build().unwrap());
        let bodies = bodies(&codec);
        for (turn, body) in bodies.iter().enumerate() {
            let (value, found) = marked(body, "cachePoint");
            assert!(found.len() <= bedrock::MAX_CACHE_POINTS, "{model} turn {turn}: {found:?}");
            let mut expected = vec!["/system/1".to_string()];
            if tools_point {
                expected.push("/toolConfig/tools/3".into());
            }
            // A point ends the last turn and the one the previous request
            // ended with: after the prompt's one block, or after two results.
            let end = |message: usize| format!("/messages/{message}/content/{}", if message == 0 { 1 } else { 2 });
            expected.push(end(frontier(turn)));
            if turn > 0 {
                expected.push(end(frontier(turn - 1)));
            }
            let mut found = found;
            found.sort();
            expected.sort();
            assert_eq!(found, expected, "{model} turn {turn}");
            assert_eq!(value["system"][1], json!({"cachePoint": {"type": "default"}}));
        }
        let stripped: Vec<Vec<u8>> = bodies.iter().map(|b| unmarked(serde_json::from_slice(b).unwrap())).collect();
        assert_prefix_extends(model, &stripped, "messages", &["toolConfig", "system"]);
    }
    // Models that do not document caching get no point unless asked.
    let llama = bedrock::Codec::new(bedrock_config("meta.llama3-70b-instruct-v1:0").build().unwrap());
    assert!(marked(&llama.encode(&request(2), true).unwrap().body, "cachePoint").1.is_empty());
    let asked = bedrock_config("meta.llama3-70b-instruct-v1:0").cache_point(bedrock::CachePoint::new());
    let asked = bedrock::Codec::new(asked.build().unwrap());
    assert!(!marked(&asked.encode(&request(2), true).unwrap().body, "cachePoint").1.is_empty());
}

/// What each family reports of its cache, in the shape it answers with,
/// normalized into `Usage`: cached tokens inside the input (USAGE-02).
#[test]
fn cached_usage_decodes_for_every_family() {
    use golem_providers::http::HttpResponseHead;
    let head = HttpResponseHead::new(200, vec![]);
    let request = request(1);
    let chat = br#"{"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 64}}}"#;
    for (family, usage) in [
        ("openai", openai_codec().decode(&request, &head, chat).unwrap().usage),
        ("azure", azure_codec().decode(&request, &head, chat).unwrap().usage),
    ] {
        assert_eq!(
            (usage.input_tokens, usage.cache_read_tokens, usage.uncached_input_tokens()),
            (100, 64, 36),
            "{family}"
        );
    }
    let body = br#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 100, "cachedContentTokenCount": 60, "candidatesTokenCount": 7}}"#;
    let usage = gemini_codec().decode(&request, &head, body).unwrap().usage;
    assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.uncached_input_tokens()), (100, 60, 40));
    let body = br#"{"type": "message", "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 60, "cache_creation_input_tokens": 30, "output_tokens": 5}}"#;
    let usage = anthropic::Codec::new(anthropic_config().build().unwrap()).decode(&request, &head, body).unwrap().usage;
    assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens), (100, 60, 30));
    let body =
        br#"{"output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}}, "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 5, "cacheReadInputTokens": 60, "cacheWriteInputTokens": 30}}"#;
    for model in [CLAUDE, NOVA] {
        let usage =
            bedrock::Codec::new(bedrock_config(model).build().unwrap()).decode(&request, &head, body).unwrap().usage;
        assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens), (100, 60, 30), "{model}");
    }
}

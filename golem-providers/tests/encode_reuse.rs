//! Reused history prefixes (issue 20): a Chat Completions codec reuses the
//! bytes it encoded for the unchanged beginning of a history, and every body
//! it sends is byte for byte what a fresh encode of the same request gives —
//! whether the history grew, was trimmed or repaired, belongs to another
//! conversation, moves between codecs, or is encoded by many threads at once.

use bytes::Bytes;
use golem_core::message::{Message, Part, PartKind, ToolCall};
use golem_core::model::Request;
use golem_core::tool::ToolDefinition;
use golem_providers::chat_completions::encode_body;
use golem_providers::codec::HttpCodec;
use golem_providers::openai::{Codec, Config, Preset};
use serde_json::json;
use std::sync::Arc;

fn codec(preset: Preset) -> Codec {
    Codec::new(Config::builder(preset, "m").api_key("sk-reuse-test").build().unwrap())
}

/// The body `codec` sends for `request`, checked against a fresh encode of
/// the same request with the same settings.
fn encode_checked(codec: &Codec, request: &Request, stream: bool) -> Bytes {
    let config = codec.config();
    let fresh = encode_body(request, Some(config.model()), config.tuning(), config.dialect(), stream).unwrap();
    let sent = codec.encode(request, stream).unwrap().body;
    assert_eq!(String::from_utf8_lossy(&sent), String::from_utf8_lossy(&fresh));
    sent
}

fn image() -> Part {
    Part::from_data(PartKind::Image, "image/png", Bytes::from_static(b"\x89PNG fake"))
}

/// Turn `turn` of a conversation: a tool call (every third without an id,
/// so its wire id is synthesized from the assistant ordinal) and its result
/// (every fourth with an image, which goes on a user message after the run
/// of tool messages).
fn turn(turn: usize) -> [Message; 2] {
    let id = if turn % 3 == 0 { String::new() } else { format!("call_{turn}_of_the_conversation") };
    let call = Message::assistant_calls(vec![ToolCall::new(&id, "lookup", format!(r#"{{"n":{turn}}}"#))]);
    let mut result = Message::tool_result(
        if id.is_empty() { format!("call_{}_1", turn + 1) } else { id },
        "lookup",
        format!("result {turn}"),
    );
    if turn % 4 == 1 {
        result = result.with_parts(vec![image()]);
    }
    [call, result]
}

fn tools() -> Arc<Vec<ToolDefinition>> {
    Arc::new(vec![ToolDefinition::new("lookup", "Look a number up.", json!({"type": "object"}))])
}

fn start(topic: &str) -> Vec<Message> {
    vec![Message::system("Be brief."), Message::user(format!("Tell me about {topic}."))]
}

/// A history as an agent run grows it, encoded each turn by one codec.
fn grow(codec: &Codec, history: &mut Vec<Message>, turns: std::ops::Range<usize>) {
    for t in turns {
        history.extend(turn(t));
        encode_checked(codec, &Request::new(history.clone()).with_tools(tools()), t % 2 == 0);
    }
}

#[test]
fn a_growing_history_encodes_as_a_fresh_one_every_turn() {
    for preset in [Preset::openai(), Preset::mistral()] {
        let codec = codec(preset);
        let mut history = start("numbers");
        encode_checked(&codec, &Request::new(history.clone()).with_tools(tools()), false);
        grow(&codec, &mut history, 0..20);
        history.push(Message::assistant("Done."));
        encode_checked(&codec, &Request::new(history.clone()), false);
        // Every turn took the previous turn's entry and extended it: a miss
        // would have left one entry per turn.
        let debug = format!("{codec:?}");
        assert!(debug.contains("histories: 1,"), "{debug}");
    }
}

#[test]
fn a_short_history_is_encoded_whole_and_not_kept() {
    // A run's first turns: the cache would cost more than it saves.
    let codec = codec(Preset::openai());
    let mut history = start("short");
    encode_checked(&codec, &Request::new(history.clone()).with_tools(tools()), false);
    grow(&codec, &mut history, 0..3);
    assert_eq!(history.len(), 8);
    let debug = format!("{codec:?}");
    assert!(debug.contains("histories: 0,"), "{debug}");
    // Grown past the threshold, the history is kept and then extended.
    grow(&codec, &mut history, 3..6);
    let debug = format!("{codec:?}");
    assert!(debug.contains("histories: 1,"), "{debug}");
}

#[test]
fn each_tool_set_is_sent_as_its_own_bytes() {
    // The codec keeps the last tool set's bytes by the set's `Arc`: another
    // set, an equal copy or no tools at all each encode as a fresh body.
    let codec = codec(Preset::openai());
    let history = start("tools");
    let a = tools();
    let b = Arc::new(vec![ToolDefinition::new(
        "convert",
        "Convert a unit.",
        json!({"type": "object", "properties": {"x": {"type": "number"}}}),
    )]);
    let copy = Arc::new(a.as_ref().clone());
    for set in [&a, &a, &b, &a, &copy, &Arc::new(Vec::new()), &b] {
        let body = encode_checked(&codec, &Request::new(history.clone()).with_tools(Arc::clone(set)), false);
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(value["tools"].as_array().map_or(0, Vec::len), set.len());
    }
}

#[test]
fn the_same_request_twice_as_a_retry_sends_the_same_bytes() {
    let codec = codec(Preset::openai());
    let mut history = start("retries");
    grow(&codec, &mut history, 0..3);
    let request = Request::new(history).with_tools(tools());
    assert_eq!(encode_checked(&codec, &request, false), encode_checked(&codec, &request, false));
}

#[test]
fn a_trimmed_history_encodes_as_a_fresh_one() {
    let codec = codec(Preset::openai());
    let mut history = start("trimming");
    grow(&codec, &mut history, 0..8);
    // Drop the oldest turns but keep the system message, as a trimming
    // policy does; then carry on growing the trimmed history.
    history.drain(2..8);
    encode_checked(&codec, &Request::new(history.clone()).with_tools(tools()), false);
    grow(&codec, &mut history, 8..12);
    // Cut the end off (a run resumed from an earlier point).
    history.truncate(5);
    encode_checked(&codec, &Request::new(history.clone()).with_tools(tools()), false);
}

#[test]
fn a_repaired_history_encodes_as_a_fresh_one() {
    let codec = codec(Preset::mistral());
    let mut history = start("repairs");
    grow(&codec, &mut history, 0..6);
    // A tool result rewritten in the middle, then a call id filled in.
    history[5].content = "result 1, corrected".into();
    encode_checked(&codec, &Request::new(history.clone()).with_tools(tools()), false);
    history[6].tool_calls[0].id = "filled_in".into();
    history[7].tool_call_id = "filled_in".into();
    encode_checked(&codec, &Request::new(history.clone()).with_tools(tools()), false);
    // A field that never reaches the wire still counts as a change: the
    // cache compares whole messages, so it cannot miss one that does.
    history[3].run_id = "run-2".into();
    grow(&codec, &mut history, 6..8);
}

#[test]
fn a_history_that_ends_in_tool_media_reuses_nothing_of_the_media_message() {
    // The media of trailing tool results go on a user message after them;
    // a later tool result would join that message, so it must never be
    // reused as it was.
    let codec = codec(Preset::openai());
    let mut history = start("media");
    history
        .push(Message::assistant_calls(vec![ToolCall::new("a", "lookup", "{}"), ToolCall::new("b", "lookup", "{}")]));
    history.push(Message::tool_result("a", "lookup", "first").with_parts(vec![image()]));
    encode_checked(&codec, &Request::new(history.clone()), false);
    history.push(Message::tool_result("b", "lookup", "second").with_parts(vec![image()]));
    encode_checked(&codec, &Request::new(history.clone()), false);
    history.push(Message::assistant("Two images."));
    encode_checked(&codec, &Request::new(history.clone()), false);
}

#[test]
fn conversations_interleaved_on_one_codec_and_moved_between_codecs_stay_their_own() {
    let shared = codec(Preset::openai());
    let fallback = codec(Preset::mistral());
    let mut a = start("apples");
    let mut b = start("bees");
    let mut c = start("apples"); // shares a's beginning, then differs
    for t in 0..10 {
        grow(&shared, &mut a, t..t + 1);
        grow(&shared, &mut b, t + 100..t + 101);
        grow(&shared, &mut c, t + 200..t + 201);
        // A fallback member with another dialect gets the same history.
        encode_checked(&fallback, &Request::new(a.clone()).with_tools(tools()), false);
        // A request a user builds by hand in between.
        encode_checked(&shared, &Request::new(vec![Message::user(format!("unrelated {t}"))]), true);
    }
}

#[test]
fn an_encode_error_mid_history_leaves_later_encodes_correct() {
    let codec = codec(Preset::openai());
    let mut history = start("errors");
    grow(&codec, &mut history, 0..4);
    let mut broken = history.clone();
    broken.push(Message::tool_result("", "lookup", "no call id"));
    assert!(codec.encode(&Request::new(broken), false).is_err());
    grow(&codec, &mut history, 4..6);
}

#[test]
fn concurrent_runs_on_one_client_each_send_their_own_bytes() {
    let codec = codec(Preset::openai());
    std::thread::scope(|scope| {
        for run in 0..8 {
            let codec = codec.clone();
            scope.spawn(move || {
                // Half the runs share a beginning, so their prefixes meet.
                let topic = if run % 2 == 0 { "even".to_string() } else { "odd".repeat(run) };
                let mut history = start(&topic);
                grow(&codec, &mut history, run * 10..run * 10 + 15);
            });
        }
    });
}

#[test]
fn a_long_lived_codec_keeps_a_bounded_number_of_histories() {
    let codec = codec(Preset::openai());
    for n in 0..300 {
        let mut history = start(&format!("topic {n}"));
        grow(&codec, &mut history, 0..5);
    }
    let debug = format!("{codec:?}");
    assert!(debug.contains("histories: 64,"), "{debug}");
    assert!(!debug.contains("topic"), "the cache's Debug shows sizes, not content: {debug}");
}

/// Every body field around the spliced messages array, and messages of each
/// kind: the bytes are exactly those the encoder wrote before it reused
/// prefixes (one serde struct for the whole body), captured from it.
#[test]
fn the_spliced_body_is_byte_for_byte_the_one_serde_wrote() {
    use golem_core::model::{OutputSchema, WireToolChoice};
    use golem_providers::chat_completions::Tuning;
    let tuning = Tuning::new()
        .temperature(0.5)
        .top_p(0.9)
        .max_tokens(64)
        .reasoning_effort("low")
        .parallel_tool_calls(true)
        .stop("END")
        .seed(7)
        .presence_penalty(-1.0)
        .frequency_penalty(0.5)
        .user("u\"1")
        .service_tier("flex");
    let codec = Codec::new(Config::builder(Preset::openai(), "gpt-\"x").api_key("sk").tuning(tuning).build().unwrap());
    let mut history = start("everything");
    history[1] = Message::user("look: \u{e9}\n").with_parts(vec![Part::from_url(PartKind::Image, "https://x/y.png")]);
    history.extend(turn(1));
    history.extend(turn(3));
    let request = Request::new(history)
        .with_tools(tools())
        .with_tool_choice(WireToolChoice::Tool("lookup".into()))
        .with_output_schema(OutputSchema::new("answer", json!({"type": "object"})));
    for (stream, expected) in [(false, EXACT), (true, EXACT_STREAM)] {
        // The first encode writes every message, the second reuses them all.
        for _ in 0..2 {
            assert_eq!(String::from_utf8_lossy(&encode_checked(&codec, &request, stream)), expected);
        }
    }
}

const EXACT: &str = r#"{"model":"gpt-\"x","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"look: é\n"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]},{"role":"assistant","tool_calls":[{"id":"call_1_of_the_conversation","type":"function","function":{"name":"lookup","arguments":"{\"n\":1}"}}]},{"role":"tool","content":"result 1","tool_call_id":"call_1_of_the_conversation"},{"role":"user","content":[{"type":"text","text":"<tool_result tool_name=\"lookup\" tool_call_id=\"call_1_of_the_conversation\">"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORyBmYWtl"}},{"type":"text","text":"</tool_result>"}]},{"role":"assistant","tool_calls":[{"id":"call_2_1","type":"function","function":{"name":"lookup","arguments":"{\"n\":3}"}}]},{"role":"tool","content":"result 3","tool_call_id":"call_4_1"}],"tools":[{"type":"function","function":{"name":"lookup","description":"Look a number up.","parameters":{"type":"object"}}}],"tool_choice":{"function":{"name":"lookup"},"type":"function"},"parallel_tool_calls":true,"response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":false,"schema":{"type":"object"}}},"temperature":0.5,"top_p":0.9,"max_completion_tokens":64,"reasoning_effort":"low","stop":["END"],"seed":7,"presence_penalty":-1.0,"frequency_penalty":0.5,"user":"u\"1","service_tier":"flex","stream":false}"#;

const EXACT_STREAM: &str = r#"{"model":"gpt-\"x","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"look: é\n"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]},{"role":"assistant","tool_calls":[{"id":"call_1_of_the_conversation","type":"function","function":{"name":"lookup","arguments":"{\"n\":1}"}}]},{"role":"tool","content":"result 1","tool_call_id":"call_1_of_the_conversation"},{"role":"user","content":[{"type":"text","text":"<tool_result tool_name=\"lookup\" tool_call_id=\"call_1_of_the_conversation\">"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORyBmYWtl"}},{"type":"text","text":"</tool_result>"}]},{"role":"assistant","tool_calls":[{"id":"call_2_1","type":"function","function":{"name":"lookup","arguments":"{\"n\":3}"}}]},{"role":"tool","content":"result 3","tool_call_id":"call_4_1"}],"tools":[{"type":"function","function":{"name":"lookup","description":"Look a number up.","parameters":{"type":"object"}}}],"tool_choice":{"function":{"name":"lookup"},"type":"function"},"parallel_tool_calls":true,"response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":false,"schema":{"type":"object"}}},"temperature":0.5,"top_p":0.9,"max_completion_tokens":64,"reasoning_effort":"low","stop":["END"],"seed":7,"presence_penalty":-1.0,"frequency_penalty":0.5,"user":"u\"1","service_tier":"flex","stream":true,"stream_options":{"include_usage":true}}"#;

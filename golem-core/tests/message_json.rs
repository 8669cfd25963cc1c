//! Durable message JSON (SPEC MSG-05): exact bytes pinned by a golden file,
//! additive-only reading, Go-compatible field names.

use golem_core::*;

fn conversation() -> Vec<Message> {
    vec![
        Message::system("Be brief."),
        Message::user("weather in Lagos?"),
        Message::assistant_calls(vec![ToolCall::new("call_1", "get_weather", r#"{"city":"Lagos"}"#)]),
        Message::tool_result("call_1", "get_weather", "31°C, sunny"),
        Message::assistant("It is 31°C and sunny in Lagos."),
    ]
}

#[test]
fn msg_05_golden_five_message_conversation() {
    let json = serde_json::to_string(&conversation()).unwrap();
    let golden = include_str!("fixtures/conversation.golden.json");
    assert_eq!(json.trim_end(), golden.trim_end());
    let back: Vec<Message> = serde_json::from_str(golden).unwrap();
    assert_eq!(back, conversation());
}

#[test]
fn msg_05_unknown_fields_ignored_missing_default_unknown_role_rejected() {
    let m: Message = serde_json::from_str(r#"{"role":"user","content":"hi","futureField":{"x":1}}"#).unwrap();
    assert_eq!(m, Message::user("hi"));
    let m: Message = serde_json::from_str(r#"{"role":"assistant"}"#).unwrap();
    assert_eq!(m, Message::new(Role::Assistant));
    assert!(serde_json::from_str::<Message>(r#"{"role":"wizard","content":"hi"}"#).is_err());
    assert!(serde_json::from_str::<Message>(r#"{"content":"hi"}"#).is_err());
}

#[test]
fn msg_05_every_field_camel_case() {
    let mut m = Message::tool_result("c", "t", "x");
    m.failed = true;
    m.run_id = "r".into();
    m.conversation_id = "k".into();
    let v = serde_json::to_value(&m).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["content", "conversationId", "failed", "role", "runId", "toolCallId", "toolName"]);
    let mut a = Message::assistant("");
    a.thinking = vec![golem_core::ThinkingBlock::text("hmm").with_signature("sig")];
    a.tool_calls = vec![ToolCall::new("i", "n", "{}").with_signature("ts")];
    let v = serde_json::to_value(&a).unwrap();
    assert_eq!(v["thinking"][0], serde_json::json!({"text": "hmm", "signature": "sig"}));
    assert_eq!(v["toolCalls"][0], serde_json::json!({"id": "i", "name": "n", "args": {}, "signature": "ts"}));
}

#[test]
fn msg_02_args_byte_exact_through_round_trip() {
    for raw in [r#"{"b":1,  "a":[1,2.50]}"#, r#"{"nested":{"z":null}}"#, "{}"] {
        let call = ToolCall::new("id", "t", raw);
        let json = serde_json::to_string(&call).unwrap();
        let back: ToolCall = serde_json::from_str(&json).unwrap();
        assert_eq!(back.args.as_str(), raw);
    }
    // Text cut off by a length stop is kept and stays "not an object".
    let call = ToolCall::new("id", "t", r#"{"city":"Lag"#);
    let back: ToolCall = serde_json::from_str(&serde_json::to_string(&call).unwrap()).unwrap();
    assert!(!back.args.is_object());
    assert_eq!(back.args.parse().unwrap(), serde_json::json!(r#"{"city":"Lag"#));
}

#[test]
fn hist_06_wire_normalisation() {
    assert_eq!(ToolArgs::new("").normalized_for_wire(), "{}");
    assert_eq!(ToolArgs::new(r#"{"a":1}"#).normalized_for_wire(), r#"{"a":1}"#);
    assert_eq!(ToolArgs::new("[1]").normalized_for_wire(), r#"{"truncated_args":"[1]"}"#);
}

#[test]
fn msg_03_parts_validate_and_share_bytes() {
    let png = bytes::Bytes::from_static(b"\x89PNG");
    let part = Part::image_data("image/png", png.clone());
    assert!(part.validate().is_ok());
    assert_eq!(part.data.as_ptr(), png.as_ptr(), "bytes are shared, not copied");
    assert!(Part::image_url("https://x/y.png").validate().is_ok());
    let mut both = part.clone();
    both.url = "https://x".into();
    assert!(both.validate().is_err());
    let no_type = {
        let mut built = part.clone();
        built.media_type = String::new();
        built
    };
    assert!(no_type.validate().is_err());
    let json = serde_json::to_value(&part).unwrap();
    assert_eq!(json, serde_json::json!({"kind": "image", "data": "iVBORw==", "mediaType": "image/png"}));
    let back: Part = serde_json::from_value(json).unwrap();
    assert_eq!(back, part);
}

#[test]
fn msg_04_thinking_validity() {
    let ok = golem_core::ThinkingBlock::text("t").with_signature("s");
    assert!(ok.is_valid());
    let redacted = golem_core::ThinkingBlock::redacted("opaque");
    assert!(redacted.is_valid());
    assert!(!{
        let mut built = redacted.clone();
        built.signature = "s".into();
        built
    }
    .is_valid());
    assert!(!ThinkingBlock::default().is_valid());
}

#[test]
fn msg_06_usage_arithmetic() {
    let mut u = Usage::new(100, 10).with_cache_read_tokens(30).with_cache_write_tokens(20);
    assert_eq!(u.uncached_input_tokens(), 50);
    assert_eq!(u.total_tokens(), 110);
    u.add(&Usage::new(u64::MAX, 1));
    assert_eq!(u.input_tokens, u64::MAX);
}

#[test]
fn msg_02_args_stay_byte_exact_inside_logged_inputs() {
    let raw = r#"{"b":1,  "a":[1,2.50]}"#;
    let response = Response::tool_calls(vec![ToolCall::new("c", "t", raw)]);
    let input = machine::Input::ModelFinished { id: machine::ModelCallId(3), result: Ok(Box::new(response)) };
    let back: machine::Input = serde_json::from_str(&serde_json::to_string(&input).unwrap()).unwrap();
    assert_eq!(back, input);
    // Inside internally tagged types serde offers no raw text: the value survives, re-serialised.
    let event = {
        let mut event = golem_core::RunEvent::new(
            0,
            EventKind::ToolStart { turn: 0, call_id: "c".into(), tool: "t".into(), args: raw.into(), approved: false },
        );
        event.run_id = Default::default();
        event.conversation_id = Default::default();
        event
    };
    let back: RunEvent = serde_json::from_str(&serde_json::to_string(&event).unwrap()).unwrap();
    let EventKind::ToolStart { args, .. } = back.kind else { panic!() };
    assert_eq!(args.parse().unwrap(), serde_json::json!({"b": 1, "a": [1, 2.5]}));
}

/// Equality is field by field (hand-written to skip `memcmp` on empty
/// text): a change to any one field, empty or not, makes messages differ.
#[test]
fn messages_differ_when_any_one_field_differs() {
    let mut full = Message::tool_result("id", "tool", "text")
        .with_parts(vec![Part::from_url(PartKind::Image, "https://x/y.png")])
        .with_thinking(vec![ThinkingBlock::text("hm")]);
    full.tool_calls = vec![ToolCall::new("c", "f", "{}").with_signature("s")];
    full.failed = true;
    full.run_id = "run".into();
    full.conversation_id = "conv".into();
    assert_eq!(full, full.clone());
    assert_eq!(Message::new(Role::User), Message::new(Role::User));
    let changes: Vec<fn(&mut Message)> = vec![
        |m| m.role = Role::User,
        |m| m.content.clear(),
        |m| m.content.push('!'),
        |m| m.parts.clear(),
        |m| m.tool_calls.clear(),
        |m| m.tool_calls[0].id.clear(),
        |m| m.tool_calls[0].name = "g".into(),
        |m| m.tool_calls[0].args = ToolArgs::new(""),
        |m| m.tool_calls[0].signature.clear(),
        |m| m.tool_call_id = "other".into(),
        |m| m.tool_name.clear(),
        |m| m.failed = false,
        |m| m.thinking.clear(),
        |m| m.run_id = Default::default(),
        |m| m.conversation_id = "conw".into(),
    ];
    for (n, change) in changes.iter().enumerate() {
        let mut changed = full.clone();
        change(&mut changed);
        assert_ne!(changed, full, "change {n}");
        assert_ne!(full, changed, "change {n}");
    }
}

mod tool_args_is_object {
    use golem_core::ToolArgs;
    use proptest::prelude::*;
    use serde_json::Value;

    fn by_value(text: &str) -> bool {
        matches!(serde_json::from_str(text), Ok(Value::Object(_)))
    }

    /// Text from JSON's tokens (and some that break it), so most inputs get
    /// far into the parser: nesting, numbers out of range, lone surrogates,
    /// duplicate keys, trailing garbage.
    fn jsonish() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            Just("{"),
            Just("}"),
            Just("["),
            Just("]"),
            Just(":"),
            Just(","),
            Just("\"a\""),
            Just("\"\\ud800\""),
            Just("\"\\u00e9\""),
            Just("1"),
            Just("1e400"),
            Just("-0.5"),
            Just("18446744073709551616"),
            Just("null"),
            Just("true"),
            Just(" "),
            Just("x"),
        ];
        prop::collection::vec(token, 0..48).prop_map(|tokens| tokens.concat())
    }

    proptest! {
        /// `is_object` answers exactly what a `serde_json::Value` parse
        /// answers, without building the value.
        #[test]
        fn agrees_with_a_value_parse(text in prop_oneof![jsonish(), any::<String>()]) {
            prop_assert_eq!(ToolArgs::new(text.clone()).is_object(), by_value(&text), "{:?}", text);
        }

        /// The machine's screen (`is_accepted`) takes exactly the calls
        /// whose arguments a handler can be given (`object`).
        #[test]
        fn is_accepted_agrees_with_object(text in prop_oneof![jsonish(), any::<String>(), Just(" \t\n".to_string())]) {
            let args = ToolArgs::new(text.clone());
            prop_assert_eq!(args.is_accepted(), args.object().is_some(), "{:?}", text);
        }

        #[test]
        fn agrees_on_objects_with_one_change(key in "[a-z]{1,3}", n in any::<f64>(), cut in 0usize..40) {
            let mut text = serde_json::json!({ key: [n, {"x": null}] }).to_string();
            prop_assert!(ToolArgs::new(text.clone()).is_object());
            text.truncate(cut.min(text.len()));
            prop_assert_eq!(ToolArgs::new(text.clone()).is_object(), by_value(&text), "{:?}", text);
        }
    }
}

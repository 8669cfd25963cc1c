//! Anthropic server tools on recorded traffic (web search, web fetch, code
//! execution): the declared built-in becomes the recorded `tools` entry;
//! the answer's `server_tool_use` and `*_tool_result` blocks decode into
//! provider parts (never client tool calls), plain and streamed alike and
//! at every split; fed back as history they are the next recorded request's
//! blocks, in place. Another family's request leaves them out; a built-in
//! Anthropic has not is refused before sending.

use crate::anthropic::{codec_for_recorded, expected_body, paragraphs, recorded, request_from_messages};
use crate::support::{self, assert_recorded_stream, drop_nulls, interactions};
use golem_core::builtin::{BuiltinTool, ProviderPart, ProviderPartKind, WebFetch, WebSearch};
use golem_core::message::{Message, Role};
use golem_core::model::{ModelErrorKind, Request, Response};
use golem_providers::codec::HttpCodec;
use serde_json::{json, Value};

const CASES: [&str; 5] = [
    "messages_web_search_replay_two_turns",
    "messages_web_fetch_replay_two_turns",
    "messages_code_execution_container_reuse_two_turns",
    "messages_stream_web_search",
    "messages_stream_web_fetch",
];

fn is_server(kind: &str) -> bool {
    kind == "server_tool_use" || (kind.ends_with("_tool_result") && kind != "tool_result")
}

/// The built-ins a recorded `tools` list declares.
fn builtins(body: &Value) -> Vec<BuiltinTool> {
    let tools = body["tools"].as_array().into_iter().flatten();
    tools
        .filter_map(|t| match t["name"].as_str() {
            Some("web_search") if t.get("input_schema").is_none() => Some(BuiltinTool::WebSearch(WebSearch::new())),
            Some("web_fetch") if t.get("input_schema").is_none() => Some(BuiltinTool::WebFetch(WebFetch::new())),
            Some("code_execution") => Some(BuiltinTool::CodeExecution),
            _ => None,
        })
        .collect()
}

/// The first user turn of a recorded body as golem history, with its
/// system text.
fn opening(body: &Value) -> Vec<Message> {
    let mut messages = Vec::new();
    if let Some(system) = body["system"].as_array() {
        messages.push(Message::system(system[0]["text"].as_str().unwrap()));
    }
    let first = &body["messages"][0]["content"][0]["text"];
    messages.push(Message::user(first.as_str().unwrap()));
    messages
}

/// The recorded body in golem's spelling: the
/// forced `auto` choice left out while thinking, the tool version golem
/// sends, adjacent texts joined (golem keeps an answer's text as one, with
/// a paragraph break after a server block),
/// citations left out of text (golem keeps the text), the system text as a
/// string.
fn expected(body: &Value) -> Value {
    let mut body = body.clone();
    let map = body.as_object_mut().unwrap();
    if let Some(Value::Array(system)) = map.get("system") {
        let text: String = system.iter().map(|b| b["text"].as_str().unwrap()).collect();
        map.insert("system".into(), Value::from(text));
    }
    if map.get("thinking").is_some() {
        map.remove("tool_choice");
    }
    for message in map["messages"].as_array_mut().unwrap() {
        let mut joined: Vec<Value> = Vec::new();
        let mut content = message["content"].as_array().unwrap().clone();
        if message["role"] == "assistant" {
            content = paragraphs(content);
        }
        for mut block in content {
            block.as_object_mut().unwrap().remove("citations");
            match joined.last_mut() {
                Some(last) if last["type"] == "text" && block["type"] == "text" => {
                    last["text"] =
                        Value::from(format!("{}{}", last["text"].as_str().unwrap(), block["text"].as_str().unwrap()));
                }
                _ => joined.push(block),
            }
        }
        message["content"] = Value::Array(joined);
    }
    body
}

/// Interaction `n` decoded; a stream through the stream decoder in one
/// piece (some cassettes of streams keep no response head).
fn decode(request: &Request, case: &str, n: usize, file: &str) -> Response {
    let body = recorded_request(case, n);
    let codec = codec_for_recorded(&body);
    if !file.ends_with(".sse") {
        return support::decode_recorded(&codec, request, ("anthropic", case, n), file, false);
    }
    let head = golem_providers::http::HttpResponseHead::new(200, vec![]);
    let (_, result) = support::run_stream(&codec, request, &head, [&recorded(case, file)[..]]);
    result.unwrap_or_else(|e| panic!("{case} {file}: {e}"))
}

/// Interaction `n` decoded with a bare 200 head (the rig cassettes are in
/// another YAML shape; the codec reads nothing from the head).
fn decode_bare(request: &Request, case: &str, file: &str) -> Response {
    if file.ends_with(".sse") {
        return decode(request, case, 1, file);
    }
    let codec = codec_for_recorded(&recorded_request(case, 1));
    let head = golem_providers::http::HttpResponseHead::new(200, vec![]);
    codec.decode(request, &head, &recorded(case, file)).unwrap_or_else(|e| panic!("{case} {file}: {e}"))
}

fn recorded_request(case: &str, n: usize) -> Value {
    support::recorded_request("anthropic", case, n)
}

/// The server blocks of a recorded answer, as JSON values.
fn server_blocks(case: &str, file: &str) -> Vec<Value> {
    if file.ends_with(".sse") {
        return Vec::new(); // counted from the parts instead
    }
    let body: Value = serde_json::from_slice(&recorded(case, file)).unwrap();
    body["content"].as_array().unwrap().iter().filter(|b| is_server(b["type"].as_str().unwrap())).cloned().collect()
}

#[test]
fn recorded_turns_declare_decode_and_replay_server_tools() {
    for case in CASES {
        let mut history: Vec<Message> = Vec::new();
        for (n, _, file) in interactions(&format!("anthropic/{case}")) {
            let body = recorded_request(case, n);
            if n == 1 {
                history = opening(&body);
            } else {
                let last = body["messages"].as_array().unwrap().last().unwrap();
                history.push(Message::user(last["content"][0]["text"].as_str().unwrap()));
            }
            let request = Request::new(history.clone()).with_builtin_tools(builtins(&body));
            let codec = codec_for_recorded(&body);
            let http = codec.encode(&request, body["stream"].as_bool().unwrap_or(false)).unwrap();
            let mut ours: Value = serde_json::from_slice(&http.body).unwrap();
            ours.as_object_mut().unwrap().remove("tool_choice");
            let mut want = expected(&body);
            want.as_object_mut().unwrap().remove("tool_choice");
            // The dated tool version is golem's choice; the rest must match.
            for (tool, recorded) in
                ours["tools"].as_array_mut().unwrap().iter_mut().zip(want["tools"].as_array().unwrap())
            {
                assert!(tool["type"].as_str().unwrap().starts_with(recorded["name"].as_str().unwrap()));
                tool["type"] = recorded["type"].clone();
            }
            // Null and absent are one to the API (the recorder wrote a
            // `citations: null` the answer did not have); compared without.
            drop_nulls(&mut ours);
            drop_nulls(&mut want);
            assert!(ours == want, "{case} {n}: request body\n ours: {}\n want: {}", short(&ours), short(&want));

            let response = decode(&request, case, n, &file);
            let message = &response.message;
            assert!(message.tool_calls.is_empty(), "{case} {n}: a server tool became a client call");
            assert!(message.provider_parts.iter().all(|p| p.provider == "anthropic"));
            let blocks = server_blocks(case, &file);
            if file.ends_with(".sse") {
                let kinds: Vec<_> = message.provider_parts.iter().map(|p| p.kind).collect();
                assert!(kinds.contains(&ProviderPartKind::Call) && kinds.contains(&ProviderPartKind::Result), "{case}");
            } else {
                let blocks_kept = message.provider_parts.iter().filter(|p| p.kind != ProviderPartKind::Metadata);
                let kept: Vec<Value> = blocks_kept.map(|p| p.raw.parse().unwrap()).collect();
                assert_eq!(kept, blocks, "{case} {n}: server blocks kept whole");
            }
            history.push(message.clone());
        }
    }
}

#[test]
fn recorded_streams_keep_their_server_blocks_at_every_split() {
    for case in ["messages_stream_web_search", "messages_stream_web_fetch", "messages_stream_code_execution"] {
        let body = recorded_request(case, 1);
        let codec = codec_for_recorded(&body);
        let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
        let sse = recorded(case, "01.response.sse");
        assert_recorded_stream(&codec, &request, &sse, case);
        let message = decode(&request, case, 1, "01.response.sse").message;
        assert!(message.tool_calls.is_empty(), "{case}");
        let calls = message.provider_parts.iter().filter(|p| p.kind == ProviderPartKind::Call);
        for call in calls {
            let raw: Value = call.raw.parse().unwrap();
            assert_eq!(raw["type"], "server_tool_use");
            assert!(raw["input"].as_object().is_some_and(|i| !i.is_empty()), "{case}: streamed input kept");
        }
    }
}

#[test]
fn a_whole_answer_and_its_stream_keep_the_same_parts() {
    let content = json!([
        {"type": "text", "text": "Let me look."},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "golem"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://e.x", "title": "E", "encrypted_content": "abc"}]},
        {"type": "text", "text": "Found it."}
    ]);
    let codec = crate::anthropic::codec();
    let request = Request::new(vec![Message::user("hi")]);
    let body = crate::anthropic::message_body(content.clone(), "end_turn");
    let head = golem_providers::http::HttpResponseHead::new(200, vec![]);
    let plain = codec.decode(&request, &head, body.to_string().as_bytes()).unwrap();
    let stream = crate::anthropic::stream_of(&content, "end_turn");
    let (_, streamed) = support::run_stream(&codec, &request, &head, [&stream[..]]);
    assert_eq!(streamed.unwrap().message, plain.message);
    let parts = &plain.message.provider_parts;
    assert_eq!(parts.len(), 2);
    // The text after the server blocks is a new paragraph; the parts stand
    // before the break.
    assert_eq!(plain.message.content, "Let me look.\n\nFound it.");
    assert_eq!((parts[0].at, parts[1].at), ("Let me look.".len(), "Let me look.".len()));
    assert_eq!((parts[0].id.as_str(), parts[1].id.as_str()), ("srvtoolu_1", "srvtoolu_1"));

    // Replayed in place to Anthropic, the break leading the later text block.
    let replay = Request::new(vec![Message::user("hi"), plain.message.clone(), Message::user("more")]);
    let sent: Value = serde_json::from_slice(&codec.encode(&replay, false).unwrap().body).unwrap();
    let later = json!({"type": "text", "text": "\n\nFound it."});
    assert_eq!(sent["messages"][1]["content"], json!([content[0], content[1], content[2], later]));

    // Dropped for another family.
    let gemini = crate::gemini::codec();
    let sent: Value = serde_json::from_slice(&gemini.encode(&replay, false).unwrap().body).unwrap();
    assert_eq!(sent["contents"][1]["parts"], json!([{"text": "Let me look.\n\nFound it."}]));
}

/// The paragraph rule on made-up answers: adjacent text blocks (as
/// citations cut them) join as they are; text after another kind of block
/// gets a break unless whitespace is already there or no text came before;
/// plain and streamed agree.
#[test]
fn text_after_another_block_starts_a_paragraph() {
    let search = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}});
    let text = |t: &str| json!({"type": "text", "text": t});
    let thinking = json!({"type": "thinking", "thinking": "hm", "signature": "sig"});
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}});
    let cases = [
        (json!([text("A cited"), text(" sentence."), text(" More.")]), "A cited sentence. More."),
        (json!([text("One."), search.clone(), text("Two.")]), "One.\n\nTwo."),
        (json!([text("One.\n"), search.clone(), text("Two.")]), "One.\nTwo."),
        (json!([text("One."), search.clone(), text(" Two.")]), "One. Two."),
        (json!([search.clone(), text("Two.")]), "Two."),
        (json!([thinking.clone(), text("Two.")]), "Two."),
        (json!([text("One."), thinking, text(""), text("Two.")]), "One.\n\nTwo."),
        (json!([text("One."), call, text("Two."), text("Three.")]), "One.\n\nTwo.Three."),
    ];
    let codec = crate::anthropic::codec();
    let request = Request::new(vec![Message::user("hi")]);
    let head = golem_providers::http::HttpResponseHead::new(200, vec![]);
    for (content, want) in cases {
        let body = crate::anthropic::message_body(content.clone(), "end_turn");
        let plain = codec.decode(&request, &head, body.to_string().as_bytes()).unwrap();
        assert_eq!(plain.message.content, want, "{content}");
        let stream = crate::anthropic::stream_of(&content, "end_turn");
        let (_, streamed) = support::run_stream(&codec, &request, &head, [&stream[..]]);
        assert_eq!(streamed.unwrap().message, plain.message, "{content}");
    }
}

/// On recorded answers with text on both sides of a server tool's blocks:
/// the later text is a new paragraph (where the raw blocks would read
/// "…information.I found…"), the text cut by citations stays joined with
/// nothing inserted, parts stand before the break, and every split of a
/// stream agrees with the whole.
#[test]
fn recorded_answers_separate_text_around_server_blocks() {
    let joints = [
        ("messages_stream_tool_use_input_json_delta", "01.response.sse", "information.\n\nI found the right tool!"),
        ("messages_stream_code_execution", "01.response.sse", "right away!\n\nFollowing the standard"),
        ("messages_web_search_dynamic_filtering", "01.response.json", "AAPL and GOOGL.\n\nThe result is a JSON"),
        ("messages_web_search_dynamic_filtering", "01.response.json", "correctly.\n\nI have the data"),
    ];
    for (case, file, joint) in joints {
        let body = recorded_request(case, 1);
        let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
        let message = decode_bare(&request, case, file).message;
        assert!(message.content.contains(joint), "{case}: {:?}", message.content);
        // Some part stands right before the break.
        let (before, _) = joint.split_once("\n\n").unwrap();
        let at = message.content.find(joint).unwrap() + before.len();
        assert!(message.provider_parts.iter().any(|p| p.at == at), "{case}: a part stands before the break");
        if file.ends_with(".sse") {
            let codec = codec_for_recorded(&body);
            assert_recorded_stream(&codec, &request, &recorded(case, file), case);
        }
    }
    // Cited passages: adjacent blocks, nothing between them.
    let body = recorded_request("messages_web_search_dynamic_filtering", 1);
    let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
    let message = decode_bare(&request, "messages_web_search_dynamic_filtering", "01.response.json").message;
    assert!(message.content.contains("- **Stock Price:** As of 2026-08-13, Apple's share price is $304.24.\n- **P/E"));
    let body = recorded_request("messages_web_search_replay_two_turns", 1);
    let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
    let message = decode(&request, "messages_web_search_replay_two_turns", 1, "01.response.json").message;
    assert!(
        message.content.contains("- Temperature: 66°F with clear skies\n- Wind: W at 3 mph"),
        "{}",
        message.content
    );
    assert!(!message.content.starts_with('\n'), "no break before the first text");
}

#[test]
fn a_built_in_anthropic_has_not_is_refused_before_sending() {
    let codec = crate::anthropic::codec();
    let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![BuiltinTool::UrlContext]);
    let error = codec.encode(&request, false).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Unsupported);
    assert!(error.message.contains("url_context"), "{error}");
    assert!(!codec.capabilities().builtin_tools.supports(&BuiltinTool::UrlContext));
    assert!(codec.capabilities().builtin_tools.supports(&BuiltinTool::CodeExecution));
}

/// A server tool's version is picked per client; golem's default goes
/// otherwise, and a version that is not the tool's (or a tool Anthropic
/// has not) is refused when the config is built, with a typed error.
#[test]
fn server_tool_versions_are_picked_per_client_and_checked() {
    use golem_providers::anthropic::{Codec, Config, Tuning};
    use golem_providers::config::ConfigError;
    use golem_providers::tuning::TuningError;
    let config = |tuning: Tuning| Config::builder("claude-opus-4-8").api_key("k").tuning(tuning).build();
    let request = Request::new(vec![Message::user("hi")])
        .with_builtin_tools(vec![BuiltinTool::WebSearch(WebSearch::new()), BuiltinTool::CodeExecution]);
    let types = |tuning: Tuning| -> Vec<Value> {
        let codec = Codec::new(config(tuning).unwrap());
        let sent: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
        sent["tools"].as_array().unwrap().iter().map(|t| t["type"].clone()).collect()
    };
    assert_eq!(types(Tuning::new()), [json!("web_search_20250305"), json!("code_execution_20260120")]);
    let picked = Tuning::new().server_tool_version("web_search", "web_search_20260209");
    assert_eq!(types(picked), [json!("web_search_20260209"), json!("code_execution_20260120")]);

    for (tool, version) in [
        ("web_search", "web_fetch_20250910"),
        ("web_search", "web_search_"),
        ("web_search", "web_search20260209"),
        ("web_search", "web_search_2026 02"),
        ("code_execution", "web_search_20260209"),
    ] {
        let error = config(Tuning::new().server_tool_version(tool, version)).unwrap_err();
        let want = TuningError::ServerToolVersion { tool: tool.into(), version: version.into() };
        assert_eq!(error, ConfigError::InvalidTuning(want), "{tool} {version}");
    }
    let error = config(Tuning::new().server_tool_version("memory", "memory_20250818")).unwrap_err();
    let want = TuningError::UnknownServerTool { tool: "memory".into(), provider: "Anthropic" };
    assert_eq!(error, ConfigError::InvalidTuning(want));
    assert!(error.to_string().contains("memory"), "{error}");
}

#[test]
fn web_search_options_are_sent() {
    use golem_core::builtin::UserLocation;
    let codec = crate::anthropic::codec();
    let search = WebSearch::new()
        .allowed_domains(["example.com"])
        .max_uses(2)
        .user_location(UserLocation::new().city("Paris").country("FR"));
    let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![BuiltinTool::WebSearch(search)]);
    let sent: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
    assert_eq!(
        sent["tools"],
        json!([{
            "type": "web_search_20250305", "name": "web_search", "allowed_domains": ["example.com"], "max_uses": 2,
            "user_location": {"type": "approximate", "city": "Paris", "country": "FR"}
        }])
    );
}

/// A body with long strings cut, for a readable failure.
fn short(value: &Value) -> String {
    fn cut(value: &Value) -> Value {
        match value {
            Value::String(s) if s.len() > 40 => {
                Value::from(format!("{}…", &s[..s.char_indices().nth(40).map_or(s.len(), |(i, _)| i)]))
            }
            Value::Array(items) => Value::Array(items.iter().map(cut).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), cut(v))).collect()),
            other => other.clone(),
        }
    }
    cut(value).to_string()
}

/// The code-execution container an answer names is kept (a `Metadata`
/// part after the text, plain and streamed alike) and the next request
/// runs in it: the recorded follow-up's top-level `container`. Only the
/// latest turn's container counts, another family's never, and
/// `count_tokens` does not take the field.
#[test]
fn the_code_execution_container_is_reused_next_turn() {
    let case = "messages_code_execution_container_reuse_two_turns";
    let body = recorded_request(case, 1);
    let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
    let first = decode(&request, case, 1, "01.response.json").message;
    let container = first.provider_parts.last().unwrap();
    assert_eq!((container.kind, container.name.as_str()), (ProviderPartKind::Metadata, "container"));
    assert_eq!(container.id, "container_011Caqgq9X3d68B2So2LZGmk");
    assert_eq!(container.at, first.content.len());
    let raw: Value = container.raw.parse().unwrap();
    assert_eq!(raw["expires_at"], "2026-05-08T20:54:01.401735Z");

    // The follow-up: the recorded body's `container`, and no block for it.
    let next = recorded_request(case, 2);
    let history = vec![first.clone(), Message::user("And what about 4 * 12390?")];
    let request = Request::new([opening(&body), history].concat()).with_builtin_tools(builtins(&body));
    let codec = codec_for_recorded(&next);
    let sent: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
    assert_eq!(sent["container"], next["container"]);
    assert_eq!(sent["messages"][1]["content"].as_array().unwrap().len(), 3, "server call, result, text");
    let config = golem_providers::anthropic::Config::builder("claude-sonnet-4-5").api_key("k").build().unwrap();
    let counted = golem_providers::anthropic::encode_count_tokens_body(&request, &config).unwrap();
    let counted: Value = serde_json::from_slice(&counted).unwrap();
    assert!(counted.get("container").is_none());

    // The latest container wins; a history without one sends none; another
    // family's metadata is not Anthropic's.
    let mut later = first.clone();
    let part = later.provider_parts.last_mut().unwrap();
    part.id = "container_later".into();
    let two = Request::new(vec![Message::user("a"), first.clone(), Message::user("b"), later, Message::user("c")]);
    let sent: Value = serde_json::from_slice(&codec.encode(&two, false).unwrap().body).unwrap();
    assert_eq!(sent["container"], "container_later");
    let mut foreign = first.clone();
    foreign.provider_parts.iter_mut().for_each(|p| p.provider = "gemini".into());
    let none = Request::new(vec![Message::user("a"), foreign, Message::user("b")]);
    let sent: Value = serde_json::from_slice(&codec.encode(&none, false).unwrap().body).unwrap();
    assert!(sent.get("container").is_none());

    // A stream names it in message_delta; the part is the same shape.
    let case = "messages_stream_code_execution";
    let body = recorded_request(case, 1);
    let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
    let streamed = decode(&request, case, 1, "01.response.sse").message;
    let container = streamed.provider_parts.last().unwrap();
    assert_eq!((container.name.as_str(), container.id.as_str()), ("container", "container_011CaNRFAbjdPf4rmBarZzqQ"));
    assert_eq!(container.at, streamed.content.len());
}

/// rig's recording of a search whose blocks are echoed back before a
/// mid-conversation `system` turn: the answer decodes into the call, the
/// result (with its `caller`) and the cited text; a history holding those
/// blocks as provider parts — as rig sent them — with the system turn in
/// place is the recorded second request.
#[test]
fn a_search_echoed_before_a_mid_conversation_system_turn_is_the_recorded_request() {
    let case = "messages_web_search_echoed_with_mid_system";
    let body = recorded_request(case, 1);
    let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
    let answer = decode_bare(&request, case, "01.response.json").message;
    assert_eq!(answer.content, "A clear daytime sky is blue.");
    let kinds: Vec<_> = answer.provider_parts.iter().map(|p| (p.kind, p.name.as_str())).collect();
    assert_eq!(kinds, [(ProviderPartKind::Call, "web_search"), (ProviderPartKind::Result, "web_search_tool_result")]);
    assert!(answer
        .provider_parts
        .iter()
        .all(|p| p.at == 0 && p.id == "srvtoolu_01STExnVTfC6tsdFkfkKzUCe" || p.id == "toolu_REDACTED_1"));

    let next = recorded_request(case, 2);
    let echoed = next["messages"][0]["content"].as_array().unwrap();
    // What rig echoed is the decoded blocks without the result's `caller`.
    for (part, block) in answer.provider_parts.iter().zip(echoed) {
        let mut raw: Value = part.raw.parse().unwrap();
        raw.as_object_mut().unwrap().remove("caller");
        assert_eq!(&raw, block);
    }
    let mut request = request_from_messages(&next);
    let first = request.messages.iter().position(|m| m.role == Role::Assistant).unwrap();
    request.messages_mut()[first].provider_parts = echoed
        .iter()
        .map(|block| {
            let kind =
                if block["type"] == "server_tool_use" { ProviderPartKind::Call } else { ProviderPartKind::Result };
            ProviderPart::new("anthropic", kind, block.to_string())
        })
        .collect();
    let mut ours: Value =
        serde_json::from_slice(&codec_for_recorded(&next).encode(&request, false).unwrap().body).unwrap();
    ours.as_object_mut().unwrap().remove("stream");
    let mut want = expected_body(&next);
    drop_nulls(&mut ours);
    drop_nulls(&mut want);
    assert_eq!(ours, want);
    let roles: Vec<&str> = ours["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["assistant", "system", "assistant", "user"]);
}

/// rig's recording of web search with dynamic filtering (the search runs
/// code): the first request whole, the tool's version picked in the tuning;
/// every `server_tool_use`, `web_search_tool_result` and
/// `code_execution_tool_result` decoded in place with the text around
/// them, the container kept; replayed next turn, the assistant turn is the
/// recorded blocks (citations left out, texts joined as golem joins them)
/// and the request carries the container.
#[test]
fn a_search_with_dynamic_filtering_decodes_and_replays() {
    let case = "messages_web_search_dynamic_filtering";
    let body = recorded_request(case, 1);
    let request = Request::new(opening(&body)).with_builtin_tools(builtins(&body));
    let codec = codec_for_recorded(&body);
    let mut ours: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
    // The version is the client's pick (`Tuning::server_tool_version`).
    assert_eq!(ours["tools"][0]["type"], "web_search_20260209");
    ours.as_object_mut().unwrap().remove("stream");
    assert_eq!(ours, body);

    let answer = decode_bare(&request, case, "01.response.json");
    assert_eq!(answer.finish_reason, golem_core::FinishReason::Length);
    let message = &answer.message;
    assert!(message.tool_calls.is_empty());
    let recorded: Value = serde_json::from_slice(&recorded(case, "01.response.json")).unwrap();
    let content = recorded["content"].as_array().unwrap();
    let server: Vec<&Value> = content.iter().filter(|b| is_server(b["type"].as_str().unwrap())).collect();
    let blocks: Vec<&golem_core::builtin::ProviderPart> =
        message.provider_parts.iter().filter(|p| p.kind != ProviderPartKind::Metadata).collect();
    assert_eq!(blocks.len(), server.len());
    for (part, block) in blocks.iter().zip(&server) {
        let raw: Value = part.raw.parse().unwrap();
        assert_eq!(&&raw, block);
    }
    let container = message.provider_parts.last().unwrap();
    assert_eq!(
        (container.name.as_str(), container.id.as_str()),
        ("container", recorded["container"]["id"].as_str().unwrap())
    );

    let history = vec![Message::user("q"), message.clone(), Message::user("and MSFT?")];
    let sent: Value = serde_json::from_slice(&codec.encode(&Request::new(history), false).unwrap().body).unwrap();
    assert_eq!(sent["container"], recorded["container"]["id"]);
    let want = expected(&json!({"messages": [{"role": "assistant", "content": content}]}));
    assert_eq!(sent["messages"][1]["content"], want["messages"][0]["content"]);
}

//! Chat Completions on recorded traffic: web search as `web_search_options`
//! (context size from the tuning, the user's location from the declared
//! built-in), JSON mode as `response_format: json_object`; the answers
//! decode. Web search is the search models' only; other built-ins and
//! search options the API has no field for are refused before sending.

use crate::support::{case_dir, cassette_head, drop_nulls, read, read_json, request_from_recorded};
use golem_core::builtin::{BuiltinTool, UserLocation, WebSearch};
use golem_core::message::Message;
use golem_core::model::{ModelErrorKind, Request};
use golem_providers::codec::HttpCodec;
use golem_providers::openai::{Codec, Config, Preset, Tuning};
use serde_json::{json, Value};

fn codec(model: &str, tuning: Tuning) -> Codec {
    Codec::new(Config::builder(Preset::openai(), model).api_key("sk-test").tuning(tuning).build().unwrap())
}

fn body(codec: &Codec, request: &Request) -> Value {
    let mut sent: Value = serde_json::from_slice(&codec.encode(request, false).unwrap().body).unwrap();
    drop_nulls(&mut sent);
    sent
}

fn search_of(options: &Value) -> BuiltinTool {
    let mut search = WebSearch::new();
    if let Some(approximate) = options.pointer("/user_location/approximate") {
        let field = |f: &str| approximate[f].as_str().unwrap_or_default().to_string();
        let location = UserLocation::new().city(field("city")).country(field("country")).region(field("region"));
        search = search.user_location(location.timezone(field("timezone")));
    }
    BuiltinTool::WebSearch(search)
}

#[test]
fn web_search_options_match_the_recordings() {
    for case in
        ["chat_web_search_options", "chat_web_search_options_user_location", "chat_web_search_options_url_citation"]
    {
        let dir = case_dir(&format!("openai/{case}"));
        let mut recorded = read_json(&dir.join("01.request.json"));
        drop_nulls(&mut recorded);
        let options = &recorded["web_search_options"];
        let mut tuning = Tuning::new();
        if let Some(size) = options["search_context_size"].as_str() {
            tuning = tuning.search_context_size(size);
        }
        let codec = codec(recorded["model"].as_str().unwrap(), tuning);
        assert!(codec.capabilities().builtin_tools.supports(&search_of(options)), "{case}: a search model");
        let request = request_from_recorded(&recorded).with_builtin_tools(vec![search_of(options)]);
        let sent = body(&codec, &request);
        assert_eq!(sent["web_search_options"], *options, "{case}");
        assert_eq!(sent["messages"], recorded["messages"], "{case}");

        let head = golem_providers::http::HttpResponseHead::new(200, vec![]);
        let response = codec.decode(&request, &head, &read(&dir.join("01.response.json"))).unwrap();
        assert!(!response.message.content.is_empty(), "{case}");
        assert!(response.message.tool_calls.is_empty(), "{case}");
    }
}

#[test]
fn json_object_mode_matches_the_recording() {
    let case = "openai/chat_response_format_json_object";
    let dir = case_dir(case);
    let recorded = read_json(&dir.join("01.request.json"));
    let codec = codec(recorded["model"].as_str().unwrap(), Tuning::new().json_object(true));
    let request = request_from_recorded(&recorded);
    let sent = body(&codec, &request);
    assert_eq!(sent["response_format"], json!({"type": "json_object"}));
    assert_eq!(sent["messages"], recorded["messages"]);
    let response = codec.decode(&request, &cassette_head(case, 1), &read(&dir.join("01.response.json"))).unwrap();
    assert!(!response.message.content.is_empty() || !response.message.tool_calls.is_empty());

    // A native schema, when the run has one, takes JSON mode's place.
    let schema = golem_core::model::OutputSchema::new("out", json!({"type": "object"}));
    let with_schema = body(&codec, &request.clone().with_output_schema(schema));
    assert_eq!(with_schema["response_format"]["type"], "json_schema");
}

#[test]
fn what_chat_completions_cannot_search_with_is_refused() {
    let plain = codec("gpt-4o", Tuning::new());
    assert!(!plain.capabilities().builtin_tools.supports(&BuiltinTool::WebSearch(WebSearch::new())));
    let search = codec("gpt-4o-search-preview", Tuning::new());
    for refused in [BuiltinTool::CodeExecution, BuiltinTool::WebSearch(WebSearch::new().allowed_domains(["a.b"]))] {
        let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![refused.clone()]);
        let error = search.encode(&request, false).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Unsupported, "{refused:?}");
        assert!(error.message.contains(refused.name()), "{error}");
    }
}

/// BUILTIN-02: a search model's `url_citation` annotations are kept on the message as
/// one metadata provider part — from a whole response and from a stream
/// alike (split at every byte) — and never sent back on the next turn.
#[test]
fn url_citations_are_kept_as_metadata_and_not_replayed() {
    use crate::support::assert_split_invariant;
    use golem_core::builtin::ProviderPartKind;

    let case = "openai/chat_web_search_options_url_citation";
    let dir = case_dir(case);
    let recorded = read_json(&dir.join("01.request.json"));
    let codec = codec(recorded["model"].as_str().unwrap(), Tuning::new());
    let request = request_from_recorded(&recorded);
    let answer = read(&dir.join("01.response.json"));
    let head = golem_providers::http::HttpResponseHead::new(200, vec![]);
    let response = codec.decode(&request, &head, &answer).unwrap();
    let wire: Value = serde_json::from_slice(&answer).unwrap();
    let annotations = &wire["choices"][0]["message"]["annotations"];
    let parts = &response.message.provider_parts;
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!((parts[0].kind, parts[0].name.as_str()), (ProviderPartKind::Metadata, "annotations"));
    assert_eq!(parts[0].provider, "openai");
    assert_eq!(serde_json::from_str::<Value>(parts[0].raw.as_str()).unwrap(), *annotations);
    assert!(annotations.as_array().unwrap().len() >= 2);

    // The same answer streamed: content in two chunks, the annotations in
    // a chunk of their own (as search models send them), then the finish.
    let content = wire["choices"][0]["message"]["content"].as_str().unwrap();
    let (a, b) = content.split_at(content.char_indices().nth(40).unwrap().0);
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": a}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": b}}]}),
        json!({"choices": [{"index": 0, "delta": {"annotations": annotations}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ];
    let sse: String = chunks.iter().map(|c| format!("data: {c}\n\n")).chain(["data: [DONE]\n\n".into()]).collect();
    assert_split_invariant(&codec, &request, &head, sse.as_bytes(), case);
    let (_, streamed) = crate::support::run_stream(&codec, &request, &head, [sse.as_bytes()]);
    let streamed = streamed.unwrap();
    assert_eq!(streamed.message.content, response.message.content);
    assert_eq!(streamed.message.provider_parts, response.message.provider_parts);

    // Next turn: the assistant message goes back without its annotations.
    let mut next = request.clone();
    next.messages_mut().push(response.message.clone());
    next.messages_mut().push(Message::user("And Ruby 4?"));
    let sent = body(&codec, &next);
    let assistant = &sent["messages"].as_array().unwrap()[next.messages.len() - 2];
    assert_eq!(assistant["content"], json!(content));
    assert!(assistant.get("annotations").is_none(), "{assistant}");
}

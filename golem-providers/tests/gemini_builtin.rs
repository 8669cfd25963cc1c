//! Gemini built-in tools on recorded traffic (Google Search grounding,
//! code execution, URL context): the declared built-in becomes the
//! recorded `tools` entry; `executableCode` / `codeExecutionResult` parts
//! decode into provider parts kept whole (signature included) and go back
//! in place next turn, grounding and URL-context metadata into metadata
//! parts the next request leaves out; plain and streamed, at every split.

use crate::gemini::{codec_for_recorded, expected_body, recorded, request_from_contents};
use crate::support::{assert_split_invariant, drop_nulls, interactions, run_stream};
use golem_core::builtin::{BuiltinTool, ProviderPartKind, WebSearch};
use golem_core::message::{Message, Role};
use golem_core::model::{ModelErrorKind, Request, Response};
use golem_providers::codec::HttpCodec;
use golem_providers::gemini::Codec;
use golem_providers::http::HttpResponseHead;
use serde_json::{json, Value};

const CASES: [&str; 7] = [
    "generate_content_code_execution_two_turns",
    "generate_content_google_search_two_turns",
    "generate_content_url_context",
    "stream_code_execution",
    "stream_code_execution_failed_outcome",
    "stream_google_search",
    "stream_url_context",
];

fn builtins(body: &Value) -> Vec<BuiltinTool> {
    let tools = body["tools"].as_array().into_iter().flatten();
    tools
        .filter_map(|t| {
            let t = t.as_object().unwrap();
            if t.contains_key("googleSearch") || t.contains_key("google_search") {
                Some(BuiltinTool::WebSearch(WebSearch::new()))
            } else if t.contains_key("codeExecution") || t.contains_key("code_execution") {
                Some(BuiltinTool::CodeExecution)
            } else if t.contains_key("urlContext") || t.contains_key("url_context") {
                Some(BuiltinTool::UrlContext)
            } else {
                None
            }
        })
        .collect()
}

/// Signatures in one base64 alphabet: the recorder re-encoded them
/// URL-safe; the API sent (and golem replays) the standard one.
fn standard_signatures(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match item {
                    Value::String(s) if key == "thoughtSignature" => *s = s.replace('-', "+").replace('_', "/"),
                    other => standard_signatures(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(standard_signatures),
        _ => {}
    }
}

fn head() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![])
}

fn decode(codec: &Codec, request: &Request, case: &str, file: &str) -> Response {
    let body = recorded(case, file);
    if !file.ends_with(".sse") {
        return codec.decode(request, &head(), &body).unwrap_or_else(|e| panic!("{case} {file}: {e}"));
    }
    let (_, result) = run_stream(codec, request, &head(), [&body[..]]);
    result.unwrap_or_else(|e| panic!("{case} {file}: {e}"))
}

#[test]
fn recorded_turns_declare_decode_and_replay_built_ins() {
    for case in CASES {
        let mut previous: Option<Message> = None;
        for (n, _, file) in interactions(&format!("gemini/{case}")) {
            let body: Value = serde_json::from_slice(&recorded(case, &format!("{n:02}.request.json"))).unwrap();
            let mut request = request_from_contents(&body).with_builtin_tools(builtins(&body));
            assert!(!request.builtin_tools.is_empty(), "{case}");
            if let Some(ours) = previous.take() {
                let at = request.messages.iter().rposition(|m| m.role == Role::Assistant).unwrap();
                request.messages_mut()[at] = ours;
            }
            let codec = codec_for_recorded(case, &body);
            let mut sent: Value =
                serde_json::from_slice(&codec.encode(&request, file.ends_with(".sse")).unwrap().body).unwrap();
            let mut want = expected_body(&body);
            for body in [&mut sent, &mut want] {
                standard_signatures(body);
                drop_nulls(body);
                // One recorder wrote `thought: false` on plain text parts.
                for turn in body["contents"].as_array_mut().unwrap() {
                    for part in turn["parts"].as_array_mut().unwrap() {
                        if part.get("thought") == Some(&Value::Bool(false)) {
                            part.as_object_mut().unwrap().remove("thought");
                        }
                    }
                }
            }
            // Sampling settings are another test's; the conversation and tools are this one's.
            assert_eq!(sent["contents"], want["contents"], "{case} {n}: contents");
            assert_eq!(sent["tools"], want["tools"], "{case} {n}: tools");

            let response = decode(&codec, &request, case, &file);
            let message = &response.message;
            assert!(message.tool_calls.is_empty(), "{case} {n}: a built-in became a client call");
            assert!(message.provider_parts.iter().all(|p| p.provider == "gemini"));
            if n == 1 {
                let kinds: Vec<_> = message.provider_parts.iter().map(|p| p.kind).collect();
                let expected_kind =
                    if case.contains("code_execution") { ProviderPartKind::Call } else { ProviderPartKind::Metadata };
                assert!(kinds.contains(&expected_kind), "{case}: {kinds:?}");
            }
            if file.ends_with(".sse") {
                assert_split_invariant(&codec, &request, &head(), &recorded(case, &file), case);
            }
            previous = Some(response.message);
        }
    }
}

#[test]
fn code_parts_keep_their_place_and_signature() {
    let case = "generate_content_code_execution_two_turns";
    let body: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
    let codec = codec_for_recorded(case, &body);
    let request = request_from_contents(&body).with_builtin_tools(builtins(&body));
    let message = decode(&codec, &request, case, "01.response.json").message;
    let parts = &message.provider_parts;
    assert_eq!(parts.len(), 4);
    assert!(parts.iter().all(|p| p.at == 0), "all before the answer text");
    assert_eq!((parts[0].kind, parts[0].id.as_str()), (ProviderPartKind::Call, "h0mwtrhs"));
    assert_eq!((parts[1].kind, parts[1].id.as_str()), (ProviderPartKind::Result, "h0mwtrhs"));
    let first: Value = parts[0].raw.parse().unwrap();
    assert!(first["thoughtSignature"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(message.content.starts_with("Today is"));

    // Another family leaves them out.
    let history = Request::new(vec![Message::user("q"), message, Message::user("next")]);
    let anthropic: Value =
        serde_json::from_slice(&crate::anthropic::codec().encode(&history, false).unwrap().body).unwrap();
    let replayed = anthropic["messages"][1]["content"].as_array().unwrap();
    assert!(replayed.iter().all(|b| b["type"] == "text"), "{replayed:?}");
}

#[test]
fn search_options_gemini_cannot_express_are_refused() {
    let codec = crate::gemini::codec();
    let search = BuiltinTool::WebSearch(WebSearch::new().blocked_domains(["example.com"]));
    let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![search]);
    let error = codec.encode(&request, false).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Unsupported);
    assert!(error.message.contains("web_search"), "{error}");
    let fetch = BuiltinTool::WebFetch(golem_core::builtin::WebFetch::new());
    assert!(!codec.capabilities().builtin_tools.supports(&fetch));
    let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![fetch]);
    assert_eq!(codec.encode(&request, false).unwrap_err().kind, ModelErrorKind::Unsupported);
}

#[test]
fn built_ins_follow_function_declarations() {
    let codec = crate::gemini::codec();
    let tool = golem_core::tool::ToolDefinition::new("f", "", json!({"type": "object"}));
    let request = Request::new(vec![Message::user("hi")])
        .with_tools(vec![tool])
        .with_builtin_tools(vec![BuiltinTool::UrlContext, BuiltinTool::CodeExecution]);
    let sent: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
    assert_eq!(
        sent["tools"],
        json!([{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]}, {"urlContext": {}}, {"codeExecution": {}}])
    );
}

/// Gemini 3 takes a response schema together with function tools (a
/// capability, so `Auto` output picks native mode there); earlier models
/// still refuse the pair before sending.
#[test]
fn gemini_3_takes_a_schema_with_tools() {
    let tool = golem_core::tool::ToolDefinition::new("f", "", json!({"type": "object"}));
    let schema = golem_core::model::OutputSchema::new("out", json!({"type": "object"}));
    let request = Request::new(vec![Message::user("hi")]).with_tools(vec![tool]).with_output_schema(schema);
    let three = crate::gemini::codec_with(|b| b.model("gemini-3-flash-preview"));
    assert!(three.capabilities().native_schema_with_tools);
    let sent: Value = serde_json::from_slice(&three.encode(&request, false).unwrap().body).unwrap();
    assert_eq!(sent["generationConfig"]["responseJsonSchema"], json!({"type": "object"}));
    assert!(sent["tools"][0]["functionDeclarations"].is_array());
    let two = crate::gemini::codec_with(|b| b.model("gemini-2.5-flash"));
    assert!(!two.capabilities().native_schema_with_tools);
    assert!(two.encode(&request, false).is_err());
}

//! OpenAI Responses built-in tools on recorded traffic (web search, code
//! interpreter): the declared built-in becomes the recorded `tools` entry;
//! the answer's `web_search_call` / `code_interpreter_call` items decode
//! into provider parts (never client tool calls), and its `message` items
//! into metadata parts beside their text, plain and streamed alike and at
//! every split, each among the reasoning blocks where it came; fed back as
//! history they are the next recorded request's items, in order. Another
//! family's request leaves them out; a built-in the API has not, or an
//! option it cannot express, is refused before sending (`build` for the
//! tool, the request for the option). An agent's run shows the parts in
//! its stream, its messages and its HTML report. SPEC BUILTIN-01..03,
//! PROV-RESP-01/03.

use crate::responses::{codec_for_recorded, final_response, recorded, request_from_recorded, stream_of, KEY};
use crate::server::{Reply, Server};
use crate::support::{self, drop_nulls, run_stream, split_at};
use golem_core::builtin::{BuiltinTool, ProviderPartKind, UserLocation, WebFetch, WebSearch};
use golem_core::message::{Message, Role};
use golem_core::model::{ModelErrorKind, Request};
use golem_core::Delta;
use golem_io::{Agent, BuildError};
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::responses::{Codec, Config, Tuning, FAMILY};
use golem_providers::OpenAiResponses;
use serde_json::{json, Value};

/// The recorded two-turn cases: turn 1 declares the built-in, turn 2
/// sends turn 1's answer back.
const CASES: [&str; 3] = [
    "responses_web_search_reasoning_replay_gpt5",
    "responses_web_search_url_citation_store_false",
    "responses_code_interpreter_reasoning_replay",
];

const STREAM: &str = "responses_stream_code_interpreter_reasoning_summary";

fn request_body(case: &str, n: usize) -> Value {
    support::recorded_request("openai", case, n)
}

fn head() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![])
}

/// The built-ins a recorded `tools` list declares.
fn builtins(body: &Value) -> Vec<BuiltinTool> {
    let tools = body["tools"].as_array().into_iter().flatten();
    tools
        .filter_map(|t| match t["type"].as_str() {
            Some("web_search") => Some(BuiltinTool::WebSearch(WebSearch::new())),
            Some("code_interpreter") => Some(BuiltinTool::CodeExecution),
            _ => None,
        })
        .collect()
}

/// The golem request for recorded body `body`: its history, the built-ins
/// it declares.
fn request_for(body: &Value) -> Request {
    request_from_recorded(body).with_builtin_tools(builtins(body))
}

fn encoded(codec: &Codec, request: &Request, stream: bool) -> Value {
    serde_json::from_slice(&codec.encode(request, stream).unwrap().body).unwrap()
}

/// The output items of a recorded answer that golem keeps as parts:
/// every item but reasoning and function calls.
fn kept_items(answer: &Value) -> Vec<Value> {
    let items = answer["output"].as_array().unwrap().iter();
    items.filter(|i| i["type"] != "reasoning" && i["type"] != "function_call").cloned().collect()
}

/// `ours` (a golem body's input items) in the recorder's spelling where
/// the recorder left out what golem sends back as it came: pydantic-ai
/// sends a message's text parts without their `logprobs`, and a code
/// interpreter call with `outputs: null` (golem asks for the outputs and
/// keeps them).
fn as_recorder_spells(mut ours: Vec<Value>, theirs: &[Value]) -> Vec<Value> {
    for (item, recorded) in ours.iter_mut().zip(theirs) {
        if recorded["type"] == "code_interpreter_call" && recorded["outputs"].is_null() {
            item["outputs"] = Value::Null;
        }
        if recorded["type"] == "message" && recorded["role"] == "assistant" {
            let recorded_parts = recorded["content"].as_array().unwrap();
            for (part, theirs) in item["content"].as_array_mut().unwrap().iter_mut().zip(recorded_parts) {
                if theirs.get("logprobs").is_none() {
                    part.as_object_mut().unwrap().remove("logprobs");
                }
            }
        }
    }
    ours
}

/// A body's input items without the system text (the recorder sent it as
/// `instructions`; golem as a leading system message).
fn conversation(body: &Value) -> Vec<Value> {
    body["input"].as_array().unwrap().iter().filter(|i| i["role"] != "system").cloned().collect()
}

#[test]
fn recorded_turns_declare_decode_and_replay_built_ins() {
    for case in CASES {
        let first = request_body(case, 1);
        let codec = codec_for_recorded(&first);
        let request = request_for(&first);
        let ours = encoded(&codec, &request, false);
        let mut tools = ours["tools"].clone();
        let mut want = first["tools"].clone();
        drop_nulls(&mut tools);
        drop_nulls(&mut want);
        assert_eq!(tools, want, "{case}: tools");
        let include = |b: &Value| {
            let mut all: Vec<String> =
                b["include"].as_array().into_iter().flatten().map(|v| v.as_str().unwrap().to_string()).collect();
            all.sort();
            all
        };
        assert_eq!(include(&ours), include(&first), "{case}: include");
        assert_eq!(conversation(&ours), conversation(&first), "{case}: input");

        let bytes = recorded(&format!("openai/{case}"), "01.response.json");
        let answer: Value = serde_json::from_slice(&bytes).unwrap();
        let response = codec.decode(&request, &head(), &bytes).unwrap();
        let message = &response.message;
        assert!(message.tool_calls.is_empty(), "{case}: a built-in became a client call");
        let kept: Vec<Value> = message.provider_parts.iter().map(|p| p.raw.parse().unwrap()).collect();
        assert_eq!(kept, kept_items(&answer), "{case}: items kept whole");
        for part in &message.provider_parts {
            assert_eq!(part.provider, FAMILY);
            let item: Value = part.raw.parse().unwrap();
            assert_eq!(
                (part.name.as_str(), part.id.as_str()),
                (item["type"].as_str().unwrap(), item["id"].as_str().unwrap())
            );
            let kind = if part.name == "message" { ProviderPartKind::Metadata } else { ProviderPartKind::Call };
            assert_eq!(part.kind, kind, "{case}: {}", part.name);
        }
        // The same answer streamed, split anywhere, decodes the same.
        let sse = stream_of(&answer);
        let (deltas, whole) = run_stream(&codec, &request, &head(), [&sse]);
        assert_eq!(whole.as_ref().unwrap().message, *message, "{case}: streamed");
        assert!(deltas.iter().any(|d| matches!(d, Delta::Provider { .. })));
        for cut in 0..=sse.len() {
            let (split, result) = run_stream(&codec, &request, &head(), split_at(&sse, &[cut]));
            assert_eq!((&split, &result.unwrap().message), (&deltas, message), "{case}: split at {cut}");
        }

        // Turn 2: the recorded follow-up, from golem's own history.
        let second = request_body(case, 2);
        let mut history = request.messages.to_vec();
        history.push(message.clone());
        let last = second["input"].as_array().unwrap().last().unwrap();
        history.push(Message::user(last["content"].as_str().unwrap()));
        let next = Request::new(history).with_builtin_tools(builtins(&second));
        let ours = encoded(&codec_for_recorded(&second), &next, false);
        let theirs = conversation(&second);
        assert_eq!(as_recorder_spells(conversation(&ours), &theirs), theirs, "{case}: follow-up input");
        let mut tools = ours["tools"].clone();
        let mut want = second["tools"].clone();
        drop_nulls(&mut tools);
        drop_nulls(&mut want);
        assert_eq!(tools, want, "{case}: follow-up tools");
        // The kept items go back byte for byte (as JSON text, not only
        // as values).
        let sent = String::from_utf8_lossy(&codec.encode(&next, false).unwrap().body).into_owned();
        for part in &message.provider_parts {
            assert!(sent.contains(part.raw.as_str()), "{case}: {} {} byte for byte", part.name, part.id);
        }
    }
}

/// The recorded code-interpreter stream: three calls between reasoning
/// items, each kept whole where it came (among the thinking blocks and in
/// the text), at every split; the next request sends the items back in the
/// order of the answer's output.
#[test]
fn a_recorded_code_interpreter_stream_keeps_its_calls_in_order() {
    let body = request_body(STREAM, 1);
    let codec = codec_for_recorded(&body);
    let request = request_for(&body);
    let sse = recorded(&format!("openai/{STREAM}"), "01.response.sse");
    let (deltas, whole) = run_stream(&codec, &request, &head(), [&sse]);
    let message = whole.unwrap().message;
    // Every split of a 100 KB stream would take minutes: some 1,500 places.
    for cut in (0..=sse.len()).step_by(sse.len() / 1500) {
        let (split, result) = run_stream(&codec, &request, &head(), split_at(&sse, &[cut]));
        assert_eq!((&split, &result.unwrap().message), (&deltas, &message), "split at {cut}");
    }
    let answer = final_response(&sse);
    assert!(message.tool_calls.is_empty());
    let calls: Vec<_> = message.provider_parts.iter().filter(|p| p.name == "code_interpreter_call").collect();
    assert_eq!(calls.len(), 3);
    let ids = |items: &[Value]| items.iter().map(|i| i["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let kept: Vec<Value> = message.provider_parts.iter().map(|p| p.raw.parse().unwrap()).collect();
    assert_eq!(ids(&kept), ids(&kept_items(&answer)));
    for call in &calls {
        let item: Value = call.raw.parse().unwrap();
        assert!(item["code"].as_str().is_some_and(|c| !c.is_empty()), "the call's code kept");
    }

    // Replayed: the answer's output items in their order.
    let next = Request::new(vec![Message::user("q"), message.clone(), Message::user("more")]);
    let sent = encoded(&codec, &next, false);
    let order = |items: &[Value]| {
        items.iter().map(|i| (i["type"].as_str().unwrap_or("message").to_string(), i["id"].clone())).collect::<Vec<_>>()
    };
    let input = sent["input"].as_array().unwrap();
    assert_eq!(order(&input[1..input.len() - 1]), order(answer["output"].as_array().unwrap()));
}

#[test]
fn built_in_items_are_dropped_for_another_family() {
    let case = CASES[2];
    let first = request_body(case, 1);
    let request = request_for(&first);
    let bytes = recorded(&format!("openai/{case}"), "01.response.json");
    let message = codec_for_recorded(&first).decode(&request, &head(), &bytes).unwrap().message;
    let replay = Request::new(vec![Message::user("hi"), message.clone(), Message::user("more")]);
    let anthropic = crate::anthropic::codec();
    let sent: Value = serde_json::from_slice(&anthropic.encode(&replay, false).unwrap().body).unwrap();
    assert_eq!(sent["messages"][1]["content"], json!([{"type": "text", "text": message.content}]));
}

#[test]
fn web_search_options_are_sent_and_those_the_api_lacks_refused() {
    let tuning = Tuning::new().search_context_size("high");
    let codec = Codec::new(Config::builder("gpt-5").api_key(KEY).tuning(tuning).build().unwrap());
    let search = WebSearch::new()
        .allowed_domains(["example.com"])
        .user_location(UserLocation::new().city("Paris").country("FR").timezone("Europe/Paris"));
    let weather = golem_core::tool::ToolDefinition::new("weather", "", json!({"type": "object", "properties": {}}));
    let request = Request::new(vec![Message::user("hi")])
        .with_builtin_tools(vec![BuiltinTool::WebSearch(search), BuiltinTool::CodeExecution])
        .with_tools(vec![weather]);
    let sent = encoded(&codec, &request, false);
    let tools = sent["tools"].as_array().unwrap();
    assert_eq!(tools[0]["type"], "function", "built-ins follow the function tools");
    assert_eq!(
        tools[1..],
        [
            json!({"type": "web_search", "filters": {"allowed_domains": ["example.com"]}, "search_context_size": "high",
                   "user_location": {"type": "approximate", "city": "Paris", "country": "FR", "timezone": "Europe/Paris"}}),
            json!({"type": "code_interpreter", "container": {"type": "auto"}}),
        ]
    );
    assert_eq!(sent["include"], json!(["reasoning.encrypted_content", "code_interpreter_call.outputs"]));

    for search in [WebSearch::new().blocked_domains(["spam.example"]), WebSearch::new().max_uses(2)] {
        let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![BuiltinTool::WebSearch(search)]);
        let error = codec.encode(&request, false).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Unsupported, "{error}");
        assert!(error.message.contains("web_search"), "{error}");
    }
}

/// Web fetch and URL context: refused when the agent is built, not on the
/// wire; web search and code execution build.
#[test]
fn built_ins_the_responses_api_lacks_are_refused_at_build() {
    let client = || OpenAiResponses::new(Config::builder("gpt-5").api_key(KEY).build().unwrap());
    for (tool, name) in
        [(BuiltinTool::WebFetch(WebFetch::new()), "web_fetch"), (BuiltinTool::UrlContext, "url_context")]
    {
        let built = Agent::<()>::builder(client()).builtin_tool(tool.clone()).build();
        assert!(matches!(built, Err(BuildError::UnsupportedBuiltin(n)) if n == name), "{name}");
        let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![tool]);
        let error = crate::responses::codec().encode(&request, false).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Unsupported, "{name}: and on the wire if asked anyway");
    }
    for tool in [BuiltinTool::WebSearch(WebSearch::new()), BuiltinTool::CodeExecution] {
        assert!(Agent::<()>::builder(client()).builtin_tool(tool).build().is_ok());
    }
}

/// An agent on the client: the recorded code-interpreter answer, plain
/// and streamed, leaves its parts in the run's messages, its stream of
/// deltas and the HTML report of its log.
#[test]
fn an_agent_run_shows_the_built_in_parts() {
    let case = CASES[2];
    let bytes = recorded(&format!("openai/{case}"), "01.response.json");
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    let server = Server::start(vec![Reply::json(200, bytes.clone()), Reply::sse([stream_of(&answer)])]);
    let agent = Agent::<()>::builder(crate::responses::client(&server.url()))
        .builtin_tool(BuiltinTool::CodeExecution)
        .build()
        .unwrap();
    let mut log = Vec::new();
    let plain = agent.run_with(()).prompt("what is 65465-6544 * 65464-6+1.02255").record(&mut log).call().unwrap();
    let sent = server.requests()[0].json();
    assert_eq!(sent["tools"], json!([{"type": "code_interpreter", "container": {"type": "auto"}}]));
    let answer_message = plain.messages.iter().rfind(|m| m.role == Role::Assistant).unwrap();
    let names: Vec<&str> = answer_message.provider_parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["code_interpreter_call", "message"]);
    assert!(plain.output.contains("-428,330,955.97745"));

    let mut deltas = Vec::new();
    let streamed = agent
        .run_stream((), "what is 65465-6544 * 65464-6+1.02255", |d: golem_io::StreamDelta<'_>| {
            deltas.push(d.delta.clone());
            Ok(())
        })
        .unwrap();
    let provided: Vec<&str> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Provider { part } => Some(part.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(provided, ["code_interpreter_call", "message"]);
    assert_eq!(streamed.output, plain.output);

    let log = golem_core::log::EventLog::read_bytes(&log).unwrap().log;
    let page = golem_io::observe::render_html(&log, &golem_io::observe::TraceSettings::new()).unwrap();
    let id = answer["output"][1]["id"].as_str().unwrap();
    assert!(page.contains(&format!("openai-responses runs code_interpreter_call <code>{id}</code>")), "{page}");
}

/// A response of one message item holds no parts but that item, and a
/// stored history whose text was edited since sends the edited text, not
/// the stale item.
#[test]
fn a_kept_message_item_goes_back_only_while_it_holds_the_text() {
    let item = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": "See [1].", "annotations": [
            {"type": "url_citation", "start_index": 4, "end_index": 7, "url": "https://e.x", "title": "E"}]}]});
    let body = json!({"status": "completed", "output": [item]});
    let codec = crate::responses::codec();
    let hi = Request::new(vec![Message::user("hi")]);
    let message = codec.decode(&hi, &head(), body.to_string().as_bytes()).unwrap().message;
    assert_eq!(message.provider_parts.len(), 1);
    let replay =
        |m: Message| encoded(&codec, &Request::new(vec![Message::user("hi"), m, Message::user("and?")]), false);
    assert_eq!(replay(message.clone())["input"][1], item, "as it came, the citation with it");
    let mut edited = message;
    edited.content = "See nothing.".into();
    edited.provider_parts[0].at = edited.content.len();
    assert_eq!(replay(edited)["input"][1], json!({"role": "assistant", "content": "See nothing."}));
}

/// Any service item decodes into a part named by its type: a call when it
/// is one (`…_call`), a result otherwise (a listing of an MCP server's
/// tools); never a client tool call.
#[test]
fn every_service_item_is_a_part_and_none_a_client_call() {
    let image = json!({"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBORw0KGgo="});
    let listing = json!({"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "docs", "tools": []});
    let body = json!({"status": "completed", "output": [listing, image]});
    let message =
        crate::responses::codec().decode(&Request::new(vec![]), &head(), body.to_string().as_bytes()).unwrap().message;
    assert!(message.tool_calls.is_empty() && message.thinking.is_empty());
    let parts: Vec<_> = message.provider_parts.iter().map(|p| (p.name.as_str(), p.id.as_str(), p.kind)).collect();
    assert_eq!(
        parts,
        [
            ("mcp_list_tools", "mcpl_1", ProviderPartKind::Result),
            ("image_generation_call", "ig_1", ProviderPartKind::Call)
        ]
    );
}

/// A history written before the provider parts kept a service item as a
/// `redacted` thinking block: it still goes back in its place.
#[test]
fn a_service_item_kept_the_old_way_still_goes_back() {
    let item = json!({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}});
    let old = Message::assistant("Found.")
        .with_thinking(vec![golem_core::message::ThinkingBlock::redacted(item.to_string()).with_provider(FAMILY)]);
    let request = Request::new(vec![Message::user("hi"), old, Message::user("more")]);
    let sent = encoded(&crate::responses::codec(), &request, false);
    assert_eq!(sent["input"][1], item);
    assert_eq!(sent["input"][2], json!({"role": "assistant", "content": "Found."}));
}

//! What the client offers a server, against the official Python SDK's own
//! calls (the reference server's `sample`, `roots` and `touch` tools use
//! `ctx.session.create_message`, `ctx.session.list_roots` and
//! `ctx.session.send_resource_updated`): sampling answered by a golem model
//! behind an approval hook and token limits (SPEC MCP-18), roots (MCP-19),
//! resource updates (MCP-20). Over stdio and streamable HTTP.
#![cfg(feature = "mcp")]

use crate::mcp_support::{self, options, stdio_config, HttpServer};
use golem_core::testing::ScriptedModel;
use golem_io::mcp::{
    ClientOptions, HttpConfig, Id, McpClient, McpError, Message, Root, Sampling, SamplingDecision, SamplingModel,
    SamplingRequest, Session, SessionConfig, SessionEvent,
};
use golem_io::{Model, ModelError, PartKind, Request, Response, Role, Usage};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

/// The JSON the `sample` and `roots` tools answer with.
fn reported(result: &Value) -> Value {
    serde_json::from_str(&text(result)).unwrap_or_else(|_| json!(text(result)))
}

/// Both transports, each against the reference server, with `options`.
fn both(options: impl Fn() -> ClientOptions) -> Vec<(&'static str, McpClient, Option<HttpServer>)> {
    let stdio = McpClient::stdio(stdio_config(&[]), options()).expect("stdio");
    let server = HttpServer::start(&[]);
    let http = McpClient::http(HttpConfig::new(&server.url), options()).expect("http");
    vec![("stdio", stdio, None), ("http", http, Some(server))]
}

/// The requests a sampling model was given, and the [`SamplingRequest`]s
/// its chooser saw.
#[derive(Clone, Default)]
struct Seen {
    chosen: Arc<Mutex<Vec<SamplingRequest>>>,
}

fn sampling(model: &ScriptedModel, seen: &Seen) -> Sampling {
    let (model, chosen) = (model.clone(), Arc::clone(&seen.chosen));
    Sampling::choose(move |request| {
        chosen.lock().unwrap().push(request.clone());
        Ok(SamplingModel::new("scripted-1", model.clone()))
    })
    .max_tokens(256)
}

#[test]
fn mcp_18_the_python_sdks_create_message_is_answered_by_a_golem_model() {
    for (transport, client, _server) in both(|| {
        let model = ScriptedModel::new().respond(Response::text("Paris STOP and more").with_usage(Usage::new(12, 3)));
        options().sampling(sampling(&model, &Seen::default()))
    }) {
        let result = client.call_tool("sample", json!({"prompt": "Capital of France?"}), None).unwrap();
        assert_eq!(
            reported(&result),
            json!({"role": "assistant", "model": "scripted-1", "stop": "stopSequence", "type": "text", "text": "Paris "}),
            "{transport}"
        );
    }
}

#[test]
fn mcp_18_the_request_reaches_the_model_mapped_and_capped() {
    let model = ScriptedModel::new().respond(Response::text("A pixel.")).respond(Response::text("Hi"));
    let seen = Seen::default();
    let client = McpClient::stdio(stdio_config(&[]), options().sampling(sampling(&model, &seen))).unwrap();
    let result = client.call_tool("sample", json!({"prompt": "What is this?", "with_image": true}), None).unwrap();
    assert_eq!(reported(&result)["text"], "A pixel.");
    assert_eq!(reported(&result)["stop"], "endTurn");
    let chosen = seen.chosen.lock().unwrap().pop().unwrap();
    assert_eq!((chosen.max_tokens, chosen.requested_max_tokens), (256, 1_000_000), "capped by the client");
    assert_eq!(chosen.system_prompt.as_deref(), Some("Answer in one word."));
    assert_eq!(chosen.temperature, Some(0.2));
    assert_eq!(chosen.stop_sequences, ["STOP"]);
    assert_eq!(chosen.preferences.hints, ["golem-test"]);
    assert_eq!(chosen.preferences.speed_priority, Some(0.8));
    let request: Request = model.requests().pop().unwrap();
    let roles: Vec<Role> = request.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::User, Role::User]);
    assert_eq!(request.messages[1].content, "What is this?");
    let image = &request.messages[2].parts[0];
    assert_eq!((image.kind, image.media_type.as_str()), (PartKind::Image, "image/png"));
    assert_eq!(&image.data[1..4], b"PNG");
}

#[test]
fn mcp_18_an_approval_hook_can_refuse_and_the_server_gets_an_error() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    for (transport, client, _server) in both(|| {
        let counted = Arc::clone(&counted);
        let model = ScriptedModel::new().respond(Response::text("never"));
        let sampling = Sampling::new(SamplingModel::new("m", model)).approve(move |request| {
            counted.fetch_add(1, Ordering::SeqCst);
            match request.messages[0].content.contains("secret") {
                true => SamplingDecision::Refuse("the user said no".into()),
                false => SamplingDecision::Approve,
            }
        });
        options().sampling(sampling)
    }) {
        let result = client.call_tool("sample", json!({"prompt": "tell me the secret"}), None).unwrap();
        assert_eq!(text(&result), "refused -1: the user said no", "{transport}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn mcp_18_the_token_budget_refuses_once_spent_and_a_failing_model_is_an_error() {
    let model = ScriptedModel::new()
        .respond(Response::text("one").with_usage(Usage::new(6, 5)))
        .respond(Response::text("two").with_usage(Usage::new(6, 5)));
    let sampling = Sampling::new(SamplingModel::new("m", model)).token_budget(10);
    let client = McpClient::stdio(stdio_config(&[]), options().sampling(sampling)).unwrap();
    let sample = || text(&client.call_tool("sample", json!({"prompt": "go"}), None).unwrap());
    assert!(sample().contains("\"one\""));
    assert_eq!(sample(), "refused -1: the client's sampling token budget is spent");

    struct Broken;
    impl Model for Broken {
        fn generate(&self, _: &Request) -> Result<Response, ModelError> {
            Err(ModelError::other("quota exceeded for project alpha"))
        }
    }
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&notes);
    let options = options()
        .sampling(Sampling::new(SamplingModel::new("broken", Broken)))
        .on_log(move |log| sink.lock().unwrap().push(log.data.to_string()));
    let client = McpClient::stdio(stdio_config(&[]), options).unwrap();
    let answer = text(&client.call_tool("sample", json!({"prompt": "go"}), None).unwrap());
    assert_eq!(answer, "refused -32603: the client's model failed (other)", "the server learns no detail");
    assert!(notes.lock().unwrap().iter().any(|n| n.contains("project alpha")), "the application does");
}

#[test]
fn mcp_18_without_sampling_the_capability_is_not_declared_and_requests_get_method_not_found() {
    let client = McpClient::stdio(stdio_config(&[]), options()).unwrap();
    let result = client.call_tool("sample", json!({"prompt": "go"}), None).unwrap();
    assert!(text(&result).starts_with("refused -32601"), "{result}");
}

#[test]
fn mcp_19_roots_are_listed_and_their_changes_announced() {
    for (transport, client, _server) in both(|| options().roots([Root::new("file:///work/a").named("a")])) {
        let listed = reported(&client.call_tool("roots", json!({}), None).unwrap());
        assert_eq!(listed, json!({"roots": [{"uri": "file:///work/a", "name": "a"}], "changes": 0}), "{transport}");
        client.set_roots([Root::new("file:///work/b"), Root::new("file:///work/c").named("c")]).unwrap();
        let changed = mcp_support::eventually(Duration::from_secs(10), || {
            reported(&client.call_tool("roots", json!({}), None).unwrap())["changes"] == 1
        });
        assert!(changed, "{transport}: the server heard notifications/roots/list_changed");
        let listed = reported(&client.call_tool("roots", json!({}), None).unwrap());
        assert_eq!(
            listed["roots"],
            json!([{"uri": "file:///work/b", "name": null}, {"uri": "file:///work/c", "name": "c"}]),
            "{transport}"
        );
    }
}

#[test]
fn mcp_19_without_roots_none_are_offered_and_none_can_be_set() {
    let client = McpClient::stdio(stdio_config(&[]), options()).unwrap();
    // The server's list_roots got −32601, which its SDK passes on as the
    // call's own error.
    let error = client.call_tool("roots", json!({}), None).unwrap_err();
    assert!(matches!(error, McpError::Protocol { code: -32601, .. }), "{error:?}");
    let error = client.set_roots([Root::new("file:///x")]).unwrap_err();
    assert!(matches!(&error, McpError::NotOffered { capability } if capability == "roots"), "{error:?}");
}

#[test]
fn mcp_20_resource_updates_reach_the_callback() {
    let updates = Arc::new(Mutex::new(Vec::<(&'static str, String)>::new()));
    let transports = ["stdio", "http"];
    let index = Arc::new(AtomicUsize::new(0));
    for (transport, client, _server) in both(|| {
        let (updates, n) = (Arc::clone(&updates), index.fetch_add(1, Ordering::SeqCst));
        options().on_resource_updated(move |uri| updates.lock().unwrap().push((transports[n], uri.to_string())))
    }) {
        assert_eq!(
            text(&client.call_tool("touch", json!({"uri": "fixture://readme"}), None).unwrap()),
            "not subscribed"
        );
        client.subscribe_resource("fixture://readme").unwrap();
        assert_eq!(text(&client.call_tool("touch", json!({"uri": "fixture://readme"}), None).unwrap()), "announced");
        let heard = mcp_support::eventually(Duration::from_secs(10), || {
            updates.lock().unwrap().contains(&(transport, "fixture://readme".to_string()))
        });
        assert!(heard, "{transport}: {:?}", updates.lock().unwrap());
        client.unsubscribe_resource("fixture://readme").unwrap();
        assert_eq!(
            text(&client.call_tool("touch", json!({"uri": "fixture://readme"}), None).unwrap()),
            "not subscribed"
        );
    }
}

/// The sans-IO session's side of MCP-18..20: what it declares, answers and
/// hands to its driver.
#[test]
fn mcp_18_19_20_the_session_declares_answers_and_reports() {
    let now = Instant::now();
    let roots = Some(vec![Root::new("file:///a").named("a")]);
    let mut session = Session::new(SessionConfig { sampling: true, roots, ..SessionConfig::default() });
    let (init, request) = session.start(now).unwrap();
    assert_eq!(request.to_value()["params"]["capabilities"], json!({"sampling": {}, "roots": {"listChanged": true}}));
    let feed = |session: &mut Session, value: Value| session.handle_message(now, Message::from_value(value).unwrap());
    feed(
        &mut session,
        json!({"jsonrpc": "2.0", "id": init, "result": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}),
    );
    while session.poll_transmit().is_some() {}
    while session.poll_event().is_some() {}

    feed(&mut session, json!({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}));
    let answer = session.poll_transmit().unwrap().to_value();
    assert_eq!(answer["result"], json!({"roots": [{"uri": "file:///a", "name": "a"}]}));
    assert!(session.set_roots(vec![]));
    assert_eq!(session.poll_transmit().unwrap().method(), Some("notifications/roots/list_changed"));

    feed(&mut session, json!({"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage", "params": {}}));
    assert!(
        matches!(session.poll_event(), Some(SessionEvent::Request { method, .. }) if method == "sampling/createMessage")
    );
    feed(&mut session, json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}));
    assert!(matches!(session.poll_event(), Some(SessionEvent::ServerCanceled { id: Id::Int(9) })));
    feed(
        &mut session,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "x://1"}}),
    );
    assert!(matches!(session.poll_event(), Some(SessionEvent::ResourceUpdated { uri }) if uri == "x://1"));
    assert!(session.poll_transmit().is_none(), "no answer to a request the driver serves");
}

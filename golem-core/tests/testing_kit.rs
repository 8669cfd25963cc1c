//! The testing kit (SPEC TEST-01, TEST-02, STREAM-04, STREAM-05, MODEL-04):
//! fakes, the delta round trip, the assembler's bounds and the schema sampler.

use golem_core::model::{AsyncModel, BoxError, Capabilities, Delta, Model, ModelErrorKind, Request};
use golem_core::testing::{
    assemble, response_deltas, sample_for_schema, AssembleError, FnModel, ScriptedModel, StreamAssembler, TestModel,
    DEFAULT_ANSWER, MAX_INDEX, MAX_TOOL_CALLS,
};
use golem_core::tool::ToolDefinition;
use golem_core::{FinishReason, Message, ModelError, Response, Role, ToolCall, Usage};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

// ---------------------------------------------------------------------------
// Helpers

/// A minimal executor: golem-core has no executor crate, and the fakes'
/// futures are ready at once, so parking the thread between polls suffices.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}

fn user(text: &str) -> Request {
    Request::new(vec![Message::user(text)])
}

/// Stream with the blocking trait, collecting the deltas.
fn stream_blocking(model: &dyn Model, request: &Request) -> (Result<Response, ModelError>, Vec<Delta>) {
    let mut seen = Vec::new();
    let mut sink = |d: Delta| -> Result<(), BoxError> {
        seen.push(d);
        Ok(())
    };
    let result = model.as_streaming().expect("the fakes stream").stream(request, &mut sink);
    (result, seen)
}

/// Stream with the async trait, collecting the deltas.
fn stream_async(model: &dyn AsyncModel, request: &Request) -> (Result<Response, ModelError>, Vec<Delta>) {
    let mut seen = Vec::new();
    let mut sink = |d: Delta| -> Result<(), BoxError> {
        seen.push(d);
        Ok(())
    };
    let result = block_on(model.as_streaming().expect("the fakes stream").stream_async(request, &mut sink));
    (result, seen)
}

fn thinking(index: u32, text: &str, signature: &str) -> Delta {
    Delta::Thinking { index, text: text.into(), signature: signature.into(), redacted: String::new() }
}

fn call_delta(index: u32, id: &str, name: &str, args: &str) -> Delta {
    Delta::ToolCall { index, id: id.into(), name: name.into(), args: args.into(), signature: String::new() }
}

fn tool(name: &str, parameters: Value) -> ToolDefinition {
    golem_core::tool::ToolDefinition::new(name, String::new(), parameters)
}

// ---------------------------------------------------------------------------
// ScriptedModel

#[test]
fn scripted_answers_in_queue_order_then_says_how_to_queue_more() {
    let model = ScriptedModel::new()
        .text("one")
        .fail(ModelError::api(503, "overloaded"))
        .respond(Response::text("three").with_usage(Usage::new(3, 4)));
    assert_eq!(model.remaining(), 3);

    assert_eq!(model.generate(&user("a")).unwrap().message.content, "one");
    assert_eq!(model.generate(&user("b")).unwrap_err(), ModelError::api(503, "overloaded"));
    let third = model.generate(&user("c")).unwrap();
    assert_eq!((third.message.content.as_str(), third.usage), ("three", Usage::new(3, 4)));

    let err = model.generate(&user("d")).unwrap_err();
    assert_eq!(err.kind, ModelErrorKind::Other);
    assert!(!err.retryable);
    assert!(err.message.contains("no response queued for request 4"), "{}", err.message);
    assert!(err.message.contains("queue more with ScriptedModel::respond"), "{}", err.message);
    // The unanswered request is recorded too: it was received.
    assert_eq!(model.request_count(), 4);
    assert_eq!(model.remaining(), 0);
}

#[test]
fn scripted_clones_share_queue_and_log() {
    let model = ScriptedModel::new();
    let handed_out = model.clone();
    model.push_text("later");
    model.push_tool_call("lookup", r#"{"q":1}"#);
    assert_eq!(handed_out.generate(&user("x")).unwrap().message.content, "later");
    let call = handed_out.generate(&user("y")).unwrap();
    assert_eq!(call.finish_reason, FinishReason::ToolCall);
    assert_eq!(call.message.tool_calls, vec![ToolCall::new("call_1", "lookup", r#"{"q":1}"#)]);
    assert_eq!(model.request_count(), 2);
    assert_eq!(model.last_request().unwrap().messages[0].content, "y");
}

#[test]
fn scripted_tool_call_ids_count_up() {
    let model = ScriptedModel::new().tool_call("a", "{}").tool_call("b", "{}");
    model.push_tool_call("c", "{}");
    let ids: Vec<String> =
        (0..3).map(|_| model.generate(&user("x")).unwrap().message.tool_calls[0].id.clone()).collect();
    assert_eq!(ids, ["call_1", "call_2", "call_3"]);
}

#[test]
fn scripted_records_deep_copies() {
    let model = ScriptedModel::new().text("a").text("b");
    let mut request = user("first");
    request.tools = Arc::new(vec![tool("t", json!({"type": "object"}))]);
    request.output_schema = Some(Arc::new(golem_core::model::OutputSchema::new("out", json!({"type": "string"}))));
    model.generate(&request).unwrap();
    request.messages_mut().push(Message::assistant("a"));
    request.messages_mut().push(Message::user("second"));
    model.generate(&request).unwrap();

    let recorded = model.requests();
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0].messages.len(), 1, "later changes do not leak into the record");
    assert_eq!(recorded[1], request);
    assert!(!Arc::ptr_eq(&recorded[1].tools, &request.tools));
    assert!(!Arc::ptr_eq(recorded[1].output_schema.as_ref().unwrap(), request.output_schema.as_ref().unwrap()));
}

fn rich_response() -> Response {
    let message = {
        let mut message = Message::new(Role::Assistant);
        message.content = "héllo wörld".into();
        message.thinking =
            vec![golem_core::ThinkingBlock::text("hmm").with_signature("sig0"), golem_core::ThinkingBlock::text("ok")];
        message.tool_calls = vec![ToolCall::new("c1", "search", r#"{"q":"ü"}"#), ToolCall::new("c2", "noop", "")];
        message
    };
    golem_core::Response::new(message).with_usage(Usage::new(10, 5)).with_finish_reason(FinishReason::ToolCall)
}

#[test]
fn streaming_yields_thinking_text_and_calls_in_order() {
    let model = ScriptedModel::new().respond(rich_response());
    let (result, deltas) = stream_blocking(&model, &user("x"));
    let expected = vec![
        thinking(0, "hmm", ""),
        thinking(0, "", "sig0"),
        thinking(1, "ok", ""),
        Delta::text("héll"),
        Delta::text("o wö"),
        Delta::text("rld"),
        call_delta(0, "c1", "search", ""),
        call_delta(0, "", "", r#"{"q""#),
        call_delta(0, "", "", r#":"ü""#),
        call_delta(0, "", "", "}"),
        call_delta(1, "c2", "noop", ""),
    ];
    assert_eq!(deltas, expected);
    let response = result.unwrap();
    assert_eq!(response, rich_response(), "the returned response is the queued one");
    assert_eq!(assemble(&deltas).unwrap(), response.message);
}

#[test]
fn chunk_size_is_configurable() {
    let response = Response::text("abcdef");
    let texts = |deltas: Vec<Delta>| -> Vec<String> {
        deltas
            .into_iter()
            .filter_map(|d| match d {
                Delta::Text { text } => Some(text),
                _ => None,
            })
            .collect()
    };
    let one = ScriptedModel::new().chunk_size(1).respond(response.clone());
    assert_eq!(texts(stream_blocking(&one, &user("x")).1), ["a", "b", "c", "d", "e", "f"]);
    let whole = ScriptedModel::new().chunk_size(0).respond(response.clone());
    assert_eq!(texts(stream_blocking(&whole, &user("x")).1), ["abcdef"]);
    let five = FnModel::new(move |_| Ok(response.clone())).chunk_size(5);
    assert_eq!(texts(stream_blocking(&five, &user("x")).1), ["abcde", "f"]);
}

#[derive(Debug, thiserror::Error)]
#[error("caller had enough")]
struct Enough;

#[test]
fn sink_error_stops_the_stream_with_sink_aborted() {
    let model = ScriptedModel::new().respond(rich_response()).text("next");
    let mut calls = 0;
    let mut sink = |_: Delta| -> Result<(), BoxError> {
        calls += 1;
        if calls == 2 {
            Err(Box::new(Enough))
        } else {
            Ok(())
        }
    };
    let err = golem_core::model::StreamingModel::stream(&model, &user("x"), &mut sink).unwrap_err();
    assert_eq!(calls, 2, "no delta after the sink refused one");
    assert_eq!(err.kind, ModelErrorKind::SinkAborted);
    assert!(err.message.contains("caller had enough"), "{}", err.message);
    let source = std::error::Error::source(&err).expect("the sink's error is the source");
    assert!(source.downcast_ref::<Enough>().is_some());
    // The step was consumed: the next call gets the next one.
    assert_eq!(model.generate(&user("y")).unwrap().message.content, "next");
}

#[test]
fn a_scripted_failure_streams_no_deltas() {
    let model = ScriptedModel::new().fail(ModelError::timeout("slow"));
    let (result, deltas) = stream_blocking(&model, &user("x"));
    assert_eq!(result.unwrap_err().kind, ModelErrorKind::Timeout);
    assert!(deltas.is_empty());
}

#[test]
fn a_sink_may_queue_more_while_streaming() {
    let model = ScriptedModel::new().text("hi");
    let shared = model.clone();
    let mut sink = move |_: Delta| -> Result<(), BoxError> {
        shared.push_text("queued from the sink");
        Ok(())
    };
    golem_core::model::StreamingModel::stream(&model, &user("x"), &mut sink).unwrap();
    assert_eq!(model.generate(&user("y")).unwrap().message.content, "queued from the sink");
}

#[test]
fn fakes_stream_report_no_capabilities_by_default_and_are_configurable() {
    let none = Capabilities::new();
    assert_eq!(Model::capabilities(&ScriptedModel::new()), none);
    assert_eq!(AsyncModel::capabilities(&ScriptedModel::new()), none);
    assert_eq!(Model::capabilities(&FnModel::new(|_| Ok(Response::text("")))), none);
    assert_eq!(Model::capabilities(&TestModel::new()), none);
    // Every fake streams, through both faces: they implement the streaming traits.
    assert!(Model::as_streaming(&ScriptedModel::new()).is_some());
    assert!(AsyncModel::as_streaming(&ScriptedModel::new()).is_some());
    assert!(Model::as_streaming(&FnModel::new(|_| Ok(Response::text("")))).is_some());
    assert!(AsyncModel::as_streaming(&TestModel::new()).is_some());
    let all = Capabilities::new().native_schema_with_tools(true).forced_tool_choice(true);
    assert_eq!(AsyncModel::capabilities(&ScriptedModel::new().with_capabilities(all)), all);
    assert_eq!(AsyncModel::capabilities(&FnModel::new(|_| Ok(Response::text(""))).with_capabilities(all)), all);
    assert_eq!(AsyncModel::capabilities(&TestModel::new().with_capabilities(all)), all);
}

#[test]
fn async_traits_behave_like_the_blocking_ones() {
    let model = ScriptedModel::new().text("a").respond(rich_response()).fail(ModelError::transport("reset"));
    assert_eq!(block_on(model.generate_async(&user("x"))).unwrap().message.content, "a");
    let (result, deltas) = stream_async(&model, &user("y"));
    assert_eq!(result.unwrap(), rich_response());
    assert_eq!(deltas, response_deltas(&rich_response(), 4));
    assert!(block_on(model.generate_async(&user("z"))).unwrap_err().retryable);
    assert!(block_on(model.generate_async(&user("z"))).unwrap_err().message.contains("request 4"));

    // Futures are lazy: building one takes no step.
    let lazy = ScriptedModel::new().text("only");
    let request = user("x");
    let future = lazy.generate_async(&request);
    assert_eq!(lazy.request_count(), 0);
    drop(future);
    assert_eq!(lazy.remaining(), 1);
}

#[test]
fn models_are_usable_as_trait_objects() {
    let models: Vec<Arc<dyn Model>> = vec![
        Arc::new(ScriptedModel::new().text("x")),
        Arc::new(FnModel::new(|_| Ok(Response::text("x")))),
        Arc::new(TestModel::new().answer_text("x")),
    ];
    for model in models {
        assert_eq!(model.generate(&user("q")).unwrap().message.content, "x");
    }
    let async_models: Vec<Arc<dyn AsyncModel>> =
        vec![Arc::new(ScriptedModel::new().text("x")), Arc::new(FnModel::new(|_| Ok(Response::text("x"))))];
    for model in async_models {
        assert_eq!(block_on(model.generate_async(&user("q"))).unwrap().message.content, "x");
    }
}

// ---------------------------------------------------------------------------
// FnModel

#[test]
fn fn_model_answers_with_its_function_and_streams_the_same() {
    let model = FnModel::new(|request: &Request| {
        if request.messages.len() > 1 {
            return Err(ModelError::other("too long"));
        }
        let mut response = rich_response();
        response.message.content = format!("echo: {}", request.messages[0].content);
        Ok(response)
    });
    let plain = model.generate(&user("hi")).unwrap();
    assert_eq!(plain.message.content, "echo: hi");
    let (streamed, deltas) = stream_blocking(&model, &user("hi"));
    assert_eq!(streamed.unwrap(), plain);
    assert_eq!(assemble(&deltas).unwrap(), plain.message);
    let (async_streamed, async_deltas) = stream_async(&model, &user("hi"));
    assert_eq!((async_streamed.unwrap(), async_deltas), (plain, deltas));

    let two = Request::new(vec![Message::user("a"), Message::user("b")]);
    assert_eq!(model.generate(&two).unwrap_err().message, "too long");
    let (failed, none) = stream_blocking(&model, &two);
    assert!(failed.is_err() && none.is_empty());
    assert!(format!("{model:?}").starts_with("FnModel"));
}

// ---------------------------------------------------------------------------
// Assembler

#[test]
fn assembler_orders_by_index_and_keeps_first_id_and_name() {
    let mut asm = StreamAssembler::new().with_provider("anthropic");
    for delta in [
        call_delta(3, "c3", "late", "{}"),
        call_delta(1, "c1", "early", r#"{"a""#),
        thinking(2, "second", ""),
        Delta::text("x"),
        call_delta(1, "other", "renamed", ":1}"),
        thinking(0, "first", "s1"),
        thinking(0, "", "s2"),
        Delta::text("y"),
    ] {
        asm.push(&delta).unwrap();
    }
    let message = asm.finish();
    assert_eq!(message.role, Role::Assistant);
    assert_eq!(message.content, "xy");
    assert_eq!(message.tool_calls, vec![ToolCall::new("c1", "early", r#"{"a":1}"#), ToolCall::new("c3", "late", "{}")]);
    let blocks: Vec<(&str, &str, &str)> =
        message.thinking.iter().map(|b| (b.text.as_str(), b.signature.as_str(), b.provider.as_str())).collect();
    assert_eq!(blocks, [("first", "s2", "anthropic"), ("second", "", "anthropic")]);
}

#[test]
fn assembler_entries_come_out_in_index_order_for_any_arrival_order() {
    // Fragments of eight calls in a scrambled order (a stride coprime to
    // the count), each call's fragments in order: the calls come out by
    // index with their fragments joined, as a map keyed by index would give.
    let mut asm = StreamAssembler::new();
    let mut expected = std::collections::BTreeMap::new();
    for step in 0..24u32 {
        let index = (step * 5) % 8 * 3;
        let fragment = format!("{}", step / 8);
        asm.push(&call_delta(index, &format!("c{index}"), "t", &fragment)).unwrap();
        expected.entry(index).or_insert_with(String::new).push_str(&fragment);
    }
    let calls = asm.finish().tool_calls;
    let got: Vec<(String, String)> = calls.iter().map(|c| (c.id.clone(), c.args.as_str().to_string())).collect();
    let want: Vec<(String, String)> = expected.into_iter().map(|(i, args)| (format!("c{i}"), args)).collect();
    assert_eq!(got, want);
}

#[test]
fn assembler_rejects_indices_beyond_the_bound() {
    let mut asm = StreamAssembler::new();
    asm.push(&call_delta(MAX_INDEX, "ok", "ok", "")).unwrap();
    assert_eq!(
        asm.push(&call_delta(MAX_INDEX + 1, "x", "x", "")),
        Err(AssembleError::ToolCallIndex { index: MAX_INDEX + 1, max: MAX_INDEX })
    );
    assert_eq!(
        asm.push(&call_delta(u32::MAX, "x", "x", "")),
        Err(AssembleError::ToolCallIndex { index: u32::MAX, max: MAX_INDEX })
    );
    assert_eq!(
        asm.push(&thinking(MAX_INDEX + 1, "t", "")),
        Err(AssembleError::ThinkingIndex { index: MAX_INDEX + 1, max: MAX_INDEX })
    );
    // Nothing changed by the refused deltas.
    assert_eq!(asm.snapshot().tool_calls.len(), 1);
    assert!(asm.snapshot().thinking.is_empty());
}

#[test]
fn assembler_rejects_too_many_calls_and_blocks() {
    let mut asm = StreamAssembler::new();
    for i in 0..MAX_TOOL_CALLS as u32 {
        asm.push(&call_delta(i * 7, "id", "t", "")).unwrap();
    }
    let too_many = Err(AssembleError::TooManyToolCalls { limit: MAX_TOOL_CALLS });
    assert_eq!(asm.push(&call_delta(1, "id", "t", "")), too_many);
    // Fragments of calls already open still land.
    asm.push(&call_delta(7, "", "", "{}")).unwrap();
    assert_eq!(asm.snapshot().tool_calls[1].args.as_str(), "{}");
    for i in 0..128 {
        asm.push(&thinking(i, "t", "")).unwrap();
    }
    assert_eq!(asm.push(&thinking(500, "t", "")), Err(AssembleError::TooManyThinkingBlocks { limit: 128 }));
    let message = asm.finish();
    assert_eq!((message.tool_calls.len(), message.thinking.len()), (MAX_TOOL_CALLS, 128));
    assert!(AssembleError::TooManyToolCalls { limit: 128 }.to_string().contains("128"));
}

#[test]
fn assemble_reports_the_first_error() {
    let deltas = [Delta::text("a"), call_delta(2000, "", "", "")];
    assert_eq!(assemble(&deltas), Err(AssembleError::ToolCallIndex { index: 2000, max: MAX_INDEX }));
}

#[test]
fn the_full_bound_round_trips() {
    let calls = (0..MAX_TOOL_CALLS).map(|i| ToolCall::new(format!("c{i}"), "t", format!("{{\"i\":{i}}}"))).collect();
    let response = Response::tool_calls(calls);
    assert_eq!(assemble(&response_deltas(&response, 3)), Ok(response.message));
}

#[test]
fn redacted_thinking_streams_whole_and_round_trips() {
    let message = Message::assistant("a")
        .with_thinking(vec![golem_core::ThinkingBlock::redacted("opaque"), golem_core::ThinkingBlock::text("visible")]);
    let deltas = response_deltas(&Response::new(message.clone()), 4);
    assert_eq!(
        deltas[0],
        Delta::Thinking { index: 0, text: String::new(), signature: String::new(), redacted: "opaque".into() }
    );
    assert_eq!(deltas[1], thinking(1, "visible", ""));
    assert_eq!(assemble(&deltas).unwrap(), message);
}

fn arb_message() -> impl Strategy<Value = Message> {
    let block = (any::<String>(), proptest::option::of("[a-zA-Z0-9+/=]{1,12}")).prop_map(|(text, signature)| {
        golem_core::ThinkingBlock::text(text).with_signature(signature.unwrap_or_default())
    });
    let call = (any::<String>(), any::<String>(), any::<String>(), any::<String>())
        .prop_map(|(id, name, args, sig)| ToolCall::new(id, name, args).with_signature(sig));
    (any::<String>(), prop::collection::vec(block, 0..4), prop::collection::vec(call, 0..6)).prop_map(
        |(content, thinking, tool_calls)| {
            let mut message = Message::new(Role::Assistant);
            message.content = content;
            message.thinking = thinking;
            message.tool_calls = tool_calls;
            message
        },
    )
}

fn arb_delta() -> impl Strategy<Value = Delta> {
    let index = prop_oneof![0u32..8, 1000u32..1100, any::<u32>()];
    prop_oneof![
        any::<String>().prop_map(Delta::text),
        (index.clone(), ".{0,4}", ".{0,4}").prop_map(|(index, text, signature)| Delta::Thinking {
            index,
            text,
            signature,
            redacted: String::new(),
        }),
        (index, ".{0,3}", ".{0,3}", ".{0,4}", ".{0,3}")
            .prop_map(|(index, id, name, args, signature)| { Delta::ToolCall { index, id, name, args, signature } }),
    ]
}

proptest! {
    /// SPEC MODEL-04 / STREAM-05: the deltas of a response assemble back to
    /// its message, at every chunk size, and text deltas concatenate to the
    /// content (STREAM-04).
    #[test]
    fn deltas_assemble_to_the_message(message in arb_message(), chunk in 0usize..9) {
        let response = Response::new(message);
        let deltas = response_deltas(&response, chunk);
        let text: String = deltas.iter().filter_map(|d| match d {
            Delta::Text { text } => Some(text.as_str()),
            _ => None,
        }).collect();
        prop_assert_eq!(&text, &response.message.content);
        prop_assert_eq!(assemble(&deltas), Ok(response.message.clone()));
        // And through a fake, blocking and async.
        let model = ScriptedModel::new().chunk_size(chunk).respond(response.clone()).respond(response.clone());
        let (streamed, seen) = stream_blocking(&model, &user("x"));
        prop_assert_eq!(streamed.unwrap(), response.clone());
        prop_assert_eq!(&seen, &deltas);
        let (streamed, seen) = stream_async(&model, &user("x"));
        prop_assert_eq!(streamed.unwrap(), response);
        prop_assert_eq!(seen, deltas);
    }

    /// ARCH-02: arbitrary deltas never panic the assembler, and it never
    /// holds more than the bounds allow.
    #[test]
    fn assembler_never_panics(deltas in prop::collection::vec(arb_delta(), 0..200)) {
        let mut asm = StreamAssembler::new();
        for delta in &deltas {
            let _ = asm.push(delta);
        }
        let message = asm.finish();
        prop_assert!(message.tool_calls.len() <= MAX_TOOL_CALLS);
    }

    /// A delta pushed by value lands exactly as one pushed by reference —
    /// errors included — whatever the assembler already holds.
    #[test]
    fn pushing_owned_deltas_agrees_with_pushing_borrowed_ones(deltas in prop::collection::vec(arb_delta(), 0..60)) {
        let mut borrowed = StreamAssembler::new().with_provider("p");
        let mut owned = StreamAssembler::new().with_provider("p");
        for delta in deltas {
            prop_assert_eq!(borrowed.push(&delta), owned.push_owned(delta));
        }
        prop_assert_eq!(borrowed.finish(), owned.finish());
    }
}

// ---------------------------------------------------------------------------
// sample_for_schema

/// A hand-written validator for the subset of JSON Schema the sampler claims
/// to honour, so the table below checks validity rather than exact values.
fn valid(value: &Value, schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 40 {
        return true;
    }
    let Value::Object(s) = schema else { return schema != &Value::Bool(false) };
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let target = if r == "#" { Some(root) } else { root.pointer(r.trim_start_matches('#')) };
        if !valid(value, target.expect("test schemas resolve"), root, depth + 1) {
            return false;
        }
    }
    if let Some(c) = s.get("const") {
        if value != c {
            return false;
        }
    }
    if let Some(Value::Array(options)) = s.get("enum") {
        if !options.contains(value) {
            return false;
        }
    }
    if let Some(Value::Array(parts)) = s.get("allOf") {
        if !parts.iter().all(|p| valid(value, p, root, depth + 1)) {
            return false;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = s.get(key) {
            if !branches.iter().any(|b| valid(value, b, root, depth + 1)) {
                return false;
            }
        }
    }
    let type_ok = |t: &str| match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    };
    match s.get("type") {
        Some(Value::String(t)) if !type_ok(t) => return false,
        Some(Value::Array(ts)) if !ts.iter().filter_map(Value::as_str).any(type_ok) => return false,
        _ => {}
    }
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    if let Some(x) = value.as_f64() {
        let checks = [
            num("minimum").is_none_or(|m| x >= m),
            num("maximum").is_none_or(|m| x <= m),
            num("exclusiveMinimum").is_none_or(|m| x > m),
            num("exclusiveMaximum").is_none_or(|m| x < m),
            num("multipleOf").is_none_or(|m| (x / m).fract() == 0.0),
        ];
        if checks.contains(&false) {
            return false;
        }
    }
    if let Some(text) = value.as_str() {
        let n = text.chars().count() as f64;
        if num("minLength").is_some_and(|m| n < m) || num("maxLength").is_some_and(|m| n > m) {
            return false;
        }
    }
    if let Some(items) = value.as_array() {
        let n = items.len() as f64;
        if num("minItems").is_some_and(|m| n < m) || num("maxItems").is_some_and(|m| n > m) {
            return false;
        }
        let prefix = s.get("prefixItems").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (i, item) in items.iter().enumerate() {
            let item_schema = prefix.get(i).or(s.get("items"));
            if item_schema.is_some_and(|sch| !valid(item, sch, root, depth + 1)) {
                return false;
            }
        }
    }
    if let Some(object) = value.as_object() {
        for name in s.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !object.contains_key(name.as_str().unwrap_or_default()) {
                return false;
            }
        }
        if let Some(Value::Object(props)) = s.get("properties") {
            for (name, sub) in props {
                if object.get(name).is_some_and(|v| !valid(v, sub, root, depth + 1)) {
                    return false;
                }
            }
        }
    }
    true
}

fn schemas() -> Vec<Value> {
    vec![
        json!({"type": "string"}),
        json!({"type": "string", "minLength": 5, "maxLength": 7}),
        json!({"type": "string", "maxLength": 0}),
        json!({"type": "string", "format": "date-time"}),
        json!({"type": "string", "format": "email", "maxLength": 3}),
        json!({"type": "integer"}),
        json!({"type": "integer", "minimum": 5}),
        json!({"type": "integer", "maximum": -3}),
        json!({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}),
        json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true}),
        json!({"type": "integer", "minimum": 1, "multipleOf": 5}),
        json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}),
        json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1}),
        json!({"type": "number", "minimum": 2.5}),
        json!({"type": "number", "exclusiveMaximum": -1.5}),
        json!({"type": "boolean"}),
        json!({"type": "null"}),
        json!({"type": ["string", "null"]}),
        json!({"type": ["null", "integer"]}),
        json!({"enum": ["red", "green"]}),
        json!({"enum": [null, 3]}),
        json!({"const": {"kind": "x"}}),
        json!({"type": "string", "default": "dflt"}),
        json!({"type": "integer", "examples": [42]}),
        json!({"type": "array", "items": {"type": "integer"}}),
        json!({"type": "array", "items": {"type": "string"}, "minItems": 3}),
        json!({"type": "array", "maxItems": 0}),
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": false}),
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}),
        json!({"type": "object", "required": ["free"], "additionalProperties": {"type": "boolean"}}),
        json!({"anyOf": [{"type": "null"}, {"type": "string", "minLength": 2}]}),
        json!({"oneOf": [{"type": "integer", "minimum": 9}, {"type": "string"}]}),
        json!({"allOf": [
            {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
            {"properties": {"y": {"type": "string"}}, "required": ["y"]}
        ]}),
        json!({"properties": {"inferred": {"minLength": 2}}}),
        // schemars 1.x (draft 2020-12): nested struct, Option, unit enum, Vec.
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Forecast",
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "format": "uint32", "minimum": 0},
                "note": {"type": ["string", "null"]},
                "unit": {"$ref": "#/$defs/Unit"},
                "unit_opt": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]},
                "points": {"type": "array", "items": {"$ref": "#/$defs/Point"}},
                "when": {"type": "string", "format": "date"}
            },
            "required": ["city", "days", "unit", "points"],
            "$defs": {
                "Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "Point": {
                    "type": "object",
                    "properties": {"t": {"type": "number", "format": "double"}, "label": {"type": "string"}},
                    "required": ["t", "label"]
                }
            }
        }),
        // Older drafts: `definitions` and `allOf`-wrapped references.
        json!({
            "type": "object",
            "properties": {"inner": {"allOf": [{"$ref": "#/definitions/Inner"}], "description": "wrapped"}},
            "required": ["inner"],
            "definitions": {"Inner": {"type": "object", "properties": {"v": {"type": "boolean"}}, "required": ["v"]}}
        }),
        // Tagged enum as schemars writes it.
        json!({
            "oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "a"}, "n": {"type": "integer"}},
                 "required": ["kind", "n"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}}, "required": ["kind"]}
            ]
        }),
        // A recursive tree: bottoms out in valid leaves.
        json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {
                "type": "object",
                "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                "required": ["value", "children"]
            }}
        }),
    ]
}

#[test]
fn samples_are_valid_for_a_table_of_schemas() {
    for schema in schemas() {
        let sample = sample_for_schema(&schema);
        assert!(valid(&sample, &schema, &schema, 0), "sample {sample} is not valid for {schema}");
    }
}

#[test]
fn samples_pick_the_expected_values() {
    let cases = [
        (json!({"type": "string"}), json!("a")),
        (json!({"type": "string", "minLength": 3}), json!("aaa")),
        (json!({"type": "string", "format": "date-time"}), json!("2024-01-01T00:00:00Z")),
        (json!({"type": "string", "format": "email", "maxLength": 3}), json!("a")),
        (json!({"type": "integer"}), json!(0)),
        (json!({"type": "integer", "minimum": 5}), json!(5)),
        (json!({"type": "integer", "exclusiveMinimum": 5}), json!(6)),
        (json!({"type": "integer", "minimum": 1, "multipleOf": 5}), json!(5)),
        (json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1}), json!(1)),
        (json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}), json!(0.5)),
        (json!({"type": "boolean"}), json!(true)),
        (json!({"type": ["null", "integer"]}), json!(0)),
        (json!({"enum": [null, 3]}), json!(3)),
        (json!({"type": "string", "enum": ["x", "y"], "default": "y"}), json!("x")),
        (json!({"const": 7, "enum": [1]}), json!(7)),
        (json!({"type": "string", "default": "d", "examples": ["e"]}), json!("d")),
        (json!({"type": "string", "examples": ["e"]}), json!("e")),
        (json!({"type": "array", "items": {"type": "boolean"}}), json!([true])),
        (json!({"type": "array", "items": {"type": "boolean"}, "minItems": 2}), json!([true, true])),
        (json!({"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 2}]}), json!(2)),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "null"}}}),
            json!({"a": "a", "b": null}),
        ),
        (json!({"$ref": "#/$defs/A", "$defs": {"A": {"type": "integer", "minimum": 3}}}), json!(3)),
        (json!({"$ref": "#/$defs/A", "default": 9, "$defs": {"A": {"type": "integer"}}}), json!(9)),
        (json!({}), Value::Null),
        (json!(true), Value::Null),
        (json!("not a schema"), Value::Null),
    ];
    for (schema, expected) in cases {
        assert_eq!(sample_for_schema(&schema), expected, "schema {schema}");
    }
}

#[test]
fn sampling_survives_cycles_and_huge_counts() {
    let cycle = json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}});
    assert_eq!(sample_for_schema(&cycle), Value::Null);
    let self_all_of = json!({"allOf": [{"$ref": "#"}, {"$ref": "#"}], "x": 1});
    let _ = sample_for_schema(&self_all_of);
    let fan_out = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#"}, "b": {"$ref": "#"}, "c": {"$ref": "#"}, "d": {"$ref": "#"}},
        "required": ["a", "b", "c", "d"]
    });
    let _ = sample_for_schema(&fan_out);
    let huge =
        json!({"type": "array", "minItems": 1e300, "items": {"type": "string", "minLength": 18446744073709551615u64}});
    let sample = sample_for_schema(&huge);
    assert!(sample.as_array().is_some_and(|a| a.len() <= 64));
    assert!(serde_json::to_string(&sample).unwrap().len() <= 200_000);
    let absurd = json!({"type": "number", "minimum": 1.7e308, "exclusiveMaximum": -1.7e308, "multipleOf": 1e-300});
    let _ = sample_for_schema(&absurd);
    let absurd_int = json!({"type": "integer", "minimum": 1e30});
    assert!(sample_for_schema(&absurd_int).is_number());
}

fn arb_schema() -> impl Strategy<Value = Value> {
    let keywords = prop::sample::select(vec![
        "type",
        "properties",
        "required",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "enum",
        "const",
        "default",
        "examples",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "format",
        "additionalProperties",
        "additionalItems",
        "a",
        "b",
    ]);
    let words = prop::sample::select(vec![
        "string",
        "integer",
        "number",
        "boolean",
        "null",
        "array",
        "object",
        "#",
        "#/$defs/a",
        "#/definitions/b",
        "#/properties/a",
        "#/$defs",
        "date-time",
        "email",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        words.prop_map(Value::from),
        ".{0,4}".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 80, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((keywords.clone(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest! {
    /// ARCH-02: no schema, however odd, panics the sampler.
    #[test]
    fn sampling_never_panics(schema in arb_schema()) {
        let _ = sample_for_schema(&schema);
    }
}

// ---------------------------------------------------------------------------
// TestModel

fn weather_tools() -> Vec<ToolDefinition> {
    vec![
        tool(
            "weather",
            json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
                   "required": ["city"]}),
        ),
        tool("clock", json!({"type": "object", "properties": {}})),
        tool("odd", json!({"type": "string"})),
    ]
}

/// Answer every call of the last assistant message.
fn with_results(mut request: Request, response: &Response) -> Request {
    request.messages_mut().push(response.message.clone());
    for call in &response.message.tool_calls {
        request.messages_mut().push(Message::tool_result(call.id.clone(), call.name.clone(), "ok"));
    }
    request
}

#[test]
fn test_model_calls_every_tool_then_answers() {
    let model = TestModel::new();
    let mut request = user("what is the weather?");
    request.tools = Arc::new(weather_tools());

    let first = model.generate(&request).unwrap();
    assert_eq!(first.finish_reason, FinishReason::ToolCall);
    assert_eq!(first.message.content, "");
    assert_eq!(
        first.message.tool_calls,
        vec![
            ToolCall::new("test_call_1", "weather", r#"{"city":"a","days":1}"#),
            ToolCall::new("test_call_2", "clock", "{}"),
            ToolCall::new("test_call_3", "odd", "{}"),
        ]
    );
    // "what is the weather?" is 20 chars → 5 tokens; the args are 25 chars → 7.
    assert_eq!(first.usage, Usage::new(5, 7));

    let request = with_results(request, &first);
    let second = model.generate(&request).unwrap();
    assert_eq!(second.finish_reason, FinishReason::Stop);
    assert_eq!(second.message.content, DEFAULT_ANSWER);
    assert!(second.message.tool_calls.is_empty());
    assert_eq!(second.usage.output_tokens, 3);

    // A new prompt on the same conversation calls the tools again, with ids
    // numbered after the earlier ones.
    let mut request = with_results(request, &second);
    request.messages_mut().push(Message::user("again"));
    let third = model.generate(&request).unwrap();
    let ids: Vec<&str> = third.message.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["test_call_4", "test_call_5", "test_call_6"]);
}

#[test]
fn test_model_without_tools_answers_at_once() {
    let model = TestModel::new().answer_text("fine");
    let response = model.generate(&user("")).unwrap();
    assert_eq!(response.message.content, "fine");
    assert_eq!(response.usage, Usage::new(1, 1));
    let (streamed, deltas) = stream_blocking(&model, &user(""));
    assert_eq!(streamed.unwrap(), response);
    assert_eq!(deltas, [Delta::text("fine")]);
}

#[test]
fn test_model_call_tools_restricts_the_calls() {
    let mut request = user("x");
    request.tools = Arc::new(weather_tools());
    let only_clock = TestModel::new().call_tools(["clock", "not-advertised"]).generate(&request).unwrap();
    let names: Vec<&str> = only_clock.message.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["clock"]);
    let none = TestModel::new().call_tools(Vec::<String>::new()).generate(&request).unwrap();
    assert_eq!(none.message.content, DEFAULT_ANSWER);
}

#[test]
fn test_model_answers_with_a_sample_of_the_output_schema() {
    let model = TestModel::new();
    let schema = json!({
        "type": "object",
        "properties": {"summary": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 10}},
        "required": ["summary", "score"]
    });
    let mut request = user("rate it");
    request.tools = Arc::new(weather_tools());
    request.output_schema = Some(Arc::new(golem_core::model::OutputSchema::new("rating", schema.clone())));
    let first = model.generate(&request).unwrap();
    assert_eq!(first.message.tool_calls.len(), 3);
    let answer = model.generate(&with_results(request, &first)).unwrap();
    let value: Value = serde_json::from_str(&answer.message.content).unwrap();
    assert_eq!(value, json!({"summary": "a", "score": 0}));
    assert!(valid(&value, &schema, &schema, 0));
}

#[test]
fn test_model_answers_through_the_output_tool() {
    let model = TestModel::new().with_output_tool("final_result");
    let output_schema = json!({"type": "object", "properties": {"response": {"type": "integer", "minimum": 3}}, "required": ["response"]});
    let mut tools = weather_tools();
    tools.push(tool("final_result", output_schema.clone()));
    let mut request = user("go");
    request.tools = Arc::new(tools);

    let first = model.generate(&request).unwrap();
    let names: Vec<&str> = first.message.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["weather", "clock", "odd"], "the output tool is not called in the first turn");

    let request = with_results(request, &first);
    let answer = model.generate(&request).unwrap();
    assert_eq!(answer.finish_reason, FinishReason::ToolCall);
    assert_eq!(answer.message.tool_calls, vec![ToolCall::new("test_call_4", "final_result", r#"{"response":3}"#)]);
    assert!(valid(&answer.message.tool_calls[0].args.parse().unwrap(), &output_schema, &output_schema, 0));

    // A rejection (a tool message bound to the output call) gets another
    // output call.
    let mut rejected = request.clone();
    rejected.messages_mut().push(answer.message.clone());
    rejected.messages_mut().push(Message::tool_result("test_call_4", "final_result", "Your result was rejected: no."));
    let retry = model.generate(&rejected).unwrap();
    assert_eq!(retry.message.tool_calls[0].name, "final_result");
    assert_eq!(retry.message.tool_calls[0].id, "test_call_5");

    // With only the output tool advertised, the first turn answers.
    let mut direct = user("go");
    direct.tools = Arc::new(vec![tool("final_result", output_schema)]);
    let answer = model.generate(&direct).unwrap();
    assert_eq!(answer.message.tool_calls[0].id, "test_call_1");
    assert_eq!(answer.message.tool_calls[0].name, "final_result");

    // A configured output tool that is not advertised falls back to text.
    assert_eq!(model.generate(&user("go")).unwrap().message.content, DEFAULT_ANSWER);
}

#[test]
fn test_model_streams_what_it_answers() {
    let model = TestModel::new().chunk_size(2);
    let mut request = user("x");
    request.tools = Arc::new(weather_tools());
    let plain = model.generate(&request).unwrap();
    let (streamed, deltas) = stream_blocking(&model, &request);
    assert_eq!(streamed.unwrap(), plain);
    assert_eq!(assemble(&deltas).unwrap(), plain.message);
    let (streamed, async_deltas) = stream_async(&model, &request);
    assert_eq!((streamed.unwrap(), async_deltas), (plain.clone(), deltas));
    assert_eq!(block_on(model.generate_async(&request)).unwrap(), plain);
}

//! Built-in tools and the provider parts they leave: the machine carries
//! the declared built-ins on every model request; an answer's provider
//! parts are kept in the history and sent back on the next call (never
//! executed as tools); the parts survive the durable JSON, and a stream of
//! an answer assembles to it with each part where it stood (MODEL-04).

use golem_core::builtin::{interleave, BuiltinTool, Piece, ProviderPart, ProviderPartKind, WebSearch};
use golem_core::machine::{Command, Input, Output, Start, ToolOutcome};
use golem_core::stream::{assemble, response_deltas};
use golem_core::{BuildError, Message, Moment, Response, RunConfig, RunMachine, ToolCall, ToolSpec};

fn part(kind: ProviderPartKind, raw: &str, at: usize) -> ProviderPart {
    ProviderPart::new("anthropic", kind, raw).with_id("srvtoolu_1").with_name("web_search").with_at(at)
}

fn searched() -> Message {
    Message::assistant("Looking.Found it.").with_provider_parts(vec![
        part(ProviderPartKind::Call, r#"{"type":"server_tool_use","id":"srvtoolu_1"}"#, 8),
        part(ProviderPartKind::Result, r#"{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1"}"#, 8),
    ])
}

#[test]
fn requests_carry_the_built_ins_and_the_history_keeps_the_parts() {
    let mut config = RunConfig::default();
    config.tools = vec![ToolSpec::new("t", "", serde_json::json!({"type": "object"}))];
    config.builtin_tools = vec![BuiltinTool::WebSearch(WebSearch::new().max_uses(2)), BuiltinTool::CodeExecution];
    let mut machine = RunMachine::new(config.clone(), Start::prompt("go"), Moment::ZERO).unwrap();
    let (id, request) = machine
        .drain()
        .into_iter()
        .find_map(|o| match o {
            Output::Command(Command::CallModel { id, request, .. }) => Some((id, request)),
            _ => None,
        })
        .unwrap();
    assert_eq!(*request.builtin_tools, config.builtin_tools);

    // The answer searched and then called a client tool: only that one runs.
    let mut message = searched();
    message.tool_calls = vec![ToolCall::new("c1", "t", "{}")];
    let response = Response::new(message).with_finish_reason(golem_core::FinishReason::ToolCall);
    let outputs = machine.step(Moment::ZERO, Input::ModelFinished { id, result: Ok(Box::new(response)) }).unwrap();
    let executed: Vec<_> = outputs
        .iter()
        .filter_map(|o| match o {
            Output::Command(Command::ExecuteTool { id, call, .. }) => Some((*id, call.name.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        executed.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>(),
        ["t"],
        "the provider's own call never runs"
    );
    let outputs = machine
        .step(Moment::ZERO, Input::ToolFinished { id: executed[0].0, outcome: ToolOutcome::output("ok") })
        .unwrap();
    let next = outputs
        .into_iter()
        .find_map(|o| match o {
            Output::Command(Command::CallModel { request, .. }) => Some(request),
            _ => None,
        })
        .expect("the next model call");
    let kept = next.messages.iter().find(|m| !m.provider_parts.is_empty()).expect("kept in the history sent");
    assert_eq!(kept.provider_parts, searched().provider_parts);
    assert_eq!(*next.builtin_tools, config.builtin_tools);
}

#[test]
fn a_built_in_declared_twice_is_a_build_error() {
    let mut config = RunConfig::default();
    config.builtin_tools = vec![BuiltinTool::UrlContext, BuiltinTool::UrlContext];
    assert_eq!(config.validate(), Err(BuildError::DuplicateBuiltin("url_context")));
}

#[test]
fn parts_survive_durable_json_byte_for_byte() {
    let message = searched();
    let json = serde_json::to_string(&message).unwrap();
    assert!(json.contains(r#""raw":{"type":"server_tool_use","id":"srvtoolu_1"}"#), "{json}");
    let back: Message = serde_json::from_str(&json).unwrap();
    assert_eq!(back, message);
    assert_eq!(back.provider_parts[0].raw.as_str(), r#"{"type":"server_tool_use","id":"srvtoolu_1"}"#);
}

#[test]
fn a_stream_of_an_answer_assembles_to_it_at_every_chunk_size() {
    let response = Response::new(searched());
    for chunk in 0..6 {
        let assembled = assemble(&response_deltas(&response, chunk)).unwrap();
        assert_eq!(assembled.content, response.message.content, "chunk {chunk}");
        assert_eq!(assembled.provider_parts, response.message.provider_parts, "chunk {chunk}");
    }
}

#[test]
fn interleave_places_parts_between_text_and_survives_bad_offsets() {
    let message = searched();
    let pieces = interleave(&message.content, &message.provider_parts, "anthropic");
    assert!(matches!(pieces[..], [Piece::Text("Looking."), Piece::Part(_), Piece::Part(_), Piece::Text("Found it.")]));
    // An offset inside a character or past the end (a hand-edited history) never panics.
    let odd = vec![part(ProviderPartKind::Call, "{}", 2), part(ProviderPartKind::Result, "{}", 99)];
    let pieces = interleave("é!", &odd, "anthropic");
    assert!(matches!(pieces[..], [Piece::Text("é"), Piece::Part(_), Piece::Text("!"), Piece::Part(_)]), "{pieces:?}");
    // Metadata is never sent back, so it splits no text.
    let meta = vec![part(ProviderPartKind::Metadata, "{}", 1)];
    assert!(matches!(interleave("ab", &meta, "anthropic")[..], [Piece::Text("ab")]));
}

/// Where a part stood among the thinking blocks (a family whose reasoning
/// and tool blocks alternate) survives the stream and the durable JSON; a
/// part that never said is written as before.
#[test]
fn thinking_at_survives_the_stream_and_the_json() {
    let mut message = searched();
    message.thinking = vec![
        golem_core::message::ThinkingBlock::redacted("first"),
        golem_core::message::ThinkingBlock::redacted("second"),
    ];
    message.provider_parts[0].thinking_at = Some(1);
    let response = Response::new(message.clone());
    let assembled = assemble(&response_deltas(&response, 3)).unwrap();
    assert_eq!(assembled.provider_parts, message.provider_parts);
    let json = serde_json::to_string(&message).unwrap();
    assert_eq!(json.matches("thinkingAt").count(), 1, "{json}");
    assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), message);
    let plain = serde_json::to_string(&searched()).unwrap();
    assert!(!plain.contains("thinkingAt"), "{plain}");
}

//! Byte-stable prefixes across a crash (issue 37, SPEC CACHE-02): a run resumed from its
//! event log sends, turn for turn, the very bytes the uninterrupted run
//! sent — for every family, with caching as it is by default — so a
//! provider's prompt cache (explicit marks or implicit prefixes) still hits
//! after the process died. The history the log restores carries what the
//! encoders put on the wire exactly: tool arguments as the model wrote them
//! (fractions, exponents, key order), thinking signatures, provider parts.
//!
//! The run is cut after every one of its log records, as a process killed
//! there leaves it, and continued by a new agent.

use crate::support::SharedLog;
use golem_core::builtin::{ProviderPart, ProviderPartKind};
use golem_core::log::EventLog;
use golem_core::message::{Message, Role, ThinkingBlock, ToolCall};
use golem_core::model::{Request, Response};
use golem_core::testing::FnModel;
use golem_io::{Agent, Tool, ToolContext};
use golem_providers::codec::HttpCodec;
use golem_providers::sigv4::Credentials;
use golem_providers::{anthropic, azure, bedrock, gemini, openai};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Request bodies by turn (the number of assistant messages sent).
type Sent = Arc<Mutex<BTreeMap<usize, Vec<u8>>>>;

/// The model's answer to the request of `turn`, shaped like `family`'s:
/// thinking with a signature, parallel calls with arguments a re-encoder
/// would change (a trailing zero, an exponent, keys out of order), and on
/// Anthropic a server tool's call and result between two texts.
fn answer(family: &str, turn: usize) -> Response {
    let mut thought = ThinkingBlock::text(format!("Turn {turn}: which tools?"));
    thought.signature = format!("sig-{family}-{turn}-EqQBCkYIBxgC==");
    thought.provider = family.to_string();
    let message = match turn {
        0 => {
            let mut message = Message::assistant_calls(vec![
                ToolCall::new(format!("call_{turn}_a"), "weather", r#"{"z": 0.10, "a": "Lisbon"}"#),
                ToolCall::new(format!("call_{turn}_b"), "convert", r#"{"a":"km","z":1e-7}"#),
            ]);
            message.content = "Let me look.Checking both.".into();
            if family == anthropic::FAMILY {
                let call =
                    r#"{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"Lisbon"}}"#;
                let result = r#"{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://example.org","title":"Lisbon","encrypted_content":"EqwBopaque=="}]}"#;
                message.provider_parts = vec![
                    ProviderPart::new(family, ProviderPartKind::Call, call).with_id("srvtoolu_1").with_at(12),
                    ProviderPart::new(family, ProviderPartKind::Result, result).with_id("srvtoolu_1").with_at(12),
                ];
            }
            message
        }
        1 => Message::assistant_calls(vec![ToolCall::new("call_1_a", "add", r#"{ "z" : 3.50 , "a" : "x" }"#)]),
        _ => Message::assistant("Sunny, 14.5 km."),
    };
    Response::new(message.with_thinking(vec![thought]))
}

/// An agent whose model encodes each request with `codec` (what the
/// client would send) into `sent`, then answers as `family` would. The
/// tools are idempotent: a call the crash cut off runs again on resume
/// instead of coming back as lost, so the resumed history is the one the
/// uninterrupted run had and its bytes can be compared.
fn agent<C: HttpCodec + 'static>(codec: Arc<C>, family: &'static str, sent: &Sent) -> Agent<()> {
    let sent = Arc::clone(sent);
    let model = FnModel::new(move |request: &Request| {
        let turn = request.messages.iter().filter(|m| m.role == Role::Assistant).count();
        let body = codec.encode(request, false).map_err(|e| panic!("{family} turn {turn}: {e}")).unwrap();
        sent.lock().unwrap().insert(turn, body.body.to_vec());
        Ok(answer(family, turn))
    });
    let schema = json!({"type": "object", "required": ["z", "a"],
        "properties": {"z": {"type": "number"}, "a": {"type": "string"}}});
    let tool = |name: &'static str| {
        Tool::new(name, "A travel tool.", schema.clone(), move |_: ToolContext<()>, _args| Ok(format!("{name}: 0.5")))
            .idempotent()
    };
    Agent::builder(model)
        .instructions("You plan trips. ".repeat(300))
        .tool(tool("weather"))
        .tool(tool("convert"))
        .tool(tool("add"))
        .parallel_tools(true)
        .build()
        .unwrap()
}

fn resumes_with_the_same_bytes<C: HttpCodec + 'static>(name: &str, codec: C, family: &'static str) {
    let codec = Arc::new(codec);
    let whole: Sent = Sent::default();
    let buffer = SharedLog::default();
    let first = agent(Arc::clone(&codec), family, &whole);
    let done = first.run_with(()).prompt("Plan Lisbon.").record(buffer.clone()).call().unwrap();
    assert_eq!(done.output, "Sunny, 14.5 km.");
    let whole = whole.lock().unwrap().clone();
    assert_eq!(whole.len(), 3, "{name}: three requests");
    let full = EventLog::parse(&buffer.text()).unwrap();
    let mut resent = BTreeMap::<usize, usize>::new();
    for cut in 0..full.records.len() {
        let mut prefix = EventLog::new(full.header.clone());
        prefix.records = full.records[..cut].to_vec();
        let log = EventLog::parse(&prefix.to_jsonl()).unwrap();
        let sent = Sent::default();
        let again = agent(Arc::clone(&codec), family, &sent).run_with(()).continue_log(&log).unwrap().call();
        assert_eq!(again.unwrap_or_else(|e| panic!("{name} cut {cut}: {e}")).output, done.output);
        for (turn, body) in sent.lock().unwrap().iter() {
            assert!(
                *body == whole[turn],
                "{name}, cut after record {cut}: turn {turn} sent other bytes than the uninterrupted run:\n{}\n{}",
                String::from_utf8_lossy(body),
                String::from_utf8_lossy(&whole[turn])
            );
            *resent.entry(*turn).or_default() += 1;
        }
    }
    // Every turn was re-sent from a restored history at least once, so
    // the comparison above covered each of them.
    assert_eq!(resent.keys().copied().collect::<Vec<_>>(), [0, 1, 2], "{name}: {resent:?}");
    assert!(resent[&2] > 1, "{name}: {resent:?}");
}

#[test]
fn chat_completions_resumes_with_the_same_bytes() {
    let config = openai::Config::builder(openai::Preset::openai(), "gpt-4.1").api_key("sk-test").build().unwrap();
    resumes_with_the_same_bytes("openai", openai::Codec::new(config), "openai");
    let config = azure::Config::builder("https://example.openai.azure.com", "gpt-4o", "2024-12-01-preview");
    resumes_with_the_same_bytes("azure", azure::Codec::new(config.api_key("k").build().unwrap()), "openai");
}

#[test]
fn gemini_resumes_with_the_same_bytes() {
    let config = gemini::Config::builder("gemini-2.5-flash").api_key("AIza-test").build().unwrap();
    resumes_with_the_same_bytes("gemini", gemini::Codec::new(config), gemini::FAMILY);
}

#[test]
fn anthropic_resumes_with_the_same_bytes_cache_marks_included() {
    let config = anthropic::Config::builder("claude-sonnet-4-5").api_key("sk-ant-test").build().unwrap();
    resumes_with_the_same_bytes("anthropic", anthropic::Codec::new(config), anthropic::FAMILY);
}

#[test]
fn bedrock_resumes_with_the_same_bytes_cache_points_included() {
    for model in ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "amazon.nova-pro-v1:0"] {
        let config = bedrock::Config::builder("us-east-1", model).credentials(Credentials::new("AKIDEXAMPLE", "s"));
        resumes_with_the_same_bytes(model, bedrock::Codec::new(config.build().unwrap()), bedrock::FAMILY);
    }
}

//! A built-in tool end to end, per family: an agent declares it, its client
//! runs against a loopback server replaying a recorded streamed answer,
//! and the provider's call and result reach the observers as
//! `Delta::Provider` events, stay on the run's assistant message, and show
//! in the HTML run report — named, with their id and kind (issue 36).

use crate::server::{Reply, Server};
use golem_core::builtin::{BuiltinTool, ProviderPart, ProviderPartKind, WebSearch};
use golem_core::log::EventLog;
use golem_core::{Delta, EventKind, RunEvent};
use golem_io::observe::{render_html, TraceSettings};
use golem_io::Agent;
use std::sync::{Arc, Mutex};

/// A streamed, recorded run of `agent`: the provider parts its observers
/// heard, the run's assistant message's parts, and the report page.
fn run(agent: &Agent<()>) -> (Vec<ProviderPart>, Vec<ProviderPart>, String) {
    let heard: Arc<Mutex<Vec<RunEvent>>> = Arc::default();
    let observer = Arc::clone(&heard);
    let mut log = Vec::new();
    let result = agent
        .run_with(())
        .prompt("go")
        .stream(true)
        .observer(move |e| observer.lock().unwrap().push(e.clone()))
        .record(&mut log)
        .call()
        .expect("the run completes");
    let events = heard.lock().unwrap().clone();
    let streamed = events
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::Delta { delta: Delta::Provider { part }, .. } => Some(part),
            _ => None,
        })
        .collect();
    let answer = result.messages.iter().rev().find(|m| m.role == golem_core::Role::Assistant).unwrap();
    let page = render_html(&EventLog::read_bytes(&log).unwrap().log, &TraceSettings::new()).unwrap();
    (streamed, answer.provider_parts.clone(), page)
}

/// The parts heard are the parts kept (offsets aside: a streamed part is
/// placed when assembled), there is a call, and the report shows each.
fn check(family: &str, (heard, kept, page): (Vec<ProviderPart>, Vec<ProviderPart>, String)) {
    let strip = |parts: &[ProviderPart]| -> Vec<ProviderPart> { parts.iter().map(|p| p.clone().with_at(0)).collect() };
    assert_eq!(strip(&heard), strip(&kept), "{family}: events and history agree");
    assert!(kept.iter().any(|p| p.kind == ProviderPartKind::Call), "{family}: a call");
    // Calls and results have ids; metadata (Bedrock's grounding citations) may not.
    let ids = kept.iter().all(|p| p.kind == ProviderPartKind::Metadata || !p.id.is_empty());
    assert!(kept.iter().all(|p| p.provider == family) && ids, "{family}");
    for part in &kept {
        let kind = match part.kind {
            ProviderPartKind::Call => "runs",
            ProviderPartKind::Result => "result of",
            _ => "metadata",
        };
        let shown = format!("{family} {kind} {} <code>{}</code>", part.name, part.id);
        assert!(page.contains(&shown), "{family}: the report shows {shown}");
    }
}

#[test]
fn anthropic_web_search_parts_reach_events_history_and_report() {
    let sse = crate::anthropic::recorded("messages_stream_web_search", "01.response.sse");
    let server = Server::start(vec![crate::anthropic::sse_reply(&sse, 512)]);
    let model = crate::anthropic::client(&server.url());
    let agent = Agent::<()>::builder(model).builtin_tool(BuiltinTool::WebSearch(WebSearch::new())).build().unwrap();
    check("anthropic", run(&agent));
    assert_eq!(server.requests()[0].json()["tools"][0]["name"], "web_search");
}

#[test]
fn gemini_code_execution_parts_reach_events_history_and_report() {
    let sse = crate::gemini::recorded("stream_code_execution", "01.response.sse");
    let server = Server::start(vec![Reply::sse(sse.chunks(512).map(<[u8]>::to_vec))]);
    let model = crate::gemini::client(&server.url());
    let agent = Agent::<()>::builder(model).builtin_tool(BuiltinTool::CodeExecution).build().unwrap();
    check("gemini", run(&agent));
    assert!(server.requests()[0].json()["tools"][0].get("codeExecution").is_some());
}

#[test]
fn bedrock_grounding_parts_reach_events_history_and_report() {
    let stream = crate::bedrock::recorded("converse_stream_nova_grounding", "01.response.bin");
    let server = Server::start(vec![crate::bedrock::stream_reply(stream.chunks(512).map(<[u8]>::to_vec))]);
    let builder = crate::bedrock::builder(&server.url()).model("us.amazon.nova-2-lite-v1:0");
    let model = crate::bedrock::client_with(builder);
    let agent = Agent::<()>::builder(model).builtin_tool(BuiltinTool::WebSearch(WebSearch::new())).build().unwrap();
    check("bedrock", run(&agent));
    let tools = &server.requests()[0].json()["toolConfig"]["tools"];
    assert_eq!(tools[0]["systemTool"]["name"], "nova_grounding");
}

/// Chat Completions' search models run their search inside the call and
/// leave only citations: the recorded `url_citation` annotations, streamed
/// in a chunk of their own, reach the observers, stay on the message as one
/// metadata part and show in the report.
#[test]
fn chat_search_citations_reach_events_history_and_report() {
    use golem_providers::openai::{Config, Preset};
    use golem_providers::OpenAi;
    use serde_json::{json, Value};

    let recorded = crate::support::read(
        &crate::support::case_dir("openai/chat_web_search_options_url_citation").join("01.response.json"),
    );
    let recorded: Value = serde_json::from_slice(&recorded).unwrap();
    let message = &recorded["choices"][0]["message"];
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": message["content"]}}]}),
        json!({"choices": [{"index": 0, "delta": {"annotations": message["annotations"]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ];
    let sse: String = chunks.iter().map(|c| format!("data: {c}\n\n")).chain(["data: [DONE]\n\n".into()]).collect();
    let server = Server::start(vec![Reply::sse(sse.as_bytes().chunks(512).map(<[u8]>::to_vec))]);
    let config = Config::builder(Preset::openai(), "gpt-4o-mini-search-preview")
        .base_url(format!("{}/v1", server.url()))
        .api_key(crate::models::KEY)
        .build()
        .unwrap();
    let agent = Agent::<()>::builder(OpenAi::new(config))
        .builtin_tool(BuiltinTool::WebSearch(WebSearch::new()))
        .build()
        .unwrap();
    let (heard, kept, page) = run(&agent);
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].clone().with_at(0), kept[0].clone().with_at(0));
    assert_eq!(
        (kept[0].kind, kept[0].name.as_str(), kept[0].provider.as_str()),
        (ProviderPartKind::Metadata, "annotations", "openai")
    );
    assert_eq!(serde_json::from_str::<Value>(kept[0].raw.as_str()).unwrap(), message["annotations"]);
    assert!(page.contains("openai metadata annotations"), "the report shows the citations");
    assert!(server.requests()[0].json().get("web_search_options").is_some());
}

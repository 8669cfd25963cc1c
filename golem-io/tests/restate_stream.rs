//! A streamed durable run (SPEC DUR-04): the service's observers hear the
//! model's fragments as they arrive, while the journal keeps the call's
//! answer; a replay feeds the machine the same fragments without anyone
//! hearing them again; a call cut off mid-stream by a SIGKILL streams
//! again, once, in its new execution.

use crate::restate_support::observed::{comparable, logged, observed, observer};
use crate::restate_support::service::{self, count, counted, hold, serve_if_child, wait_for, Service};
use crate::restate_support::Server;
use golem_io::restate::{DurableAgents, Ingress, RunRequest};
use golem_io::{
    Agent, Delta, DeltaSink, ModelError, Request, Response, Role, StreamingModel, Tool, ToolCall, ToolContext,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The second turn's text, streamed a word at a time.
const WORDS: [&str; 5] = ["alpha", " beta", " gamma", " delta", " epsilon"];
/// Between two words of the second turn.
const GAP: Duration = Duration::from_millis(200);

/// Streams a call of the `stamp` tool, then — once the tool answered —
/// [`WORDS`], one every [`GAP`]. With `hold-stream` present the first
/// second turn stops after two words until the process is killed.
struct Streamer {
    dir: PathBuf,
}

impl StreamingModel for Streamer {
    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        if !request.messages.iter().any(|m| m.role == Role::Tool) {
            count(&self.dir, "model-1");
            let fragment = Delta::ToolCall {
                index: 0,
                id: "c1".into(),
                name: "stamp".into(),
                args: "{}".into(),
                signature: String::new(),
            };
            sink.delta(fragment).map_err(ModelError::sink_aborted)?;
            return Ok(Response::tool_calls(vec![ToolCall::new("c1", "stamp", "{}")]));
        }
        count(&self.dir, "model-2");
        for (i, word) in WORDS.iter().enumerate() {
            if i == 2 {
                hold(&self.dir, "stream");
            }
            std::thread::sleep(GAP);
            sink.delta(Delta::text(*word)).map_err(ModelError::sink_aborted)?;
        }
        Ok(Response::text(WORDS.concat()))
    }
}

fn agents(dir: &Path) -> DurableAgents {
    let stamp = {
        let dir = dir.to_path_buf();
        Tool::new("stamp", "Stamp it.", json!({"type": "object"}), move |_: ToolContext<()>, _args| {
            count(&dir, "tool-stamp");
            Ok("stamped")
        })
    };
    let agent = Agent::builder(Streamer { dir: dir.to_path_buf() }).tool(stamp).build().unwrap();
    DurableAgents::new().agent("streamer", agent, ()).observer(observer(dir))
}

/// Not a test: the service the tests start, as a child process.
#[test]
fn service_child() {
    serve_if_child(agents);
}

fn setup(test: &str) -> Option<(tempfile::TempDir, Server, Service)> {
    service::setup(test, "restate_stream::service_child")
}

/// The text fragments among `events`, in order.
fn words(events: &[Value]) -> Vec<&str> {
    events.iter().filter(|e| e["event"] == "delta").filter_map(|e| e["delta"]["text"].as_str()).collect()
}

#[test]
fn dur04_a_streamed_durable_run_delivers_its_fragments_live() {
    let Some((_scratch, server, service)) = setup("restate_stream (DUR-04 live)") else { return };
    let ingress = Ingress::new(server.ingress_url());
    ingress.start("live-1", &RunRequest::new("streamer", "stamp it").streamed()).unwrap();
    let outcome = ingress.outcome("live-1").unwrap();
    assert_eq!(outcome.output(), Some(&json!(WORDS.concat())), "{:?}", outcome.error);

    let heard = observed(&service.dir, "live-1");
    assert_eq!(words(&heard), WORDS);
    // Live: each word was heard when the model sent it, not all at the end
    // of the call — the first one four gaps (800 ms) before the last.
    let at = |e: &Value| e["ms"].as_u64().unwrap();
    let texts: Vec<&Value> = heard.iter().filter(|e| e["event"] == "delta" && e["delta"]["text"].is_string()).collect();
    let spread = at(texts[4]) - at(texts[0]);
    assert!(spread >= 600, "the words were heard within {spread} ms of each other");
    let call_end = heard.iter().rev().find(|e| e["event"] == "model_end").map(at).unwrap();
    assert!(at(texts[0]) + 600 <= call_end, "the first word was heard as the call ended");
    // Each event once, and exactly the run's own (its log replays to them).
    let heard: Vec<Value> = heard.iter().map(comparable).collect();
    let log: Vec<Value> = logged(&outcome.logs[0]).iter().map(comparable).collect();
    assert_eq!(heard, log);
    assert_eq!((counted(&service.dir, "model-1"), counted(&service.dir, "model-2")), (1, 1));
}

#[test]
fn dur04_a_service_killed_mid_stream_streams_the_call_again_and_replays_no_fragment() {
    let Some((_scratch, server, mut service)) = setup("restate_stream (DUR-04 kill)") else { return };
    let dir = service.dir.clone();
    let ingress = Ingress::new(server.ingress_url());
    std::fs::write(dir.join("hold-stream"), b"").unwrap();
    ingress.start("cut-1", &RunRequest::new("streamer", "stamp it").streamed()).unwrap();
    wait_for(&dir, "held-stream");
    // The model holds after sending its second word; killed once the
    // observer heard it.
    let started = std::time::Instant::now();
    while words(&observed(&dir, "cut-1")).len() < 2 {
        assert!(started.elapsed() < Duration::from_secs(60), "the first two words were never heard");
        std::thread::sleep(Duration::from_millis(10));
    }
    service.crash_and_restart();
    let outcome = ingress.outcome("cut-1").unwrap();
    assert_eq!(outcome.output(), Some(&json!(WORDS.concat())), "{:?}", outcome.error);
    // The cut-off call ran twice (once per execution); nothing else did.
    assert_eq!((counted(&dir, "model-1"), counted(&dir, "tool-stamp"), counted(&dir, "model-2")), (1, 1, 2));

    let heard = observed(&dir, "cut-1");
    // The first execution's two words, then the whole new execution; the
    // first turn's streamed tool call, replayed, was not heard again.
    assert_eq!(words(&heard), [&WORDS[..2], &WORDS[..]].concat());
    assert_eq!(heard.iter().filter(|e| e["event"] == "delta" && e["delta"]["name"] == "stamp").count(), 1);
    // Apart from the cut-off words, every event of the run's log was heard
    // once: the second execution's words take the first one's places.
    let log: Vec<Value> = logged(&outcome.logs[0]).iter().map(comparable).collect();
    let cut = heard.iter().position(|e| e["event"] == "delta" && e["delta"]["text"] == WORDS[0]).unwrap();
    let mut kept: Vec<Value> = heard.iter().map(comparable).collect();
    kept.drain(cut..cut + 2);
    assert_eq!(kept, log);
    let seqs: Vec<u64> = kept.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
}

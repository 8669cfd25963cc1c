//! Observers, spans and tool errors of durable runs (SPEC DUR-04): a
//! durable run's observed events and spans equal an in-process run's; a
//! SIGKILL mid-tool neither repeats nor loses an observed event or a span;
//! a tool's error keeps its kind and cause chain across a replay.

use crate::restate_support::observed::{comparable, logged, observed, observer};
use crate::restate_support::service::{self, child_dir, count, counted, hold, serve_if_child, wait_for, Service};
use crate::restate_support::Server;
use golem_io::observe::{ModelInfo, TraceSettings};
use golem_io::restate::{DurableAgents, Ingress, JournaledError, RunRequest};
use golem_io::{
    Agent, CauseRecord, Model, ModelError, Price, Request, Response, Role, RunEvent, Stage, Tool, ToolCall,
    ToolContext, ToolError, Usage,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Asks for the forecast, then reports it; each turn reports usage.
struct Forecaster;

impl Model for Forecaster {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        Ok(match request.messages.iter().rev().find(|m| m.role == Role::Tool) {
            Some(result) => Response::text(format!("Forecast: {}", result.content)).with_usage(Usage::new(40, 9)),
            None => Response::tool_calls(vec![ToolCall::new("c1", "forecast", r#"{"city":"Oslo"}"#)])
                .with_usage(Usage::new(25, 6)),
        })
    }
}

/// `forecaster`, traced with a priced model; its tool holds with
/// `hold-forecast`.
fn forecaster(dir: &Path) -> Agent<()> {
    let dir = dir.to_path_buf();
    let forecast =
        Tool::new("forecast", "Today's forecast.", json!({"type": "object"}), move |_: ToolContext<()>, _| {
            count(&dir, "tool-forecast");
            hold(&dir, "forecast");
            Ok("Oslo: sunny")
        });
    let trace = TraceSettings::new()
        .agent_name("forecaster")
        .model(ModelInfo::new("openai", "gpt-4o-mini").with_price(Price::per_million(0.15, 0.6)));
    Agent::builder(Forecaster).tool(forecast).trace(trace).build().unwrap()
}

/// A stock check failed because the warehouse refused the connection.
#[derive(Debug, thiserror::Error)]
#[error("stock check failed")]
struct StockError(#[source] std::io::Error);

/// `fragile`: its tool fails fatally with a [`StockError`].
fn fragile(dir: &Path) -> Agent<()> {
    let dir = dir.to_path_buf();
    let stock = Tool::new("stock", "Stock level.", json!({"type": "object"}), move |_: ToolContext<()>, _| {
        count(&dir, "tool-stock");
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "warehouse offline");
        Err::<String, _>(ToolError::fatal(StockError(refused)))
    });
    let model = |_: &Request| Ok(Response::tool_calls(vec![ToolCall::new("c1", "stock", "{}")]));
    Agent::builder(golem_core::testing::FnModel::new(model)).tool(stock).build().unwrap()
}

fn agents(dir: &Path) -> DurableAgents {
    DurableAgents::new()
        .agent("forecaster", forecaster(dir), ())
        .agent("fragile", fragile(dir), ())
        .observer(observer(dir))
}

/// Not a test: the service the tests start, as a child process — its
/// spans written to a file as they close.
#[test]
fn service_child() {
    #[cfg(feature = "tracing")]
    if let Some(dir) = child_dir() {
        use tracing_subscriber::layer::SubscriberExt;
        let layer = crate::restate_support::observed::SpanFile { path: dir.join("spans") };
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();
    }
    #[cfg(not(feature = "tracing"))]
    let _ = child_dir;
    serve_if_child(agents);
}

fn setup(test: &str) -> Option<(tempfile::TempDir, Server, Service)> {
    service::setup(test, "restate_observe::service_child")
}

#[test]
fn dur04_observed_events_and_spans_of_a_durable_run_equal_an_in_process_run() {
    let Some((scratch, server, service)) = setup("restate_observe (DUR-04 equal)") else { return };
    let ingress = Ingress::new(server.ingress_url());
    ingress.start("oslo-1", &RunRequest::new("forecaster", "Weather in Oslo?")).unwrap();
    let outcome = ingress.outcome("oslo-1").unwrap();
    assert_eq!(outcome.output(), Some(&json!("Forecast: Oslo: sunny")), "{:?}", outcome.error);

    // The same agent on the blocking driver, in this process.
    let local: PathBuf = scratch.path().join("local");
    std::fs::create_dir(&local).unwrap();
    let heard: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = Arc::clone(&heard);
    let run = || {
        forecaster(&local)
            .run_with(())
            .prompt("Weather in Oslo?")
            .observer(move |e: &RunEvent| sink.lock().unwrap().push(serde_json::to_value(e).unwrap()))
            .call()
            .unwrap()
    };
    #[cfg(feature = "tracing")]
    let result = {
        use tracing_subscriber::layer::SubscriberExt;
        let layer = crate::restate_support::observed::SpanFile { path: local.join("spans") };
        tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), run)
    };
    #[cfg(not(feature = "tracing"))]
    let result = run();
    assert_eq!(result.output, "Forecast: Oslo: sunny");

    let durable: Vec<Value> = observed(&service.dir, "oslo-1").iter().map(comparable).collect();
    let in_process: Vec<Value> = heard.lock().unwrap().iter().map(comparable).collect();
    assert_eq!(durable, in_process);
    assert_eq!(durable, logged(&outcome.logs[0]).iter().map(comparable).collect::<Vec<_>>());

    #[cfg(feature = "tracing")]
    {
        use crate::restate_support::observed::{closed_spans, outline};
        let mut durable = outline(&closed_spans(&service.dir.join("spans")));
        let in_process = outline(&closed_spans(&local.join("spans")));
        let names: Vec<&str> = durable.iter().filter_map(|s| s["name"].as_str()).collect();
        let metrics = ["metric"; 3];
        assert_eq!(names, [&metrics[..], &["chat", "execute_tool"], &metrics, &["chat", "invoke_agent"]].concat());
        // The durable root sits in the SDK's span of the invocation (whose
        // `restate.invocation.id` ties the two traces); in-process it is a
        // root. Everything else is the same.
        let root = durable.iter_mut().find(|s| s["name"] == "invoke_agent").unwrap();
        assert_eq!(root["parent"], "restate_sdk_endpoint_handle");
        root["parent"] = Value::Null;
        assert_eq!(durable, in_process);
    }
}

#[test]
fn dur04_a_kill_mid_tool_neither_repeats_nor_loses_an_observed_event_or_span() {
    let Some((_scratch, server, mut service)) = setup("restate_observe (DUR-04 kill)") else { return };
    let dir = service.dir.clone();
    let ingress = Ingress::new(server.ingress_url());
    std::fs::write(dir.join("hold-forecast"), b"").unwrap();
    ingress.start("oslo-2", &RunRequest::new("forecaster", "Weather in Oslo?")).unwrap();
    wait_for(&dir, "held-forecast");
    service.crash_and_restart();
    let outcome = ingress.outcome("oslo-2").unwrap();
    assert!(outcome.result.is_some(), "{:?}", outcome.error);
    assert_eq!(counted(&dir, "tool-forecast"), 1);

    // Every event of the run heard exactly once, across the two processes.
    let heard: Vec<Value> = observed(&dir, "oslo-2").iter().map(comparable).collect();
    assert_eq!(heard, logged(&outcome.logs[0]).iter().map(comparable).collect::<Vec<_>>());
    assert!(heard.iter().any(|e| e["event"] == "recovered"), "{heard:?}");

    #[cfg(feature = "tracing")]
    {
        use crate::restate_support::observed::closed_spans;
        let traced = closed_spans(&dir.join("spans"));
        // Each model call's metrics once (two calls, three each).
        assert_eq!(traced.iter().filter(|s| s["name"] == "metric").count(), 6);
        let spans: Vec<Value> = traced.into_iter().filter(|s| s["name"] != "metric").collect();
        let names: Vec<&str> = spans.iter().filter_map(|s| s["name"].as_str()).collect();
        // The first process closed the first call's span before it died;
        // the second opened the root (resumed) and the tool's span when it
        // went live, and closed them with the rest — nothing twice.
        assert_eq!(names, ["chat", "execute_tool", "chat", "invoke_agent"], "{spans:#?}");
        let field = |i: usize, name: &str| spans[i]["fields"][name].as_str().unwrap_or_default().to_string();
        assert_eq!((field(0, "golem.turn"), field(2, "golem.turn")), ("0".to_string(), "1".to_string()));
        // Its outcome unknown, the call failed (the tool's default policy).
        assert_eq!(field(1, "golem.tool.outcome"), "failed");
        assert_eq!(field(3, "golem.resumed"), "true");
        assert_eq!(field(3, "golem.outcome"), "completed");
        assert!(spans[1..].iter().all(|s| s["parent"] == "invoke_agent" || s["name"] == "invoke_agent"));
    }
}

#[test]
fn dur04_a_tool_error_keeps_its_kind_and_cause_across_a_replay() {
    let Some((_scratch, server, mut service)) = setup("restate_observe (DUR-04 errors)") else { return };
    let dir = service.dir.clone();
    let ingress = Ingress::new(server.ingress_url());
    let expected = [
        CauseRecord::new("error", "stock check failed"),
        CauseRecord::new("io::ConnectionRefused", "warehouse offline"),
    ];

    // Never replayed: the error object itself.
    ingress.start("stock-1", &RunRequest::new("fragile", "stock?")).unwrap();
    let reference = ingress.outcome("stock-1").unwrap();
    assert_eq!(reference.causes, expected);

    // Killed after the tool's failure was journaled, before the run ended
    // (an observer holds on the tool's end): the next process replays the
    // failure and rebuilds the error from the journal.
    std::fs::write(dir.join("hold-observer"), b"").unwrap();
    ingress.start("stock-2", &RunRequest::new("fragile", "stock?")).unwrap();
    wait_for(&dir, "held-observer");
    service.crash_and_restart();
    let outcome = ingress.outcome("stock-2").unwrap();
    assert_eq!(counted(&dir, "tool-stock"), 2, "the failing tool ran again on replay");
    assert_eq!(outcome.causes, expected);
    let error = outcome.error.as_ref().unwrap();
    assert_eq!(error.stage, Stage::Tool);
    assert_eq!(error.cause, reference.error.as_ref().unwrap().cause);
    // The caller's error has its source chain back, kind by kind.
    let source = std::error::Error::source(error).unwrap().downcast_ref::<JournaledError>().unwrap();
    assert_eq!((source.kind(), source.to_string().as_str()), ("error", "stock check failed"));
    let cause = std::error::Error::source(source).unwrap().downcast_ref::<JournaledError>().unwrap();
    assert_eq!((cause.kind(), cause.to_string().as_str()), ("io::ConnectionRefused", "warehouse offline"));
}

//! OpenTelemetry GenAI traces (SPEC OBS-01, OBS-02, OBS-03, OBS-05),
//! exported through `tracing-opentelemetry` into the OpenTelemetry SDK's
//! in-memory exporter: the exact span tree and attributes of a tool run, a
//! retried call, a fallback, a failed run and a streamed run; the same
//! under both drivers; the same again — timestamps included — when the
//! run's log is replayed.

use golem_core::log::EventLog;
use golem_core::testing::ScriptedModel;
use golem_core::{ModelError, Price, Response, ToolCall, Usage};
use golem_io::observe::{trace_log, ModelInfo, TraceSettings};
use golem_io::{Agent, Tool, ToolContext};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::Value;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use std::collections::BTreeMap;
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

/// Run `f` with a subscriber that exports every span into memory, and
/// return what it returned and the finished spans in the order they ended.
fn traced<R>(f: impl FnOnce() -> R) -> (R, Vec<SpanData>) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("golem-test"))
        .with_location(false)
        .with_threads(false)
        .with_tracked_inactivity(false);
    let subscriber = tracing_subscriber::registry().with(layer);
    let result = tracing::subscriber::with_default(subscriber, f);
    let spans = exporter.get_finished_spans().expect("the in-memory exporter answers");
    (result, spans)
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.as_str().to_string(),
        other => other.to_string(),
    }
}

/// A span's attributes by key.
fn attrs(span: &SpanData) -> BTreeMap<String, String> {
    span.attributes.iter().map(|kv| (kv.key.as_str().to_string(), text(&kv.value))).collect()
}

/// Whether a comparison keeps the run's timestamps (one run traced twice)
/// or drops them (two runs, which took their own time).
#[derive(Clone, Copy, PartialEq)]
enum Times {
    Keep,
    Drop,
}

/// The trace as an indented outline — name, kind, status, attributes, span
/// events — children in the order they ended. Ids of the run are fixed by
/// the tests, so everything else must match exactly.
fn outline(spans: &[SpanData], times: Times) -> Vec<String> {
    let ids: Vec<_> = spans.iter().map(|s| s.span_context.span_id()).collect();
    let roots: Vec<usize> = (0..spans.len()).filter(|&i| !ids.contains(&spans[i].parent_span_id)).collect();
    let mut lines = Vec::new();
    for root in roots {
        walk(spans, root, 0, times, &mut lines);
    }
    lines
}

fn walk(spans: &[SpanData], index: usize, depth: usize, times: Times, lines: &mut Vec<String>) {
    let span = &spans[index];
    // `target` is the bridge's, not ours.
    let keep = |key: &str| {
        key != "target" && (times == Times::Keep || !(key.ends_with("_unix_nano") || key == "golem.retry.delay_ms"))
    };
    let fields: Vec<String> =
        attrs(span).into_iter().filter(|(k, _)| keep(k)).map(|(k, v)| format!("{k}={v}")).collect();
    let pad = "  ".repeat(depth);
    lines.push(format!("{pad}{} [{:?} {:?}] {}", span.name, span.span_kind, span.status, fields.join(" ")));
    for event in span.events.iter() {
        let fields: Vec<String> = event
            .attributes
            .iter()
            .filter(|kv| keep(kv.key.as_str()))
            .map(|kv| format!("{}={}", kv.key.as_str(), text(&kv.value)))
            .collect();
        lines.push(format!("{pad}  * {} {}", event.name, fields.join(" ")));
    }
    let me = span.span_context.span_id();
    for child in (0..spans.len()).filter(|&i| spans[i].parent_span_id == me) {
        walk(spans, child, depth + 1, times, lines);
    }
}

fn settings() -> TraceSettings {
    TraceSettings::new()
        .agent_name("forecaster")
        .model(ModelInfo::new("openai", "gpt-4o-mini").with_price(Price::per_million(0.15, 0.6)))
        .model(ModelInfo::new("anthropic", "claude-haiku"))
}

fn forecast_tool() -> Tool<()> {
    Tool::new(
        "forecast",
        "Today's forecast for a city.",
        serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        |_: ToolContext<()>, args| Ok(format!("{}: sunny, 31°C", args["city"].as_str().unwrap_or("?"))),
    )
}

const SECRET_PROMPT: &str = "my account number is 4111-1111";

/// The scenarios: each builds a fresh agent (its scripted model's queue is
/// spent by one run).
#[derive(Clone, Copy, Debug)]
enum Scenario {
    Tool,
    Retry,
    Fallback,
    Failed,
    Streamed,
}

fn agent(scenario: Scenario, content: bool) -> Agent<()> {
    let call = || {
        Response::tool_calls(vec![ToolCall::new("call_1", "forecast", r#"{"city":"Lagos"}"#)])
            .with_usage(Usage::new(120, 18))
    };
    let answer = || Response::text("Sunny: pack light clothes.").with_usage(Usage::new(160, 12));
    let model = match scenario {
        Scenario::Tool | Scenario::Streamed => ScriptedModel::new().respond(call()).respond(answer()).chunk_size(5),
        Scenario::Retry => ScriptedModel::new().fail(ModelError::api(503, "busy")).respond(answer()),
        Scenario::Fallback => ScriptedModel::new().fail(ModelError::api(500, "down")),
        Scenario::Failed => ScriptedModel::new().fail(ModelError::api(400, "bad request").with_retryable(false)),
    };
    let mut builder = Agent::builder(model)
        .tool(forecast_tool())
        .max_attempts(2)
        .backoff(|_| Duration::from_millis(1))
        .trace(settings().record_content(content));
    if let Scenario::Fallback = scenario {
        builder = builder.max_attempts(1).fallback(ScriptedModel::new().respond(answer()));
    }
    builder.build().expect("the agent builds")
}

/// Run `scenario` on one driver, recording its log; the trace and the log.
fn run(scenario: Scenario, asynchronous: bool, content: bool) -> (Vec<SpanData>, EventLog) {
    let agent = agent(scenario, content);
    let (bytes, spans) = traced(|| {
        let mut bytes = Vec::new();
        let run = agent
            .run_with(())
            .prompt(SECRET_PROMPT)
            .run_id("run-1")
            .conversation_id("conv-1")
            .stream(matches!(scenario, Scenario::Streamed))
            .record(&mut bytes);
        let _ = if asynchronous { futures_lite::future::block_on(run.call_async()) } else { run.call() };
        bytes
    });
    let log = EventLog::read_bytes(&bytes).expect("the log reads").log;
    (spans, log)
}

/// Live on both drivers, then replayed: one trace.
fn check(scenario: Scenario) -> Vec<String> {
    let (blocking, log) = run(scenario, false, false);
    let (asynchronous, _) = run(scenario, true, false);
    assert_eq!(outline(&blocking, Times::Drop), outline(&asynchronous, Times::Drop), "{scenario:?}: drivers differ");
    let ((), replayed) = traced(|| trace_log(&log, &settings()).expect("the log replays"));
    assert_eq!(outline(&blocking, Times::Keep), outline(&replayed, Times::Keep), "{scenario:?}: replay differs");
    let lines = outline(&blocking, Times::Drop);
    for line in &lines {
        assert!(!line.contains("4111"), "{scenario:?}: content on a span without opting in: {line}");
    }
    lines
}

const OK: &str = "Unset";
const ERROR: &str = "Error { description: \"\" }";

/// The `invoke_agent` line: status, then attributes between the usage and
/// the outcome (cost), then after the run id (stage).
fn root(status: &str, tokens: (u64, u64), cost: &str, outcome: &str, requests: u64, stage: &str, tools: u64) -> String {
    let error = if status == OK { String::new() } else { " error.type=api".to_string() };
    format!(
        "invoke_agent forecaster [Internal {status}]{error} gen_ai.agent.name=forecaster gen_ai.conversation.id=conv-1 \
         gen_ai.operation.name=invoke_agent gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini \
         gen_ai.usage.input_tokens={} gen_ai.usage.output_tokens={}{cost} golem.outcome={outcome} \
         golem.requests={requests} golem.run.id=run-1{stage} golem.tool_calls={tools}",
        tokens.0, tokens.1,
    )
}

/// A `chat` line of member `member` (0: gpt-4o-mini on openai, priced; 1:
/// claude-haiku on anthropic, unpriced).
fn chat(member: u32, attempt: u32, turn: u32, answer: Option<(&str, u64, u64, &str)>, streamed: Option<u64>) -> String {
    let (model, provider) = if member == 0 { ("gpt-4o-mini", "openai") } else { ("claude-haiku", "anthropic") };
    let (status, error, finish, tokens, cost) = match answer {
        Some((finish, input, output, cost)) => {
            (OK, "", format!(" gen_ai.response.finish_reasons=[\"{finish}\"]"), (input, output), cost.to_string())
        }
        None => (ERROR, " error.type=api", String::new(), (0, 0), " golem.cost_usd=0".to_string()),
    };
    let cost = if member == 0 { cost } else { String::new() };
    let stream = match streamed {
        Some(deltas) => format!(" golem.stream.deltas={deltas} golem.streamed=true"),
        None => " golem.streamed=false".to_string(),
    };
    format!(
        "  chat {model} [Client {status}]{error} gen_ai.conversation.id=conv-1 gen_ai.operation.name=chat \
         gen_ai.provider.name={provider} gen_ai.request.model={model}{finish} gen_ai.usage.input_tokens={} \
         gen_ai.usage.output_tokens={} golem.attempt={attempt}{cost} golem.member={member} golem.round=0 \
         golem.run.id=run-1{stream} golem.turn={turn}",
        tokens.0, tokens.1,
    )
}

const FORECAST: &str = "  execute_tool forecast [Internal Unset] gen_ai.conversation.id=conv-1 \
    gen_ai.operation.name=execute_tool gen_ai.tool.call.id=call_1 gen_ai.tool.name=forecast gen_ai.tool.type=function \
    golem.approved=false golem.round=0 golem.run.id=run-1 golem.tool.outcome=output golem.turn=0";

const CALL_COST: &str = " golem.cost_usd=0.0000288";
const ANSWER_COST: &str = " golem.cost_usd=0.0000312";

#[test]
fn a_tool_run_is_chat_tool_chat_under_invoke_agent() {
    assert_eq!(
        check(Scenario::Tool),
        [
            root(OK, (280, 30), " golem.cost_usd=0.00006", "completed", 2, "", 1),
            chat(0, 1, 0, Some(("tool_call", 120, 18, CALL_COST)), None),
            FORECAST.to_string(),
            chat(0, 1, 1, Some(("stop", 160, 12, ANSWER_COST)), None),
        ]
    );
}

#[test]
fn a_retried_call_is_two_sibling_attempts_and_a_retrying_event() {
    assert_eq!(
        check(Scenario::Retry),
        [
            root(OK, (160, 12), ANSWER_COST, "completed", 2, "", 0),
            "  * retrying level=INFO golem.turn=0 golem.attempt=2 error.type=api".to_string(),
            chat(0, 1, 0, None, None),
            chat(0, 2, 0, Some(("stop", 160, 12, ANSWER_COST)), None),
        ]
    );
}

#[test]
fn a_fallback_member_is_a_sibling_naming_its_own_model_and_an_unpriced_member_leaves_the_cost_unknown() {
    assert_eq!(
        check(Scenario::Fallback),
        [
            root(OK, (160, 12), "", "completed", 2, "", 0),
            chat(0, 1, 0, None, None),
            chat(1, 1, 0, Some(("stop", 160, 12, "")), None),
        ]
    );
}

#[test]
fn a_failed_run_carries_its_stage_and_error_type() {
    assert_eq!(
        check(Scenario::Failed),
        [root(ERROR, (0, 0), " golem.cost_usd=0", "failed", 1, " golem.stage=model", 0), chat(0, 1, 0, None, None),]
    );
}

#[test]
fn a_streamed_run_traces_like_the_plain_one_plus_its_fragment_counts() {
    assert_eq!(
        check(Scenario::Streamed),
        [
            root(OK, (280, 30), " golem.cost_usd=0.00006", "completed", 2, "", 1),
            chat(0, 1, 0, Some(("tool_call", 120, 18, CALL_COST)), Some(5)),
            FORECAST.to_string(),
            chat(0, 1, 1, Some(("stop", 160, 12, ANSWER_COST)), Some(6)),
        ]
    );
}

/// Every attribute and span-event field of every span, as text.
fn everything(spans: &[SpanData]) -> String {
    let mut all = String::new();
    for span in spans {
        all.push_str(&span.name);
        for kv in &span.attributes {
            all.push_str(&format!(" {}={}", kv.key.as_str(), text(&kv.value)));
        }
        for event in span.events.iter() {
            for kv in &event.attributes {
                all.push_str(&format!(" {}={}", kv.key.as_str(), text(&kv.value)));
            }
        }
        all.push('\n');
    }
    all
}

#[test]
fn content_is_on_spans_only_when_opted_in() {
    let (without, _) = run(Scenario::Tool, false, false);
    let without = everything(&without);
    for absent in ["4111", "Lagos", "sunny", "pack light", "gen_ai.input.messages", "gen_ai.tool.call.arguments"] {
        assert!(!without.contains(absent), "{absent} is on a span without opting in:\n{without}");
    }
    let (with, log) = run(Scenario::Tool, true, true);
    let attrs_of = |name: &str| with.iter().filter(|s| s.name == name).map(attrs).collect::<Vec<_>>();
    let tool = &attrs_of("execute_tool forecast")[0];
    assert_eq!(tool["gen_ai.tool.call.arguments"], r#"{"city":"Lagos"}"#);
    assert_eq!(tool["gen_ai.tool.call.result"], "Lagos: sunny, 31°C");
    let chats = attrs_of("chat gpt-4o-mini");
    assert!(chats[0]["gen_ai.input.messages"].contains(SECRET_PROMPT), "{:?}", chats[0]);
    assert!(chats[1]["gen_ai.output.messages"].contains("Sunny: pack light clothes."), "{:?}", chats[1]);
    // A replay with content on says the same.
    let ((), replayed) = traced(|| trace_log(&log, &settings().record_content(true)).expect("the log replays"));
    assert_eq!(outline(&with, Times::Keep), outline(&replayed, Times::Keep));
}

#[test]
fn span_times_are_the_runs_own_and_replay_keeps_them() {
    let (live, log) = run(Scenario::Retry, false, false);
    let start = log.header.started_at_unix_ms * 1_000_000;
    let nanos = |span: &SpanData, key: &str| attrs(span)[key].parse::<u64>().expect("a time in nanoseconds");
    let root = live.iter().find(|s| s.name == "invoke_agent forecaster").expect("a root span");
    assert_eq!(nanos(root, "golem.start_time_unix_nano"), start);
    let attempts: Vec<_> = live.iter().filter(|s| s.name.starts_with("chat")).collect();
    let (first, second) = (attempts[0], attempts[1]);
    // The second attempt waited out the 1 ms backoff after the first ended.
    assert!(nanos(first, "golem.start_time_unix_nano") <= nanos(first, "golem.end_time_unix_nano"));
    assert!(nanos(second, "golem.start_time_unix_nano") >= nanos(first, "golem.end_time_unix_nano") + 1_000_000);
    assert!(nanos(root, "golem.end_time_unix_nano") >= nanos(second, "golem.end_time_unix_nano"));
    // Replayed much later, the trace still says when the run happened.
    std::thread::sleep(Duration::from_millis(5));
    let ((), replayed) = traced(|| trace_log(&log, &settings()).expect("the log replays"));
    let again = replayed.iter().find(|s| s.name == "invoke_agent forecaster").expect("a root span");
    assert_eq!(nanos(again, "golem.end_time_unix_nano"), nanos(root, "golem.end_time_unix_nano"));
}

/// A loopback OpenAI-compatible server that answers one chat completion.
fn one_completion_server() -> (String, std::thread::JoinHandle<String>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}/v1", listener.local_addr().expect("an address"));
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("one connection");
        let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
        let (mut head, mut length) = (String::new(), 0);
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                break;
            }
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap_or(0);
            }
            head.push_str(&line);
        }
        let mut body = vec![0; length];
        let _ = reader.read_exact(&mut body);
        let answer = serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Noted."}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}
        })
        .to_string();
        let mut stream = stream;
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        );
        head
    });
    (url, handle)
}

#[test]
fn the_api_key_is_on_no_span_even_with_content_recorded() {
    const KEY: &str = "sk-obs-test-5ecret-key";
    let (url, server) = one_completion_server();
    let model =
        golem_providers::OpenAi::builder().model("gpt-4o-mini").base_url(url).api_key(KEY).build().expect("a client");
    let agent = Agent::<()>::builder(model)
        .trace(TraceSettings::new().model(ModelInfo::new("openai", "gpt-4o-mini")).record_content(true))
        .build()
        .expect("the agent builds");
    let (result, spans) = traced(|| agent.run((), "remember this"));
    assert_eq!(result.expect("the run completes").output, "Noted.");
    let head = server.join().expect("the server thread");
    assert!(head.contains(KEY), "the request did carry the key, so its absence below means something");
    let all = everything(&spans);
    assert!(all.contains("remember this") && all.contains("Noted."), "content was recorded:\n{all}");
    assert!(!all.contains("5ecret"), "the key reached a span:\n{all}");
}

#[test]
fn model_calls_feed_the_gen_ai_client_histograms() {
    use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
    use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
    let subscriber = tracing_subscriber::registry().with(tracing_opentelemetry::MetricsLayer::new(provider.clone()));
    let agent = agent(Scenario::Retry, false);
    tracing::subscriber::with_default(subscriber, || agent.run((), "hi")).expect("the run completes");
    provider.force_flush().expect("the metrics flush");
    let mut seen = BTreeMap::new();
    for resource in exporter.get_finished_metrics().expect("the exporter answers") {
        for scope in resource.scope_metrics() {
            for metric in scope.metrics() {
                let points: Vec<(String, u64, f64)> = match metric.data() {
                    AggregatedMetrics::U64(MetricData::Histogram(h)) => {
                        h.data_points().map(|p| (labels(p.attributes()), p.count(), p.sum() as f64)).collect()
                    }
                    AggregatedMetrics::F64(MetricData::Histogram(h)) => {
                        h.data_points().map(|p| (labels(p.attributes()), p.count(), p.sum())).collect()
                    }
                    other => panic!("{} is not a histogram: {other:?}", metric.name()),
                };
                seen.insert(metric.name().to_string(), points);
            }
        }
    }
    // Token usage: of the successful call only, per token type.
    let mut tokens = seen["gen_ai.client.token.usage"].clone();
    tokens.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        tokens,
        [
            ("gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini gen_ai.token.type=input".to_string(), 1, 160.0),
            ("gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini gen_ai.token.type=output".to_string(), 1, 12.0),
        ]
    );
    // Duration: both attempts, the failed one with its error type.
    let mut durations: Vec<(String, u64)> =
        seen["gen_ai.client.operation.duration"].iter().map(|(l, n, _)| (l.clone(), *n)).collect();
    durations.sort();
    assert_eq!(
        durations,
        [
            ("error.type=api gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini".to_string(), 1),
            ("gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini".to_string(), 1),
        ]
    );
}

fn labels<'a>(attributes: impl Iterator<Item = &'a opentelemetry::KeyValue>) -> String {
    let mut labels: Vec<String> = attributes.map(|kv| format!("{}={}", kv.key.as_str(), text(&kv.value))).collect();
    labels.sort();
    labels.join(" ")
}

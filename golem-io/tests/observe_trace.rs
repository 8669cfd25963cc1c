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

//! The run report (SPEC OBS-06): an event log as one self-contained HTML
//! page, every string of the run escaped.

use golem_core::log::EventLog;
use golem_core::testing::ScriptedModel;
use golem_core::{ModelError, Price, Response, ToolCall, Usage};
use golem_io::observe::{render_html, ModelInfo, ReportError, TraceSettings};
use golem_io::{Agent, Tool, ToolContext};
use std::time::Duration;

/// What hostile model output or tool data could try.
pub(crate) const HOSTILE: &str = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>\"'&";

/// A recorded run: a retried call, a tool turn whose arguments and result
/// are hostile, a failed tool call, and an answer.
pub(crate) fn recorded_run() -> EventLog {
    let model = ScriptedModel::new()
        .fail(ModelError::api(503, "the service is busy"))
        .respond(
            Response::tool_calls(vec![
                ToolCall::new("call_1", "lookup", serde_json::json!({"q": HOSTILE}).to_string()),
                ToolCall::new("call_2", "convert", r#"{"amount":"ten"}"#),
            ])
            .with_usage(Usage::new(120, 18)),
        )
        .respond(Response::text(format!("Answer: {HOSTILE}")).with_usage(Usage::new(160, 12)));
    let lookup = Tool::new(
        "lookup",
        "Look a thing up.",
        serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        |_: ToolContext<()>, args| Ok(format!("found {}", args["q"].as_str().unwrap_or(""))),
    );
    let convert = Tool::new(
        "convert",
        "Convert an amount.",
        serde_json::json!({"type": "object", "properties": {"amount": {"type": "number"}}}),
        |_: ToolContext<()>, _| Err::<String, _>(golem_io::ToolError::failed("amount must be a number")),
    );
    let agent = Agent::builder(model)
        .tool(lookup)
        .tool(convert)
        .max_attempts(2)
        .backoff(|_| Duration::from_millis(1))
        .build()
        .expect("the agent builds");
    let mut bytes = Vec::new();
    agent.run_with(()).prompt(format!("question {HOSTILE}")).record(&mut bytes).call().expect("the run completes");
    EventLog::read_bytes(&bytes).expect("the log reads").log
}

pub(crate) fn priced() -> TraceSettings {
    TraceSettings::new().model(ModelInfo::new("openai", "gpt-4o-mini").with_price(Price::per_million(0.15, 0.6)))
}

#[test]
fn the_report_shows_totals_turns_tools_and_cost() {
    let page = render_html(&recorded_run(), &priced()).expect("the log renders");
    for want in [
        "<b id=\"turn-count\">2</b>",
        "<b id=\"attempt-count\">3</b>",
        "<b id=\"tool-count\">2</b>",
        "<b id=\"input-tokens\">280</b>",
        "<b id=\"output-tokens\">30</b>",
        "<b id=\"requests\">3</b>",
        "<b id=\"cost\">$0.000060</b>",
        "<span class=\"tool-name\">lookup</span>",
        "<span class=\"tool-name\">convert</span>",
        "id=\"outcome\">completed</span>",
        "gpt-4o-mini · attempt 2",
    ] {
        assert!(page.contains(want), "the page lacks {want}:\n{page}");
    }
    // The failed attempt, the retry and the rejected call are highlighted.
    assert_eq!(page.matches("class=\"row model error\"").count(), 1);
    assert_eq!(page.matches("class=\"row note error\"").count(), 1);
    assert_eq!(page.matches("class=\"row tool error\"").count(), 1);
    assert!(page.contains("amount must be a number"));
}

#[test]
fn every_string_of_the_run_is_escaped_and_nothing_is_loaded() {
    let page = render_html(&recorded_run(), &TraceSettings::new().model(ModelInfo::new("x", "<b>model</b>")))
        .expect("the log renders");
    for raw in ["<script>document", "<img", "<b>model</b>"] {
        assert!(!page.contains(raw), "{raw} reached the page unescaped");
    }
    assert!(page.contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"));
    assert!(page.contains("&lt;b&gt;model&lt;/b&gt;"));
    // One script of ours, and no way to fetch anything.
    assert_eq!(page.matches("<script>").count(), 1);
    assert!(page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\""));
    for external in ["src=\"http", "href=\"http", "url(", "@import", "<link", "<iframe"] {
        assert!(!page.contains(external), "the page references {external}");
    }
}

#[test]
fn a_failed_run_shows_its_error_and_its_evidence() {
    let agent =
        Agent::<()>::builder(ScriptedModel::new().fail(ModelError::api(401, "bad key <k>").with_retryable(false)))
            .build()
            .expect("the agent builds");
    let mut bytes = Vec::new();
    let _ = agent.run_with(()).prompt("hi").record(&mut bytes).call();
    let log = EventLog::read_bytes(&bytes).expect("the log reads").log;
    let page = render_html(&log, &TraceSettings::new()).expect("the log renders");
    assert!(page.contains("id=\"outcome\">failed</span>"));
    assert!(page.contains("<pre class=\"outcome-failed\" id=\"run-error\">model stage: "), "{page}");
    assert!(page.contains("bad key &lt;k&gt;") && !page.contains("bad key <k>"));
    assert!(page.contains("<b id=\"turn-count\">1</b>"));
}

#[test]
fn a_log_that_does_not_replay_is_a_typed_error() {
    let mut log = recorded_run();
    // Drop the record that answered the first model call: the next answers
    // a call the machine never made.
    log.records.remove(0);
    assert!(matches!(render_html(&log, &TraceSettings::new()), Err(ReportError::Replay(_))));
}

#[test]
fn the_result_carries_the_cost_and_a_cost_limit_stops_the_run() {
    let model = || ScriptedModel::new().respond(Response::text("ok").with_usage(Usage::new(1_000, 1_000)));
    let result = Agent::<()>::builder(model()).trace(priced()).build().expect("the agent builds").run((), "hi");
    // 1000 × $0.15 + 1000 × $0.60 per million.
    let cost = result.expect("the run completes").cost.expect("the model is priced");
    assert!((cost - 0.00075).abs() < 1e-12, "{cost}");
    let limited = Agent::<()>::builder(model())
        .trace(priced())
        .usage_limits(golem_io::UsageLimits::new().cost_usd(0.0005))
        .build()
        .expect("the agent builds");
    let error = limited.run((), "hi").expect_err("the run costs more than its bound");
    assert!(error.to_string().contains("run exceeded the cost (micro-USD) limit of 500 (used 750)"), "{error}");
    let unpriced = Agent::<()>::builder(model()).usage_limits(golem_io::UsageLimits::new().cost_usd(1.0)).build();
    assert!(unpriced.is_err(), "a cost limit without a price does not build");
}

/// Issue 31: the report names the agent — from the log, where its trace
/// settings named it, or from the settings given to the report — escaped.
#[test]
fn obs_06_the_report_names_the_agent() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("hi"))
        .trace(TraceSettings::new().agent_name("support <desk>"))
        .build()
        .unwrap();
    let mut bytes = Vec::new();
    agent.run_with(()).prompt("hello").record(&mut bytes).call().unwrap();
    let log = EventLog::read_bytes(&bytes).unwrap().log;
    assert_eq!(log.header.agent, "support <desk>");
    let page = render_html(&log, &TraceSettings::new()).unwrap();
    assert!(page.contains("<title>support &lt;desk&gt; — golem run"), "{page}");
    assert!(page.contains("<span id=\"agent\">support &lt;desk&gt;</span>"));
    let renamed = render_html(&log, &TraceSettings::new().agent_name("billing")).unwrap();
    assert!(renamed.contains("<span id=\"agent\">billing</span>"));
    let unnamed = Agent::<()>::builder(ScriptedModel::new().text("hi")).build().unwrap();
    let mut bytes = Vec::new();
    unnamed.run_with(()).prompt("hello").record(&mut bytes).call().unwrap();
    let page = render_html(&EventLog::read_bytes(&bytes).unwrap().log, &TraceSettings::new()).unwrap();
    assert!(!page.contains("id=\"agent\""));
}

/// A built-in tool's call and result show in the report beside the answer,
/// escaped like everything else (issue 36).
#[test]
fn the_report_shows_built_in_tool_parts() {
    use golem_io::builtin::{BuiltinSupport, BuiltinTool, ProviderPart, ProviderPartKind, WebSearch};
    let raw =
        serde_json::json!({"type": "server_tool_use", "id": "srvtoolu_1", "input": {"query": HOSTILE}}).to_string();
    let message = golem_io::Message::assistant("Found it.").with_provider_parts(vec![ProviderPart::new(
        "anthropic",
        ProviderPartKind::Call,
        raw,
    )
    .with_name("web_search")
    .with_id("srvtoolu_1")]);
    let model = ScriptedModel::new()
        .respond(Response::new(message).with_finish_reason(golem_core::FinishReason::Stop))
        .with_capabilities(golem_io::Capabilities::new().builtin_tools(BuiltinSupport::NONE.web_search(true)));
    let agent = Agent::<()>::builder(model).builtin_tool(BuiltinTool::WebSearch(WebSearch::new())).build().unwrap();
    let mut bytes = Vec::new();
    agent.run_with(()).prompt("search").record(&mut bytes).call().expect("the run completes");
    let log = EventLog::read_bytes(&bytes).expect("the log reads").log;
    let page = render_html(&log, &priced()).expect("the log renders");
    assert!(page.contains("anthropic runs web_search <code>srvtoolu_1</code>"), "{page}");
    assert!(!page.contains("<script>document"), "escaped");
}

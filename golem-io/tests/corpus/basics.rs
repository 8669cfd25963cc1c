//! Scenarios of the happy path and its corrections: text, tools, parallel
//! groups, retries and fallback, structured output, correctable rejections.

use super::kit::{call, calls, fixed, text, tool_results, Gate, Probe, GIVE_UP};
use super::{case, Case, Pin, Scenario, Stage, Step};
use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{ModelError, Response, RetryPolicy};
use golem_io::{decode_fn, Agent, DecodeError, JsonDecoder, Tool, ToolContext, ToolError, ToolResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario { name: "plain_text", covers: "RUN-02 RUN-08", build: plain_text },
        Scenario {
            name: "tool_round_trip_with_deps",
            covers: "RUN-01 TOOL-01 DRV-06",
            build: tool_round_trip_with_deps,
        },
        Scenario { name: "two_tool_turns", covers: "RUN-05 EVT-02", build: two_tool_turns },
        Scenario { name: "parallel_out_of_order", covers: "TOOL-08 EVT-02", build: parallel_out_of_order },
        Scenario { name: "parallel_capped", covers: "TOOL-08 (cap)", build: parallel_capped },
        Scenario { name: "sequential_barrier", covers: "TOOL-08", build: sequential_barrier },
        Scenario { name: "retry_backoff_then_success", covers: "RETRY-01 RETRY-02 RETRY-04", build: retry_backoff },
        Scenario { name: "fallback_model", covers: "RETRY-05 USAGE-06", build: fallback_model },
        Scenario { name: "retry_after_honoured", covers: "RETRY-03", build: retry_after_honoured },
        Scenario { name: "output_correction_text", covers: "OUT-06", build: output_correction_text },
        Scenario { name: "empty_response_corrected", covers: "RUN-11 OUT-06", build: empty_response_corrected },
        Scenario { name: "json_output_native", covers: "OUT-02 OUT-03 OUT-04 OUT-07", build: json_output_native },
        Scenario { name: "tool_mode_output", covers: "OUT-03 OUT-05 OUT-07", build: tool_mode_output },
        Scenario { name: "tool_rejection_corrected", covers: "TOOL-03 TOOL-04", build: tool_rejection_corrected },
        Scenario { name: "unknown_tool_corrected", covers: "TOOL-06", build: unknown_tool_corrected },
        Scenario { name: "malformed_args_corrected", covers: "TOOL-05", build: malformed_args_corrected },
        Scenario { name: "tool_budget_exhausted", covers: "TOOL-03 TOOL-04 ERR-03", build: tool_budget_exhausted },
        Scenario { name: "decode_budget_exhausted", covers: "OUT-02 ERR-02 ERR-03", build: decode_budget_exhausted },
        Scenario { name: "decode_fatal", covers: "OUT-01 ERR-02", build: decode_fatal },
    ]
}

/// A weather report, the typed output of the structured-output scenarios.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Forecast {
    /// The city.
    pub city: String,
    /// Degrees Celsius.
    pub celsius: i32,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Country {
    country: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Roll {
    n: i64,
}

/// Rolls an n-sided die; rejects n ≤ 0 correctably.
fn roll(probe: &Probe) -> Tool<()> {
    let probe = probe.clone();
    Tool::typed("roll", "Roll a die with n sides.", move |ctx: ToolContext<()>, args: Roll| {
        probe.note(format!("roll {} n={}", ctx.call_id(), args.n));
        if args.n <= 0 {
            return Err(ToolError::reject(format!("n must be positive, got {}", args.n)));
        }
        Ok(format!("rolled a d{}: 1", args.n))
    })
}

fn plain_text() -> Box<dyn Case> {
    let model = ScriptedModel::new().respond(text("hello there", (12, 3)));
    let agent = Agent::<()>::builder(model).instructions("Be brief.").build().unwrap();
    case(agent, ())
        .step(Step::prompt("hi", Pin::completed("hello there").messages(3).requests(1).tool_calls(0)))
        .boxed()
}

/// The run's deps: what the capital tool knows.
pub struct Atlas {
    capitals: Vec<(&'static str, &'static str)>,
    lookups: AtomicUsize,
}

fn tool_round_trip_with_deps() -> Box<dyn Case> {
    let probe = Probe::default();
    let note = probe.clone();
    let capital = Tool::typed("capital", "The capital of a country.", move |ctx: ToolContext<Atlas>, a: Country| {
        let atlas = ctx.deps();
        let n = atlas.lookups.fetch_add(1, Ordering::SeqCst) + 1;
        note.note(format!("lookup {n} {}", a.country));
        let found = atlas.capitals.iter().find(|(c, _)| *c == a.country).map(|(_, city)| *city);
        found.map(ToolResult::text).ok_or_else(|| ToolError::failed(format!("no capital known for {}", a.country)))
    });
    let model = FnModel::new(|request| match tool_results(request).as_slice() {
        [] => Ok(calls(vec![call("c1", "capital", r#"{"country":"France"}"#)], (20, 5))),
        results => Ok(text(&format!("answer: {}", results.join(", ")), (30, 4))),
    });
    let agent = Agent::builder(model).tool(capital).build().unwrap();
    let atlas = Atlas { capitals: vec![("France", "Paris"), ("Nigeria", "Abuja")], lookups: AtomicUsize::new(0) };
    case(agent, atlas)
        .probe(&probe)
        .step(Step::prompt(
            "capital of France?",
            Pin::completed("answer: c1=Paris").messages(4).requests(2).tool_calls(1),
        ))
        .boxed()
}

fn two_tool_turns() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("w1", "weather", r#"{"city":"Lagos"}"#)], (20, 6)))
        .respond(calls(vec![call("v1", "convert", r#"{"celsius":31}"#)], (30, 6)))
        .respond(text("It is 88F in Lagos.", (40, 7)));
    let agent = Agent::builder(model)
        .tool(fixed("weather", &probe, "31C and sunny"))
        .tool(fixed("convert", &probe, "88F"))
        .build()
        .unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("weather in Lagos, in F?", Pin::completed("It is 88F in Lagos.").messages(6).tool_calls(2)))
        .boxed()
}

/// `name` waits for `after` (if any), notes that it finished, then opens
/// `done`: the finishing order is forced whatever the scheduling.
fn chained(name: &'static str, probe: &Probe, after: Option<&Gate>, done: &Gate) -> Tool<()> {
    let (probe, after, done) = (probe.clone(), after.cloned(), done.clone());
    Tool::new(name, "", super::kit::no_args(), move |_: ToolContext<()>, _| {
        let waited = after.as_ref().is_none_or(|g| g.wait(GIVE_UP));
        probe.note(format!("{name} finished (waited: {waited})"));
        done.open();
        Ok(format!("{name} result"))
    })
}

fn parallel_out_of_order() -> Box<dyn Case> {
    let probe = Probe::default();
    let (fast_done, mid_done, slow_done) = (Gate::new(), Gate::new(), Gate::new());
    let model = ScriptedModel::new()
        .respond(calls(vec![call("p1", "slow", "{}"), call("p2", "mid", "{}"), call("p3", "fast", "{}")], (10, 9)))
        .respond(text("all three done", (40, 3)));
    let agent = Agent::builder(model)
        .tool(chained("slow", &probe, Some(&mid_done), &slow_done))
        .tool(chained("mid", &probe, Some(&fast_done), &mid_done))
        .tool(chained("fast", &probe, None, &fast_done))
        .parallel_tools(true)
        .build()
        .unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("run all three", Pin::completed("all three done").messages(6).tool_calls(3)))
        .boxed()
}

fn parallel_capped() -> Box<dyn Case> {
    let probe = Probe::default();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let counted = |name: &'static str| {
        let (probe, in_flight) = (probe.clone(), Arc::clone(&in_flight));
        Tool::new(name, "", super::kit::no_args(), move |_: ToolContext<()>, _| {
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            probe.note(format!("{name} started with {now} in flight"));
            in_flight.fetch_sub(1, Ordering::SeqCst);
            Ok(format!("{name} ok"))
        })
    };
    let model = ScriptedModel::new()
        .respond(calls(vec![call("k1", "a", "{}"), call("k2", "b", "{}"), call("k3", "c", "{}")], (10, 9)))
        .respond(text("capped", (40, 3)));
    let agent = Agent::builder(model)
        .tools([counted("a"), counted("b"), counted("c")])
        .parallel_tools(true)
        .max_concurrency(1)
        .build()
        .unwrap();
    case(agent, ()).probe(&probe).step(Step::prompt("go", Pin::completed("capped").messages(6).tool_calls(3))).boxed()
}

fn sequential_barrier() -> Box<dyn Case> {
    let probe = Probe::default();
    let finished = Arc::new(AtomicUsize::new(0));
    let (c_started, d_started) = (Gate::new(), Gate::new());
    // Each notes how many calls had finished when it started. c and d meet
    // in the middle — d notes only once c has, c finishes only once d has
    // started — which only works when they run concurrently.
    let make = |name: &'static str, before: Option<&Gate>, open: Option<&Gate>, after: Option<&Gate>| {
        let (probe, finished) = (probe.clone(), Arc::clone(&finished));
        let (before, open, after) = (before.cloned(), open.cloned(), after.cloned());
        Tool::new(name, "", super::kit::no_args(), move |_: ToolContext<()>, _| {
            let seen = finished.load(Ordering::SeqCst);
            before.as_ref().map(|g| g.wait(GIVE_UP));
            probe.note(format!("{name} saw {seen} finished"));
            open.as_ref().map(Gate::open);
            after.as_ref().map(|g| g.wait(GIVE_UP));
            finished.fetch_add(1, Ordering::SeqCst);
            Ok(format!("{name} ok"))
        })
    };
    let model = ScriptedModel::new()
        .respond(calls(
            vec![call("s1", "a", "{}"), call("s2", "b", "{}"), call("s3", "c", "{}"), call("s4", "d", "{}")],
            (10, 12),
        ))
        .respond(text("barrier respected", (50, 3)));
    let agent = Agent::builder(model)
        .tool(make("a", None, None, None))
        .tool(make("b", None, None, None).sequential())
        .tool(make("c", None, Some(&c_started), Some(&d_started)))
        .tool(make("d", Some(&c_started), Some(&d_started), None))
        .parallel_tools(true)
        .build()
        .unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("go", Pin::completed("barrier respected").messages(7).tool_calls(4)))
        .boxed()
}

fn retry_backoff() -> Box<dyn Case> {
    let model = ScriptedModel::new()
        .fail(ModelError::api(503, "overloaded"))
        .fail(ModelError::transport("connection reset"))
        .respond(text("third time lucky", (10, 3)));
    let agent = Agent::<()>::builder(model)
        .max_attempts(3)
        .backoff(|n| Duration::from_millis(2 * u64::from(n)))
        .build()
        .unwrap();
    case(agent, ()).step(Step::prompt("hi", Pin::completed("third time lucky").messages(2).requests(3))).boxed()
}

fn fallback_model() -> Box<dyn Case> {
    let probe = Probe::default();
    let primary = ScriptedModel::new()
        .respond(calls(vec![call("f1", "weather", "{}")], (10, 4)))
        .fail(ModelError::api(503, "primary overloaded"));
    let fallback = ScriptedModel::new().respond(text("from the fallback", (20, 4)));
    let agent = Agent::builder(primary).fallback(fallback).tool(fixed("weather", &probe, "rain")).build().unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("weather?", Pin::completed("from the fallback").messages(4).requests(3).tool_calls(1)))
        .boxed()
}

fn retry_after_honoured() -> Box<dyn Case> {
    let model = ScriptedModel::new()
        .fail(ModelError::api(429, "slow down").with_retry_after(Duration::from_millis(25)))
        .respond(text("after the hint", (10, 3)));
    let agent = Agent::<()>::builder(model)
        .retry_policy(RetryPolicy::new().max_attempts(2).honor_retry_after(true))
        .backoff(|_| Duration::from_millis(1))
        .build()
        .unwrap();
    case(agent, ()).step(Step::prompt("hi", Pin::completed("after the hint").messages(2).requests(2))).boxed()
}

fn output_correction_text() -> Box<dyn Case> {
    let model = ScriptedModel::new().respond(text("seven", (10, 1))).respond(text("7", (20, 1)));
    let agent = Agent::<()>::builder(model)
        .decoder(decode_fn(|_ctx, r: &Response| {
            let content = &r.message.content;
            content.trim().parse::<i64>().map_err(|_| DecodeError::retry(format!("not an integer: {content:?}")))
        }))
        .output_retries(1)
        .build()
        .unwrap();
    case(agent, ()).step(Step::prompt("pick a number", Pin::completed(7).messages(4).requests(2))).boxed()
}

fn empty_response_corrected() -> Box<dyn Case> {
    let model = ScriptedModel::new().respond(text("", (10, 0))).respond(text("now with words", (20, 3)));
    let agent = Agent::<()>::builder(model).output_retries(1).build().unwrap();
    case(agent, ()).step(Step::prompt("say something", Pin::completed("now with words").messages(4))).boxed()
}

fn json_output_native() -> Box<dyn Case> {
    let caps = golem_core::Capabilities::new().native_schema_with_tools(true);
    let model = ScriptedModel::new()
        .with_capabilities(caps)
        .respond(text(r#"{"city":"Lagos"}"#, (30, 5)))
        .respond(text(r#"{"city":"Lagos","celsius":31}"#, (40, 8)));
    let agent = Agent::<()>::builder(model).output::<Forecast>().output_retries(1).build().unwrap();
    let forecast = Forecast { city: "Lagos".into(), celsius: 31 };
    case(agent, ()).step(Step::prompt("forecast?", Pin::completed(forecast).messages(4).requests(2))).boxed()
}

fn tool_mode_output() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("t1", "weather", r#"{"city":"Lagos"}"#)], (20, 5)))
        .respond(calls(vec![call("t2", golem_io::OUTPUT_TOOL_NAME, r#"{"city":"Lagos","celsius":31}"#)], (30, 8)));
    let agent = Agent::builder(model).tool(fixed("weather", &probe, "31C")).output::<Forecast>().build().unwrap();
    let forecast = Forecast { city: "Lagos".into(), celsius: 31 };
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("forecast?", Pin::completed(forecast).messages(5).requests(2).tool_calls(1)))
        .boxed()
}

fn tool_rejection_corrected() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("r1", "roll", r#"{"n":0}"#)], (10, 4)))
        .respond(calls(vec![call("r2", "roll", r#"{"n":6}"#)], (20, 4)))
        .respond(text("you rolled 1", (30, 3)));
    let agent = Agent::builder(model).tool(roll(&probe)).tool_retries(1).build().unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("roll", Pin::completed("you rolled 1").messages(6).tool_calls(2)))
        .boxed()
}

fn unknown_tool_corrected() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("u1", "dice", r#"{"n":6}"#)], (10, 4)))
        .respond(calls(vec![call("u2", "roll", r#"{"n":6}"#)], (20, 4)))
        .respond(text("you rolled 1", (30, 3)));
    let agent = Agent::builder(model).tool(roll(&probe)).tool_retries(1).build().unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("roll", Pin::completed("you rolled 1").messages(6).tool_calls(1)))
        .boxed()
}

fn malformed_args_corrected() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("m1", "roll", r#"{"n": 6"#)], (10, 4)))
        .respond(calls(vec![call("m2", "roll", r#"{"n":6}"#)], (20, 4)))
        .respond(text("you rolled 1", (30, 3)));
    let agent = Agent::builder(model).tool(roll(&probe)).tool_retries(1).build().unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("roll", Pin::completed("you rolled 1").messages(6).tool_calls(1)))
        .boxed()
}

fn tool_budget_exhausted() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("b1", "roll", r#"{"n":0}"#)], (10, 4)))
        .respond(calls(vec![call("b2", "roll", r#"{"n":-1}"#)], (20, 4)))
        .respond(text("never", (30, 3)));
    let agent = Agent::builder(model).tool(roll(&probe)).tool_retries(1).build().unwrap();
    let pin = Pin::failed(Stage::Tool, "rejected the call after 2 attempts: n must be positive, got -1");
    case(agent, ()).probe(&probe).step(Step::prompt("roll", pin.messages(4).requests(2).tool_calls(2))).boxed()
}

fn decode_budget_exhausted() -> Box<dyn Case> {
    let model = ScriptedModel::new().respond(text("sunny, 31 degrees", (30, 5)));
    let agent = Agent::<()>::builder(model).decoder(JsonDecoder::<Forecast>::new()).build().unwrap();
    let pin = Pin::failed(Stage::Decode, "not valid JSON for Forecast");
    case(agent, ()).step(Step::prompt("forecast?", pin.messages(2).requests(1))).boxed()
}

fn decode_fatal() -> Box<dyn Case> {
    let model = ScriptedModel::new().respond(text("\u{0}\u{1}binary", (30, 5)));
    let agent = Agent::<()>::builder(model)
        .decoder(decode_fn(|_ctx, _: &Response| Err::<Value, _>(DecodeError::fatal("the answer is unreadable"))))
        .output_retries(3)
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Decode, "the answer is unreadable");
    case(agent, ()).step(Step::prompt("forecast?", pin.messages(2).requests(1))).boxed()
}

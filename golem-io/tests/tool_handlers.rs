//! The one tool-handler shape and what a handler may return (issue 11; SPEC
//! TOOL-01..03): `|ctx, args|` for blocking and async handlers alike, no
//! annotations; `?` on any error is a failed result; `or_reject` /
//! `or_fatal` say otherwise; any `Serialize` value is a result.

use golem_io::testing::ScriptedModel;
use golem_io::{Agent, BoxError, CauseRecord, EventKind, Role, Stage, Tool, ToolEndOutcome, ToolErrorExt};
use std::sync::{Arc, Mutex};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Number {
    /// A number, as text.
    n: String,
}

#[derive(Debug, PartialEq, serde::Serialize)]
struct Parsed {
    value: i64,
    doubled: i64,
}

/// The model calls `tool` with `{"n": …}` once, then answers "done".
fn calling(tool: &str, n: &str) -> ScriptedModel {
    ScriptedModel::new().tool_call(tool, format!(r#"{{"n":"{n}"}}"#)).text("done")
}

struct Units {
    suffix: &'static str,
}

#[test]
fn tool_01_one_closure_shape_for_blocking_and_async_handlers_with_inference() {
    let model = ScriptedModel::new().tool_call("sync", r#"{"n":"2"}"#).tool_call("async", r#"{"n":"3"}"#).text("ok");
    // No context annotation, no turbofish on `Ok`: the same `|ctx, args|`
    // for both kinds, `?` converting the parse error even in an async body.
    let agent = Agent::<()>::builder(model)
        .tool(Tool::typed("sync", "Blocking.", |ctx, args: Number| {
            let n: i64 = args.n.parse()?;
            Ok(format!("{n} ({})", ctx.call_id()))
        }))
        .tool(Tool::typed_async("async", "Async.", |ctx, args: Number| async move {
            let n: i64 = args.n.parse()?;
            Ok(format!("{n} ({})", ctx.call_id()))
        }))
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    let results: Vec<&str> =
        result.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
    assert_eq!(results, ["2 (call_1)", "3 (call_2)"]);
}

/// Issue 11: written on the builder, where the deps' type is known, a
/// closure reads the deps with no annotation at all, blocking or async.
#[test]
fn tool_01_builder_tools_infer_the_deps_for_the_closure() {
    let model = ScriptedModel::new().tool_call("sync", r#"{"n":"2"}"#).tool_call("async", r#"{"n":"3"}"#).text("ok");
    let agent = Agent::<Units>::builder(model)
        .typed_tool("sync", "Blocking.", |ctx, args: Number| {
            let n: i64 = args.n.parse()?;
            Ok(format!("{n}{}", ctx.deps().suffix))
        })
        .typed_tool_async("async", "Async.", |ctx, args: Number| async move {
            let n: i64 = args.n.parse()?;
            Ok(format!("{n}{}", ctx.deps().suffix))
        })
        .build()
        .unwrap();
    let result = agent.run(Units { suffix: " kg" }, "go").unwrap();
    let results: Vec<&str> =
        result.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
    assert_eq!(results, ["2 kg", "3 kg"]);
}

#[test]
fn tool_02_question_mark_on_any_error_is_a_failed_result() {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let agent = Agent::<()>::builder(calling("parse", "seven"))
        .tool(Tool::typed("parse", "Parse a number.", |_ctx, args: Number| Ok(args.n.parse::<i64>()?)))
        .observer(move |e| sink.lock().unwrap().push(e.kind.clone()))
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    assert_eq!(result.output, "done", "a failed result does not stop the run");
    let tool = result.messages.iter().find(|m| m.role == Role::Tool).unwrap();
    assert!(tool.failed, "flagged failed (SPEC TOOL-02)");
    assert_eq!(tool.content, "invalid digit found in string");
    let end = events.lock().unwrap().iter().find_map(|k| match k {
        EventKind::ToolEnd { outcome, turn, .. } => Some((outcome.clone(), *turn)),
        _ => None,
    });
    let cause = CauseRecord::new("error", "invalid digit found in string");
    assert_eq!(
        end,
        Some((ToolEndOutcome::Failed { reason: "invalid digit found in string".into(), cause: Some(cause) }, 0))
    );
}

/// An error with a cause, as a layered library reports one.
#[derive(Debug, thiserror::Error)]
#[error("cannot load the rates")]
struct LoadRates(#[source] std::io::Error);

fn load_rates() -> Result<String, BoxError> {
    Err(LoadRates(std::io::Error::other("disk full")).into())
}

fn load_rates_anyhow() -> anyhow::Result<String> {
    use anyhow::Context;
    Err(std::io::Error::other("disk full")).context("cannot load the rates")
}

/// Runs `tool` once under `calling` and returns what the model read and
/// what the `ToolEnd` event recorded.
fn failed_run(tool: Tool<()>) -> (String, ToolEndOutcome) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let agent = Agent::<()>::builder(calling("rates", "1"))
        .tool(tool)
        .observer(move |e| sink.lock().unwrap().push(e.kind.clone()))
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    let tool = result.messages.iter().find(|m| m.role == Role::Tool).unwrap();
    assert!(tool.failed);
    let end = events.lock().unwrap().iter().find_map(|k| match k {
        EventKind::ToolEnd { outcome, .. } => Some(outcome.clone()),
        _ => None,
    });
    (tool.content.clone(), end.unwrap())
}

/// Issue 31: `?` on a `BoxError` and on an `anyhow::Error` in a typed tool
/// body compiles, the model reads the error's message, and the event keeps
/// its `source()` chain.
#[test]
fn tool_02_question_mark_on_box_error_and_anyhow_keeps_the_source_chain() {
    let boxed = Tool::typed("rates", "Today's rates.", |_ctx, _args: Number| Ok(load_rates()?));
    let anyhow = Tool::typed("rates", "Today's rates.", |_ctx, _args: Number| Ok(load_rates_anyhow()?));
    let async_boxed =
        Tool::typed_async("rates", "Today's rates.", |_ctx, _args: Number| async move { Ok(load_rates()?) });
    for tool in [boxed, anyhow, async_boxed] {
        let (seen, end) = failed_run(tool);
        assert_eq!(seen, "cannot load the rates", "the model reads the message alone");
        let ToolEndOutcome::Failed { reason, cause: Some(cause) } = end else { panic!("{end:?}") };
        assert_eq!(reason, "cannot load the rates");
        assert_eq!(
            (cause.message.as_str(), cause.sources.as_slice()),
            ("cannot load the rates", &["disk full".to_string()][..])
        );
    }
}

#[test]
fn tool_03_or_reject_makes_the_error_correctable() {
    let model = ScriptedModel::new()
        .tool_call("parse", r#"{"n":"seven"}"#)
        .tool_call("parse", r#"{"n":"7"}"#)
        .text("seven is 7");
    let agent = Agent::<()>::builder(model)
        .tool(Tool::typed("parse", "Parse a number.", |_ctx, args: Number| args.n.parse::<i64>().or_reject()))
        .tool_retries(1)
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    assert_eq!(result.output, "seven is 7");
    let tools: Vec<(String, bool)> =
        result.messages.iter().filter(|m| m.role == Role::Tool).map(|m| (m.content.clone(), m.failed)).collect();
    assert_eq!(
        tools,
        [(golem_core::texts::tool_rejected("invalid digit found in string"), false), ("7".to_string(), false)]
    );
}

#[test]
fn tool_03_or_fatal_fails_the_run_with_the_error_as_source() {
    let agent = Agent::<()>::builder(calling("parse", "seven"))
        .tool(Tool::typed("parse", "Parse a number.", |_ctx, args: Number| args.n.parse::<i64>().or_fatal()))
        .build()
        .unwrap();
    let err = agent.run((), "go").unwrap_err();
    assert_eq!(err.stage(), Some(Stage::Tool));
    let source = std::error::Error::source(err.as_run().unwrap()).unwrap();
    assert!(source.downcast_ref::<std::num::ParseIntError>().is_some(), "{source:?}");
}

#[test]
fn tool_02_any_serialize_value_is_a_result_and_strings_stay_as_is() {
    let model =
        ScriptedModel::new().tool_call("parse", r#"{"n":"21"}"#).tool_call("echo", r#"{"n":"plain"}"#).text("ok");
    let agent = Agent::<()>::builder(model)
        .tool(Tool::typed("parse", "Parse a number.", |_ctx, args: Number| {
            let value: i64 = args.n.parse()?;
            Ok(Parsed { value, doubled: value * 2 })
        }))
        .tool(Tool::typed_async("echo", "Echo.", |_ctx, args: Number| async move { Ok(args.n) }))
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    let results: Vec<&str> =
        result.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
    assert_eq!(results, [r#"{"value":21,"doubled":42}"#, "plain"]);
}

/// Issue 19 (SPEC TOOL-05): which calls run is the machine's decision. A
/// registered tool the run does not advertise (here, hidden by a tool
/// choice) is refused like an unknown one, the refusal names the advertised
/// tools only, and its body never runs.
#[test]
fn tool_05_unadvertised_tools_are_refused_naming_only_the_advertised_ones() {
    let ran = Arc::new(Mutex::new(Vec::new()));
    let (lookup_ran, delete_ran) = (Arc::clone(&ran), Arc::clone(&ran));
    let model = ScriptedModel::new().tool_call("delete", r#"{"n":"1"}"#).text("done");
    let agent = Agent::<()>::builder(model)
        .tool(Tool::typed("lookup", "Looks up.", move |_, args: Number| {
            lookup_ran.lock().unwrap().push(format!("lookup {}", args.n));
            Ok("found")
        }))
        .tool(Tool::typed("delete", "Deletes.", move |_, args: Number| {
            delete_ran.lock().unwrap().push(format!("delete {}", args.n));
            Ok("deleted")
        }))
        .tool_choice("lookup")
        .tool_retries(1)
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    let refusal = result.messages.iter().find(|m| m.role == Role::Tool).map(|m| m.content.clone());
    assert_eq!(
        refusal.as_deref(),
        Some(
            "Your tool call was rejected: unknown tool \"delete\"; available tools: lookup. \
             Correct the arguments and call the tool again."
        )
    );
    assert!(ran.lock().unwrap().is_empty(), "{:?}", ran.lock().unwrap());
}

/// A call of a tool without parameters may come with empty arguments; the
/// machine reads them as `{}` and so does the handler (SPEC HIST-06).
#[test]
fn tool_05_empty_arguments_reach_the_handler_as_an_empty_object() {
    let model = ScriptedModel::new().tool_call("now", "").text("done");
    let agent = Agent::<()>::builder(model)
        .tool(Tool::new("now", "The time.", serde_json::json!({"type": "object"}), |_, args| {
            Ok(format!("noon {args}"))
        }))
        .build()
        .unwrap();
    let result = agent.run((), "go").unwrap();
    let answer = result.messages.iter().find(|m| m.role == Role::Tool).map(|m| m.content.clone());
    assert_eq!(answer.as_deref(), Some("noon {}"));
}

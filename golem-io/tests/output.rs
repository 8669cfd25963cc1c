//! Typed output through the driver: native and tool mode, wrapping of
//! non-object outputs, decoder errors, typed tool arguments (SPEC OUT, TOOL-01).

use golem_core::testing::{ScriptedModel, TestModel};
use golem_core::{texts, Capabilities, Cause, EventKind, OutputMode, Response, Stage, ToolCall};
use golem_io::{decode_fn, Agent, DecodeError, Tool, ToolContext, OUTPUT_TOOL_NAME};
use std::sync::{Arc, Mutex};

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: i64,
}

#[test]
fn typed_output_in_tool_mode() {
    let model = TestModel::new().with_output_tool(OUTPUT_TOOL_NAME);
    let agent = Agent::<()>::builder(model).output::<Forecast>().build().unwrap();
    assert!(matches!(agent.config().output, OutputMode::Tool { .. }));

    let result = agent.run((), "forecast").unwrap();

    let forecast = result.output;
    assert!(!forecast.city.is_empty());
    assert_eq!(result.messages.last().unwrap().content, texts::OUTPUT_RECORDED);
}

#[test]
fn typed_output_in_native_mode() {
    let caps = Capabilities::new().native_schema_with_tools(true);
    let model = ScriptedModel::new().with_capabilities(caps).text(r#"{"city":"Lagos","celsius":31}"#);
    let agent = Agent::<()>::builder(model.clone()).output::<Forecast>().build().unwrap();

    let result = agent.run((), "forecast").unwrap();

    assert_eq!(result.output, Forecast { city: "Lagos".into(), celsius: 31 });
    let schema = model.requests()[0].output_schema.clone().expect("schema on the wire");
    assert_eq!(schema.name, "Forecast");
}

#[test]
fn non_object_output_travels_wrapped_and_arrives_unwrapped() {
    let call = ToolCall::new("o1", OUTPUT_TOOL_NAME, r#"{"response":[3,1,2]}"#);
    let agent = Agent::<()>::builder(ScriptedModel::new().respond(Response::tool_calls(vec![call])))
        .output::<Vec<u32>>()
        .build()
        .unwrap();
    assert_eq!(agent.run((), "numbers").unwrap().output, vec![3, 1, 2]);
}

#[test]
fn invalid_json_is_corrected_within_the_output_budget() {
    let model = ScriptedModel::new().text("sunny").text(r#"{"city":"Lagos","celsius":31}"#);
    let caps = Capabilities::new().native_schema_with_tools(true);
    let agent = Agent::<()>::builder(model.with_capabilities(caps)).output::<Forecast>().output_retries(1).build();

    let result = agent.unwrap().run((), "forecast").unwrap();

    let correction = &result.messages[2].content;
    assert!(correction.contains("response content is not valid JSON for Forecast: expected value"), "{correction}");
    assert_eq!(result.output.celsius, 31);
}

#[test]
fn an_empty_reply_fails_at_the_decode_stage_without_budget() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("")).build().unwrap();
    let err = agent.run((), "say something").unwrap_err();
    assert_eq!(err.stage(), Some(Stage::Decode));
    assert!(err.to_string().contains(texts::EMPTY_RESPONSE), "{err}");
}

#[derive(Debug, thiserror::Error)]
#[error("the ledger is corrupt")]
struct Corrupt;

#[test]
fn a_fatal_decoder_error_is_the_run_errors_source() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("x"))
        .decoder(decode_fn(|_ctx, _: &golem_core::Response| Err::<u8, _>(DecodeError::fatal(Corrupt))))
        .build()
        .unwrap();
    let err = agent.run((), "go").unwrap_err().into_run().unwrap();
    assert_eq!(err.stage, Stage::Decode);
    assert!(matches!(&err.cause, Cause::Decode(d) if d.fatal));
    let source = std::error::Error::source(&err).unwrap();
    assert!(source.downcast_ref::<Corrupt>().is_some(), "{source:?}");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Roll {
    sides: u32,
}

#[test]
fn typed_tool_arguments_that_do_not_fit_are_rejected_quoting_serde() {
    let roll =
        Tool::typed("roll", "Roll a die.", |_: ToolContext<()>, args: Roll| Ok(format!("rolled a d{}", args.sides)));
    let model = ScriptedModel::new().tool_call("roll", r#"{"faces":6}"#).tool_call("roll", r#"{"sides":6}"#).text("ok");
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&errors);
    let agent = Agent::builder(model)
        .tool(roll)
        .tool_retries(1)
        .observer(move |e| {
            if let Some(error) = match &e.kind {
                EventKind::ToolEnd { outcome, .. } => outcome.error_text(),
                _ => None,
            } {
                sink.lock().unwrap().push(error);
            }
        })
        .build()
        .unwrap();

    let result = agent.run((), "roll").unwrap();

    assert_eq!(result.output, "ok");
    assert_eq!(*errors.lock().unwrap(), [texts::invalid_args("missing field `sides`")]);
    assert_eq!(result.messages[4].content, "rolled a d6");
}

/// OUT-06 (issue 11): typed output cut off at the token limit fails with a
/// decode error that says so, through the driver.
#[test]
fn out_06_a_cut_off_structured_answer_says_the_token_limit_was_hit() {
    let caps = Capabilities::new().native_schema_with_tools(true);
    let cut = Response::text(r#"{"city":"Lag"#).with_finish_reason(golem_core::FinishReason::Length);
    let agent = Agent::<()>::builder(ScriptedModel::new().with_capabilities(caps).respond(cut))
        .output::<Forecast>()
        .build()
        .unwrap();
    let err = agent.run((), "forecast").unwrap_err();
    assert_eq!(err.stage(), Some(Stage::Decode));
    let text = err.to_string();
    assert!(text.contains("cut off at the output token limit (finish reason length)"), "{text}");
    assert!(text.contains("EOF while parsing"), "{text}");
}

/// Issue 11: decoders see the run — its deps and ids — through a
/// `RunContext`, on both drivers; so do instructions functions.
#[test]
fn decoders_and_instructions_see_the_run() {
    struct Tenant(&'static str);
    let agent = Agent::builder(ScriptedModel::new().text("a").text("b"))
        .instructions_fn(|ctx: &golem_io::RunContext<Tenant>| format!("tenant {} run {}", ctx.deps().0, ctx.run_id()))
        .decoder(decode_fn(|ctx: &golem_io::RunContext<Tenant>, r: &Response| {
            Ok(format!("{}/{}/{}/{}", r.message.content, ctx.deps().0, ctx.run_id(), ctx.conversation_id()))
        }))
        .build()
        .unwrap();
    let run = || agent.run_with(Tenant("acme")).prompt("go").run_id("r-9").conversation_id("c-9");
    let blocking = run().call().unwrap();
    assert_eq!(blocking.output, "a/acme/r-9/c-9");
    assert_eq!(blocking.messages[0].content, "tenant acme run r-9");
    let asynchronous = futures_lite::future::block_on(run().call_async()).unwrap();
    assert_eq!(asynchronous.output, "b/acme/r-9/c-9");
}

/// Issue 31 (SPEC OUT-01): an output validator rejects a schema-valid
/// output with a reason the model reads, then accepts the corrected one;
/// in tool mode the reason answers the output tool's call. Both drivers.
#[test]
fn out_01_an_output_validator_rejects_then_accepts() {
    for asynchronous in [false, true] {
        let model = ScriptedModel::new()
            .tool_call(OUTPUT_TOOL_NAME, r#"{"city":"Lagos","celsius":310}"#)
            .tool_call(OUTPUT_TOOL_NAME, r#"{"city":"Lagos","celsius":31}"#);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let agent = Agent::<&'static str>::builder(model.clone())
            .output::<Forecast>()
            .output_retries(1)
            .output_validator(move |ctx, forecast| {
                log.lock().unwrap().push((*ctx.deps(), forecast.celsius));
                if forecast.celsius > 60 {
                    return Err(DecodeError::retry(format!("{} °C is not a plausible temperature", forecast.celsius)));
                }
                Ok(())
            })
            .build()
            .unwrap();
        let result = if asynchronous {
            futures_lite::future::block_on(agent.run_async("deps", "forecast")).unwrap()
        } else {
            agent.run("deps", "forecast").unwrap()
        };
        assert_eq!(result.output, Forecast { city: "Lagos".into(), celsius: 31 });
        assert_eq!(*seen.lock().unwrap(), [("deps", 310), ("deps", 31)], "the validator reads the deps");
        let second = &model.requests()[1];
        let answer = second.messages.iter().rev().find(|m| m.role == golem_core::Role::Tool).unwrap();
        assert!(answer.content.contains("310 °C is not a plausible temperature"), "{}", answer.content);
    }
}

/// A validator that keeps rejecting spends the output correction budget,
/// then the run fails at the decode stage with the last reason.
#[test]
fn out_01_a_validator_that_keeps_rejecting_fails_at_the_decode_stage() {
    let model = ScriptedModel::new().text(r#"{"city":"x","celsius":1}"#).text(r#"{"city":"x","celsius":1}"#);
    let caps = Capabilities::new().native_schema_with_tools(true);
    let agent = Agent::<()>::builder(model.with_capabilities(caps))
        .output::<Forecast>()
        .output_retries(1)
        .output_validator(|_ctx, f| if f.city.len() < 2 { Err(DecodeError::retry("name a real city")) } else { Ok(()) })
        .build()
        .unwrap();
    let err = agent.run((), "forecast").unwrap_err();
    let err = err.as_run().expect("a run error");
    assert_eq!(err.stage, Stage::Decode);
    assert!(err.to_string().contains("name a real city"), "{err}");
}

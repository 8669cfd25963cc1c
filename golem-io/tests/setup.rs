//! Setup errors: failures before the run exists, with no stage and no
//! evidence (SPEC RUN-03), and the preamble's processor and instructions.

use golem_core::machine::SetupError;
use golem_core::model::{ModelError, Request, Response};
use golem_core::testing::ScriptedModel;
use golem_core::{Message, Model, Part, Role};
use golem_io::{trim_history, Agent, Error};

#[test]
fn a_malformed_prompt_part_is_a_setup_error() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("x")).build().unwrap();
    let empty_part = {
        let mut part = Part::image_url("");
        part.url = String::new();
        part
    };
    let err = agent.run_with(()).prompt("look").prompt_parts([empty_part]).call().unwrap_err();
    assert!(matches!(err, Error::Setup(SetupError::InvalidPart { index: 0, .. })), "{err:?}");
    assert_eq!(err.stage(), None);
    assert!(err.as_run().is_none());
}

#[test]
fn a_failing_history_processor_is_a_setup_error() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("x"))
        .history_processor(|_| Err("history store offline".into()))
        .build()
        .unwrap();
    let err = agent.run((), "hi").unwrap_err();
    assert_eq!(err.to_string(), "run setup failed: history processor failed: history store offline");
    assert!(matches!(&err, Error::Setup(SetupError::Processor(e)) if e.message() == "history store offline"));
}

/// Issue 11 (HIST-03): a history processor's error keeps its `source()`:
/// the error object itself, not its text.
#[test]
fn hist_03_a_processor_error_keeps_its_source() {
    #[derive(Debug, thiserror::Error)]
    #[error("history store offline")]
    struct StoreOffline;
    let agent = Agent::<()>::builder(ScriptedModel::new().text("x"))
        .history_processor(|_| Err(StoreOffline.into()))
        .build()
        .unwrap();
    let Error::Setup(setup) = agent.run((), "hi").unwrap_err() else { panic!("a setup error") };
    let source = std::error::Error::source(&setup).expect("the processor's error");
    assert!(source.downcast_ref::<StoreOffline>().is_some(), "{source:?}");
}

/// Issue 11: history processors and instructions functions are protected
/// against panics like tools, decoders and observers: a setup error, not a
/// crashed caller, under both drivers.
#[test]
fn a_panicking_processor_or_instructions_function_is_a_setup_error() {
    let processor = Agent::<()>::builder(ScriptedModel::new().text("x"))
        .history_processor(|_| panic!("processor bug"))
        .build()
        .unwrap();
    let err = processor.run((), "hi").unwrap_err();
    assert!(matches!(&err, Error::Setup(SetupError::Processor(_))), "{err:?}");
    assert!(err.to_string().contains("the history processor panicked: processor bug"), "{err}");
    let err = futures_lite::future::block_on(processor.run_async((), "hi")).unwrap_err();
    assert!(matches!(&err, Error::Setup(SetupError::Processor(_))), "{err:?}");

    let model = ScriptedModel::new().text("x");
    let instructions =
        Agent::<()>::builder(model.clone()).instructions_fn(|_| panic!("instructions bug")).build().unwrap();
    let err = instructions.run((), "hi").unwrap_err();
    assert!(matches!(&err, Error::Setup(SetupError::Instructions(_))), "{err:?}");
    assert!(err.to_string().contains("the instructions function panicked: instructions bug"), "{err}");
    assert_eq!(model.request_count(), 0, "no request after a setup error");
}

#[test]
fn an_invalid_trim_budget_fails_every_run() {
    let agent =
        Agent::<()>::builder(ScriptedModel::new().text("x")).history_processor(trim_history(0)).build().unwrap();
    assert!(matches!(agent.run((), "hi").unwrap_err(), Error::Setup(SetupError::Processor(_))));
}

#[test]
fn trim_history_keeps_the_newest_messages() {
    let model = ScriptedModel::new().text("fine");
    let agent = Agent::<()>::builder(model.clone()).history_processor(trim_history(2)).build().unwrap();
    let history = vec![Message::user("a"), Message::assistant("b"), Message::user("c"), Message::assistant("d")];

    agent.run_with_history((), history, "e").unwrap();

    let sent: Vec<String> = model.requests()[0].messages.iter().map(|m| m.content.clone()).collect();
    assert_eq!(sent, ["c", "d", "e"]);
}

#[test]
fn invalid_history_is_a_setup_error() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("x")).build().unwrap();
    let bad = Message::assistant("look").with_parts(vec![Part::image_url("https://example.invalid/a.png")]);
    let err = agent.run_with_history((), vec![Message::user("q"), bad], "again").unwrap_err();
    assert!(matches!(err, Error::Setup(SetupError::History(_))), "{err:?}");
}

/// A model that cannot stream (custom models report no capabilities).
struct Plain;
impl Model for Plain {
    fn generate(&self, _: &Request) -> Result<Response, ModelError> {
        Ok(Response::text("plain"))
    }
}

#[test]
fn streaming_a_model_that_cannot_stream_is_a_setup_error() {
    let agent = Agent::<()>::builder(Plain).build().unwrap();
    let err = agent.run_with(()).prompt("hi").stream(true).call().unwrap_err();
    assert_eq!(err, Error::Setup(SetupError::StreamingUnsupported));
}

#[test]
fn instructions_are_resolved_once_per_run_and_replace_history_system_messages() {
    let model = ScriptedModel::new().text("one").text("two");
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counter = std::sync::Arc::clone(&calls);
    let agent = Agent::builder(model.clone())
        .instructions("Be brief.")
        .instructions_fn(move |ctx: &golem_io::RunContext<String>| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            format!("User: {}", ctx.deps())
        })
        .build()
        .unwrap();

    let first = agent.run("Ada".to_string(), "hi").unwrap();
    agent.run_with_history("Bob".to_string(), first.messages, "again").unwrap();

    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
    let second = &model.requests()[1].messages;
    let systems: Vec<&str> = second.iter().filter(|m| m.role == Role::System).map(|m| m.content.as_str()).collect();
    assert_eq!(systems, ["Be brief.\n\nUser: Bob"]);
}

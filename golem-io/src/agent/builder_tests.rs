//! Build rules (SPEC CFG-03) and build-time resolution (CFG-06, OUT-03,
//! OUT-07, TOOL-11) — no run involved.

use crate::{Agent, JsonDecoder, Tool, ToolContext, OUTPUT_TOOL_NAME};
use golem_core::model::{Capabilities, ModelError, Request, Response};
use golem_core::{Backoff, BuildError, Model, OutputMode, ToolChoice};
use serde_json::json;
use std::time::Duration;

#[derive(Clone, Copy, Default)]
struct Fake(Capabilities);

impl Model for Fake {
    fn generate(&self, _: &Request) -> Result<Response, ModelError> {
        Ok(Response::text("ok"))
    }
    fn capabilities(&self) -> Capabilities {
        self.0
    }
}

fn native() -> Fake {
    Fake(Capabilities::new().native_schema_with_tools(true).forced_tool_choice(true))
}

fn tool(name: &str) -> Tool<()> {
    Tool::new(name, "d", json!({"type": "object"}), |_: ToolContext<()>, _| Ok("x"))
}

fn build_err(b: crate::AgentBuilder<(), String>) -> BuildError {
    b.build().map(|_| ()).unwrap_err()
}

#[test]
fn zero_iterations_and_attempts_fail() {
    assert_eq!(build_err(Agent::builder(Fake::default()).max_iterations(0)), BuildError::ZeroMaxIterations);
    assert_eq!(build_err(Agent::builder(Fake::default()).max_attempts(0)), BuildError::ZeroMaxAttempts);
}

#[test]
fn schema_rules() {
    let bad = Agent::builder(Fake::default()).output_schema("{not json");
    assert!(matches!(build_err(bad), BuildError::InvalidOutputSchema(_)));
    let both = Agent::builder(Fake::default()).output_schema(json!({"type": "object"})).output_tool(
        "out",
        "",
        json!({"type": "object"}),
    );
    assert_eq!(build_err(both), BuildError::SchemaAndOutputTool);
    let collide = Agent::builder(Fake::default()).tool(tool("out")).output_tool("out", "", json!({"type": "object"}));
    assert_eq!(build_err(collide), BuildError::OutputToolCollision("out".into()));
    let not_object = Agent::builder(Fake::default()).output_schema(json!([1]));
    assert!(matches!(build_err(not_object), BuildError::SchemaNotObject(_)));
    let empty_name = Agent::builder(Fake::default()).output_tool("", "", json!({"type": "object"}));
    assert_eq!(build_err(empty_name), BuildError::EmptyOutputToolName);
}

#[test]
fn empty_schema_text_means_no_schema() {
    let agent = Agent::<()>::builder(Fake::default()).output_schema("  ").build().unwrap();
    assert_eq!(agent.config().output, OutputMode::Text);
}

#[test]
fn tool_rules() {
    let dup = Agent::builder(Fake::default()).tool(tool("a")).tool(tool("a"));
    assert_eq!(build_err(dup), BuildError::DuplicateTool("a".into()));
    let bad_name = Agent::builder(Fake::default()).tool(tool("a b"));
    assert_eq!(build_err(bad_name), BuildError::InvalidToolName("a b".into()));
    let empty_choice = Agent::builder(Fake::default()).tool(tool("a")).tool_choice("");
    assert_eq!(build_err(empty_choice), BuildError::EmptyToolChoice);
    let unknown_choice = Agent::builder(Fake::default()).tool(tool("a")).tool_choice("b");
    assert_eq!(build_err(unknown_choice), BuildError::UnknownToolChoice("b".into()));
    let zero = Agent::builder(Fake::default()).tool(tool("a").timeout(Duration::ZERO));
    assert!(matches!(build_err(zero), BuildError::ZeroDuration(_)));
    let zero = Agent::builder(Fake::default()).tool_timeout(Duration::ZERO);
    assert!(matches!(build_err(zero), BuildError::ZeroDuration(_)));
    let zero = Agent::builder(Fake::default()).max_concurrency(0);
    assert_eq!(build_err(zero), BuildError::ZeroConcurrency);
}

#[test]
fn backoff_is_sampled_into_a_table() {
    let agent = Agent::<()>::builder(Fake::default())
        .max_attempts(4)
        .backoff(|n| Duration::from_millis(u64::from(n) * 10))
        .build()
        .unwrap();
    let expected = [10, 20, 30].map(Duration::from_millis).to_vec();
    assert_eq!(agent.config().retry.backoff, Backoff::Table { delays: expected });
}

#[test]
fn fallback_counts_models_and_intersects_capabilities() {
    let agent =
        Agent::builder(native()).fallback(Fake::default()).tool(tool("a")).force_tool_choice("a").build().unwrap();
    assert_eq!(agent.config().models, 2);
    assert_eq!(agent.config().tool_choice, Some(ToolChoice::Restrict("a".into())));
    let agent = Agent::builder(native()).tool(tool("a")).force_tool_choice("a").build().unwrap();
    assert_eq!(agent.config().tool_choice, Some(ToolChoice::Force("a".into())));
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Weather {
    #[allow(dead_code)]
    city: String,
}

#[test]
fn typed_output_is_native_when_the_model_supports_it() {
    let agent = Agent::<()>::builder(native()).output::<Weather>().build().unwrap();
    let OutputMode::Native { schema } = &agent.config().output else { panic!("{:?}", agent.config().output) };
    assert_eq!(schema.name, "Weather");
    assert_eq!(schema.schema["type"], "object");
}

#[test]
fn typed_output_falls_back_to_an_output_tool() {
    let agent = Agent::<()>::builder(Fake::default()).output::<Weather>().build().unwrap();
    let OutputMode::Tool { name, schema, .. } = &agent.config().output else { panic!() };
    assert_eq!(name, OUTPUT_TOOL_NAME);
    assert!(schema["properties"]["city"].is_object());
}

#[test]
fn non_object_output_is_wrapped_in_tool_mode() {
    let agent = Agent::<()>::builder(Fake::default()).output::<Vec<u32>>().build().unwrap();
    let OutputMode::Tool { schema, .. } = &agent.config().output else { panic!() };
    assert_eq!(schema["required"], json!(["response"]));
    assert_eq!(schema["properties"]["response"]["type"], "array");
    let ctx = crate::RunContext::new(std::sync::Arc::new(()), crate::run::ids::RunIds::new("r", "c"));
    let decoded = agent.inner.decoder.decode(&ctx, &Response::text(r#"{"response":[1,2]}"#)).unwrap();
    assert_eq!(decoded, vec![1, 2]);
}

#[test]
fn non_object_output_is_wrapped_in_native_mode_too() {
    let agent = Agent::<()>::builder(native()).output::<Option<u32>>().build().unwrap();
    let OutputMode::Native { schema } = &agent.config().output else { panic!() };
    assert_eq!(schema.schema["type"], "object");
    assert_eq!(schema.schema["required"], json!(["response"]));
    let decoder = &agent.inner.decoder;
    let ctx = crate::RunContext::new(std::sync::Arc::new(()), crate::run::ids::RunIds::new("r", "c"));
    assert_eq!(decoder.decode(&ctx, &Response::text(r#"{"response":7}"#)).unwrap(), Some(7));
    assert_eq!(decoder.decode(&ctx, &Response::text(r#"{"response":null}"#)).unwrap(), None);
}

#[test]
fn a_custom_decoder_cannot_read_a_wrapped_output() {
    for model in [native(), Fake::default()] {
        let built = Agent::<()>::builder(model).output::<Vec<u32>>().decoder(JsonDecoder::<Vec<u32>>::new()).build();
        assert!(matches!(built.map(|_| ()), Err(BuildError::SchemaNotObject(_))));
    }
}

#[test]
fn a_custom_decoder_keeps_the_typed_schema_unwrapped() {
    let agent = Agent::<()>::builder(Fake::default())
        .output::<Weather>()
        .decoder(JsonDecoder::<serde_json::Value>::new())
        .build();
    assert!(matches!(agent.unwrap().config().output, OutputMode::Tool { .. }));
}

#[test]
fn agents_are_clone_send_sync() {
    fn assert_all<T: Clone + Send + Sync + 'static>() {}
    assert_all::<Agent<String, String>>();
    assert_all::<Agent<std::rc::Rc<()>, std::cell::Cell<u8>>>();
}

#[test]
fn the_deadline_setters_take_one_shape() {
    let secs = Duration::from_secs;
    let agent = Agent::<()>::builder(Fake::default())
        .model_deadline(secs(30))
        .run_deadline(Some(secs(90)))
        .tool_timeout(secs(5))
        .build()
        .unwrap();
    let config = agent.config();
    assert_eq!(
        (config.model_deadline, config.run_deadline, config.tool_timeout),
        (Some(secs(30)), Some(secs(90)), Some(secs(5)))
    );
    let agent = Agent::<()>::builder(Fake::default())
        .model_deadline(None)
        .run_deadline(None)
        .tool_timeout(None)
        .build()
        .unwrap();
    let config = agent.config();
    assert_eq!((config.model_deadline, config.run_deadline, config.tool_timeout), (None, None, None));
}

#[test]
fn production_then_single_fields_adjust_it() {
    let agent = Agent::<()>::builder(Fake::default())
        .production()
        .max_attempts(2)
        .discard_and_retry(false)
        .honor_retry_after(true)
        .model_deadline(Duration::from_secs(10))
        .build()
        .unwrap();
    let config = agent.config();
    assert_eq!((config.retry.max_attempts, config.retry.jitter), (2, true));
    assert!(!config.retry.discard_and_retry && config.retry.honor_retry_after);
    assert_eq!(
        (config.model_deadline, config.run_deadline),
        (Some(Duration::from_secs(10)), Some(Duration::from_secs(3600)))
    );
}

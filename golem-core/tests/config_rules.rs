//! Build-time configuration rules, one typed error each (SPEC CFG-02, CFG-03).

use golem_core::model::OutputSchema;
use golem_core::*;
use serde_json::json;
use std::time::Duration;

fn tool(name: &str) -> ToolSpec {
    ToolSpec::new(name, "", json!({"type": "object"}))
}

fn check(cfg: RunConfig) -> Result<(), BuildError> {
    cfg.validate()
}

#[test]
fn cfg_02_defaults() {
    let cfg = RunConfig::default();
    assert_eq!(cfg.max_iterations, 10);
    assert_eq!(cfg.retry.max_attempts, 1);
    assert_eq!(cfg.retry.backoff, Backoff::Exponential);
    assert!(!cfg.retry.jitter);
    assert_eq!(cfg.retry.output_retries, 0);
    assert_eq!(cfg.retry.tool_retries, 0);
    assert_eq!(cfg.tool_timeout, None);
    assert!(!cfg.parallel_tools);
    assert_eq!(cfg.tool_choice, None);
    assert_eq!(cfg.limits, UsageLimits::default());
    assert_eq!(cfg.model_deadline, Some(Duration::from_secs(300)));
    assert_eq!(cfg.retry.max_retry_after, Duration::from_secs(60));
    assert_eq!(cfg.max_concurrency, None);
    let rec = RetryPolicy::recommended();
    assert_eq!((rec.max_attempts, rec.jitter, rec.tool_retries, rec.output_retries), (4, true, 2, 1));
    assert!(check(cfg).is_ok());
}

#[test]
fn cfg_03_each_rule_has_its_own_error() {
    let base = RunConfig { tools: vec![tool("a"), tool("b")], ..RunConfig::default() };
    let cases: Vec<(RunConfig, BuildError)> = vec![
        (RunConfig { max_iterations: 0, ..base.clone() }, BuildError::ZeroMaxIterations),
        (
            RunConfig { retry: RetryPolicy { max_attempts: 0, ..RetryPolicy::default() }, ..base.clone() },
            BuildError::ZeroMaxAttempts,
        ),
        (RunConfig { tools: vec![tool("a"), tool("a")], ..base.clone() }, BuildError::DuplicateTool("a".into())),
        (
            RunConfig {
                output: OutputMode::Tool {
                    name: "a".into(),
                    description: String::new(),
                    schema: json!({"type": "object"}),
                },
                ..base.clone()
            },
            BuildError::OutputToolCollision("a".into()),
        ),
        (
            RunConfig {
                output: OutputMode::Tool { name: String::new(), description: String::new(), schema: json!({}) },
                ..base.clone()
            },
            BuildError::EmptyOutputToolName,
        ),
        (
            RunConfig {
                output: OutputMode::Tool { name: "out".into(), description: String::new(), schema: json!(true) },
                ..base.clone()
            },
            BuildError::SchemaNotObject("the output tool".into()),
        ),
        (
            RunConfig {
                output: OutputMode::Native { schema: OutputSchema { name: "o".into(), schema: json!("x") } },
                ..base.clone()
            },
            BuildError::SchemaNotObject("the output".into()),
        ),
        (
            RunConfig { tool_choice: Some(ToolChoice::Restrict(String::new())), ..base.clone() },
            BuildError::EmptyToolChoice,
        ),
        (
            RunConfig { tool_choice: Some(ToolChoice::Force("zzz".into())), ..base.clone() },
            BuildError::UnknownToolChoice("zzz".into()),
        ),
        (RunConfig { tools: vec![tool("has space")], ..base.clone() }, BuildError::InvalidToolName("has space".into())),
        (RunConfig { tools: vec![tool(&"x".repeat(65))], ..base.clone() }, BuildError::InvalidToolName("x".repeat(65))),
        (
            RunConfig { tools: vec![ToolSpec::new("t", "", json!([]))], ..base.clone() },
            BuildError::SchemaNotObject("tool t".into()),
        ),
        (
            RunConfig { tool_timeout: Some(Duration::ZERO), ..base.clone() },
            BuildError::ZeroDuration("the tool timeout"),
        ),
        (
            RunConfig { tools: vec![ToolSpec { timeout: Some(Duration::ZERO), ..tool("t") }], ..base.clone() },
            BuildError::ZeroDuration("a tool timeout"),
        ),
        (
            RunConfig { model_deadline: Some(Duration::ZERO), ..base.clone() },
            BuildError::ZeroDuration("the model deadline"),
        ),
        (
            RunConfig { run_deadline: Some(Duration::ZERO), ..base.clone() },
            BuildError::ZeroDuration("the run deadline"),
        ),
        (RunConfig { max_concurrency: Some(0), ..base.clone() }, BuildError::ZeroConcurrency),
        (RunConfig { models: 0, ..base.clone() }, BuildError::NoModel),
    ];
    for (cfg, expected) in cases {
        assert_eq!(check(cfg), Err(expected.clone()), "{expected}");
    }
    // The output tool may be the chosen tool (SPEC TOOL-11).
    let ok = RunConfig {
        tool_choice: Some(ToolChoice::Restrict("out".into())),
        output: OutputMode::Tool { name: "out".into(), description: String::new(), schema: json!({"type": "object"}) },
        ..base
    };
    assert_eq!(check(ok), Ok(()));
}

#[test]
fn cfg_06_config_is_plain_serialisable_data() {
    let cfg = RunConfig {
        tools: vec![ToolSpec { timeout: Some(Duration::from_millis(1500)), ..tool("a") }],
        retry: RetryPolicy {
            backoff: Backoff::Table { delays: vec![Duration::from_millis(10), Duration::from_millis(20)] },
            ..RetryPolicy::default()
        },
        tool_choice: Some(ToolChoice::Force("a".into())),
        ..RunConfig::default()
    };
    let json = serde_json::to_string(&cfg).unwrap();
    let back: RunConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(back, cfg);
}

#[test]
fn machine_refuses_invalid_config_as_setup_error() {
    let err = RunMachine::new(
        RunConfig { max_iterations: 0, ..RunConfig::default() },
        machine::Start::prompt("x"),
        Moment::ZERO,
    )
    .unwrap_err();
    assert_eq!(err, machine::SetupError::Config(BuildError::ZeroMaxIterations));
}

#[test]
fn cfg_03_tool_and_output_tool_schemas_must_describe_objects() {
    let string_schema =
        RunConfig { tools: vec![ToolSpec::new("t", "", json!({"type": "string"}))], ..RunConfig::default() };
    assert_eq!(check(string_schema), Err(BuildError::SchemaNotObject("tool t".into())));
    let array_output = RunConfig {
        output: OutputMode::Tool { name: "out".into(), description: String::new(), schema: json!({"type": "array"}) },
        ..RunConfig::default()
    };
    assert_eq!(check(array_output), Err(BuildError::SchemaNotObject("the output tool".into())));
    // No `type` at all (e.g. a bare `{}` or an `anyOf`) is left to the provider.
    let untyped = RunConfig { tools: vec![ToolSpec::new("t", "", json!({}))], ..RunConfig::default() };
    assert_eq!(check(untyped), Ok(()));
}

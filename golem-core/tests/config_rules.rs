//! Build-time configuration rules, one typed error each (SPEC CFG-02, CFG-03).

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
    assert_eq!(cfg.retry.max_retry_after, Duration::from_secs(600));
    assert_eq!(cfg.max_concurrency, None);
    let rec = RetryPolicy::recommended();
    assert_eq!((rec.max_attempts, rec.jitter, rec.tool_retries, rec.output_retries), (4, true, 2, 1));
    assert!(check(cfg).is_ok());
}

#[test]
fn cfg_03_each_rule_has_its_own_error() {
    let base = {
        let mut config = RunConfig::default();
        config.tools = vec![tool("a"), tool("b")];
        config
    };
    let cases: Vec<(RunConfig, BuildError)> = vec![
        (
            {
                let mut config = base.clone();
                config.max_iterations = 0;
                config
            },
            BuildError::ZeroMaxIterations,
        ),
        (
            {
                let mut config = base.clone();
                config.retry = RetryPolicy::new().max_attempts(0);
                config
            },
            BuildError::ZeroMaxAttempts,
        ),
        (
            {
                let mut config = base.clone();
                config.tools = vec![tool("a"), tool("a")];
                config
            },
            BuildError::DuplicateTool("a".into()),
        ),
        (
            {
                let mut config = base.clone();
                config.output = OutputMode::Tool {
                    name: "a".into(),
                    description: String::new(),
                    schema: json!({"type": "object"}),
                };
                config
            },
            BuildError::OutputToolCollision("a".into()),
        ),
        (
            {
                let mut config = base.clone();
                config.output = OutputMode::Tool { name: String::new(), description: String::new(), schema: json!({}) };
                config
            },
            BuildError::EmptyOutputToolName,
        ),
        (
            {
                let mut config = base.clone();
                config.output =
                    OutputMode::Tool { name: "out".into(), description: String::new(), schema: json!(true) };
                config
            },
            BuildError::SchemaNotObject("the output tool".into()),
        ),
        (
            {
                let mut config = base.clone();
                config.output = OutputMode::Native { schema: golem_core::model::OutputSchema::new("o", json!("x")) };
                config
            },
            BuildError::SchemaNotObject("the output".into()),
        ),
        (
            {
                let mut config = base.clone();
                config.tool_choice = Some(ToolChoice::Restrict(String::new()));
                config
            },
            BuildError::EmptyToolChoice,
        ),
        (
            {
                let mut config = base.clone();
                config.tool_choice = Some(ToolChoice::Force("zzz".into()));
                config
            },
            BuildError::UnknownToolChoice("zzz".into()),
        ),
        (
            {
                let mut config = base.clone();
                config.tools = vec![tool("has space")];
                config
            },
            BuildError::InvalidToolName("has space".into()),
        ),
        (
            {
                let mut config = base.clone();
                config.tools = vec![tool(&"x".repeat(65))];
                config
            },
            BuildError::InvalidToolName("x".repeat(65)),
        ),
        (
            {
                let mut config = base.clone();
                config.tools = vec![ToolSpec::new("t", "", json!([]))];
                config
            },
            BuildError::SchemaNotObject("tool t".into()),
        ),
        (
            {
                let mut config = base.clone();
                config.tool_timeout = Some(Duration::ZERO);
                config
            },
            BuildError::ZeroDuration("the tool timeout"),
        ),
        (
            {
                let mut config = base.clone();
                config.tools = vec![{
                    let mut config = tool("t");
                    config.timeout = Some(Duration::ZERO);
                    config
                }];
                config
            },
            BuildError::ZeroDuration("a tool timeout"),
        ),
        (
            {
                let mut config = base.clone();
                config.model_deadline = Some(Duration::ZERO);
                config
            },
            BuildError::ZeroDuration("the model deadline"),
        ),
        (
            {
                let mut config = base.clone();
                config.run_deadline = Some(Duration::ZERO);
                config
            },
            BuildError::ZeroDuration("the run deadline"),
        ),
        (
            {
                let mut config = base.clone();
                config.max_concurrency = Some(0);
                config
            },
            BuildError::ZeroConcurrency,
        ),
        (
            {
                let mut config = base.clone();
                config.models = 0;
                config
            },
            BuildError::NoModel,
        ),
    ];
    for (cfg, expected) in cases {
        assert_eq!(check(cfg), Err(expected.clone()), "{expected}");
    }
    // The output tool may be the chosen tool (SPEC TOOL-11).
    let ok = {
        let mut config = base;
        config.tool_choice = Some(ToolChoice::Restrict("out".into()));
        config.output =
            OutputMode::Tool { name: "out".into(), description: String::new(), schema: json!({"type": "object"}) };
        config
    };
    assert_eq!(check(ok), Ok(()));
}

#[test]
fn cfg_06_config_is_plain_serialisable_data() {
    let cfg = {
        let mut config = RunConfig::default();
        config.tools = vec![{
            let mut config = tool("a");
            config.timeout = Some(Duration::from_millis(1500));
            config
        }];
        config.retry = RetryPolicy::new()
            .backoff(Backoff::Table { delays: vec![Duration::from_millis(10), Duration::from_millis(20)] });
        config.tool_choice = Some(ToolChoice::Force("a".into()));
        config
    };
    let json = serde_json::to_string(&cfg).unwrap();
    let back: RunConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(back, cfg);
}

#[test]
fn machine_refuses_invalid_config_as_setup_error() {
    let err = RunMachine::new(
        {
            let mut config = RunConfig::default();
            config.max_iterations = 0;
            config
        },
        machine::Start::prompt("x"),
        Moment::ZERO,
    )
    .unwrap_err();
    assert_eq!(err, machine::SetupError::Config(BuildError::ZeroMaxIterations));
}

#[test]
fn cfg_03_tool_and_output_tool_schemas_must_describe_objects() {
    let string_schema = {
        let mut config = RunConfig::default();
        config.tools = vec![ToolSpec::new("t", "", json!({"type": "string"}))];
        config
    };
    assert_eq!(check(string_schema), Err(BuildError::SchemaNotObject("tool t".into())));
    let array_output = {
        let mut config = RunConfig::default();
        config.output =
            OutputMode::Tool { name: "out".into(), description: String::new(), schema: json!({"type": "array"}) };
        config
    };
    assert_eq!(check(array_output), Err(BuildError::SchemaNotObject("the output tool".into())));
    // No `type` at all (e.g. a bare `{}` or an `anyOf`) is left to the provider.
    let untyped = {
        let mut config = RunConfig::default();
        config.tools = vec![ToolSpec::new("t", "", json!({}))];
        config
    };
    assert_eq!(check(untyped), Ok(()));
}

//! Tool declarations (SPEC TOOL-01): what the model is told about a tool and
//! the policy the machine applies when running it. Handlers live in drivers.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What the model sees of a tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The tool's name, `^[A-Za-z0-9_-]{1,64}$`.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The JSON Schema (an object schema) of the arguments.
    pub parameters: serde_json::Value,
}

impl ToolDefinition {
    /// A definition with the given name, description and parameter schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: serde_json::Value) -> Self {
        ToolDefinition { name: name.into(), description: description.into(), parameters }
    }
}

/// What happens when a tool overruns its deadline (SPEC TOOL-10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutPolicy {
    /// The run fails at the tool stage (the seed behaviour).
    #[default]
    FailRun,
    /// The model is shown a failed result and the run goes on.
    FailedResult,
}

/// What a resumed run does with a call that started before a crash but has
/// no recorded result (SPEC LOG-06).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownOutcome {
    /// Tell the model the call may not have completed (the default: safe
    /// for tools with side effects).
    #[default]
    Interrupt,
    /// Run it again (for idempotent tools).
    Redo,
    /// Pause the run and ask a human, as an approval request.
    AskHuman,
}

/// A tool declaration plus the execution policy the machine applies to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolSpec {
    /// What the model sees.
    #[serde(flatten)]
    pub definition: ToolDefinition,
    /// This tool's own deadline; overrides the agent default.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::time::duration_ms::option")]
    pub timeout: Option<Duration>,
    /// A sequential tool is a barrier in parallel execution (SPEC TOOL-08).
    #[serde(default)]
    pub sequential: bool,
    /// This tool's own correction budget (SPEC TOOL-04); `None` uses the
    /// run-wide counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    /// What an overrun does.
    #[serde(default)]
    pub on_timeout: TimeoutPolicy,
    /// What a crash resume does when this tool's outcome is unknown.
    #[serde(default)]
    pub on_unknown_outcome: UnknownOutcome,
    /// This tool's cap on its result's text, in bytes (SPEC CAP-01);
    /// overrides the run's [`RunConfig::max_tool_result_bytes`](crate::RunConfig::max_tool_result_bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_result_bytes: Option<u64>,
    /// This tool's cap on the model's arguments, in bytes (SPEC CAP-01);
    /// overrides the run's [`RunConfig::max_tool_args_bytes`](crate::RunConfig::max_tool_args_bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_args_bytes: Option<u64>,
}

impl ToolSpec {
    /// A spec with the given name, description and parameter schema and the
    /// default policy.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: serde_json::Value) -> Self {
        ToolSpec {
            definition: ToolDefinition { name: name.into(), description: description.into(), parameters },
            timeout: None,
            sequential: false,
            max_retries: None,
            on_timeout: TimeoutPolicy::FailRun,
            on_unknown_outcome: UnknownOutcome::Interrupt,
            max_result_bytes: None,
            max_args_bytes: None,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.definition.name
    }
}

/// True when `name` is acceptable to every provider: `^[A-Za-z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

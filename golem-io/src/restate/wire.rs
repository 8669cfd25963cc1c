//! What crosses Restate's ingress: the run request, the resolution of a
//! deferred call, what a paused run waits for, and the run's outcome. All
//! JSON, camelCase like golem's other durable JSON (SPEC MSG-05).

use golem_core::{CauseRecord, DeferKind, Message, PendingCall, RunError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Start one durable run: which served agent, and what to ask it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunRequest {
    /// The name the agent was served under
    /// ([`DurableAgents::agent`](super::DurableAgents::agent)).
    pub agent: String,
    /// The user's prompt.
    pub prompt: String,
    /// Earlier messages the run continues (empty for a new conversation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// Stream the model's answers: the service's observers hear each
    /// fragment as it arrives (SPEC DUR-04). The agent's models must all
    /// stream.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
}

impl RunRequest {
    /// A run of `agent` on `prompt`.
    pub fn new(agent: impl Into<String>, prompt: impl Into<String>) -> Self {
        RunRequest { agent: agent.into(), prompt: prompt.into(), history: Vec::new(), stream: false }
    }

    /// Continue the conversation `history`.
    pub fn with_history(mut self, history: Vec<Message>) -> Self {
        self.history = history;
        self
    }

    /// Stream the model's answers (see [`stream`](Self::stream)).
    pub fn streamed(mut self) -> Self {
        self.stream = true;
        self
    }
}

/// How a caller resolves one deferred call of a waiting run (SPEC DUR-02).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case", rename_all_fields = "camelCase")]
#[non_exhaustive]
pub enum Decision {
    /// Approve a call that asked for approval: its tool runs.
    Approve,
    /// Deny a call that asked for approval; the model hears `reason`.
    Deny {
        /// Why, as the model will read it.
        reason: String,
    },
    /// Supply the result of a call deferred to an external system.
    Result {
        /// The tool result the model will read.
        content: String,
    },
}

/// A resolution addressed to one deferred call by its call id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resolution {
    /// The model's id of the deferred call.
    pub call_id: String,
    /// What to do with it.
    #[serde(flatten)]
    pub decision: Decision,
}

impl Resolution {
    /// Approve call `call_id`.
    pub fn approve(call_id: impl Into<String>) -> Self {
        Resolution { call_id: call_id.into(), decision: Decision::Approve }
    }

    /// Deny call `call_id`, telling the model `reason`.
    pub fn deny(call_id: impl Into<String>, reason: impl Into<String>) -> Self {
        Resolution { call_id: call_id.into(), decision: Decision::Deny { reason: reason.into() } }
    }

    /// Supply the external result `content` of call `call_id`.
    pub fn result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Resolution { call_id: call_id.into(), decision: Decision::Result { content: content.into() } }
    }

    /// The kind of deferral this resolution answers.
    pub(crate) fn kind(&self) -> DeferKind {
        match self.decision {
            Decision::Approve | Decision::Deny { .. } => DeferKind::Approval,
            Decision::Result { .. } => DeferKind::External,
        }
    }
}

/// One deferred call a paused run waits on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Waiting {
    /// The call, its tool, arguments and the tool's reason.
    pub call: PendingCall,
    /// Approval or external result.
    pub kind: DeferKind,
    /// The Restate awakeable the run waits on; the `resolve` handler
    /// completes it.
    pub awakeable: String,
}

/// What a durable run is doing, as the `status` handler reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunStatus {
    /// The deferred calls the run waits on now; empty while it works or
    /// once it ended.
    pub waiting: Vec<Waiting>,
    /// Pauses the run went through so far.
    pub pauses: u32,
}

/// The end of a durable run, as the workflow's `run` handler returns it:
/// the outcome and all its evidence, golem's own event logs included.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DurableOutcome {
    /// The completed run, its `output` the agent's typed output as JSON;
    /// `None` when the run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<crate::RunResult<Value>>,
    /// The failure, with its stage, cause and partial evidence; `None`
    /// when the run completed. [`Ingress::outcome`](super::Ingress::outcome)
    /// rebuilds its `source` from [`causes`](Self::causes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    /// The error object the run failed with (a tool's error, a decoder's),
    /// link by link down its `source()` chain: kind and message each — the
    /// same whether or not the run was replayed (SPEC DUR-04). Empty when
    /// the failure kept no object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<CauseRecord>,
    /// golem's event log (JSON lines) of each run the durable run went
    /// through: the first, then one per resume after a pause. Each replays
    /// with [`golem_core::log::replay`].
    pub logs: Vec<String>,
}

impl DurableOutcome {
    /// The output, when the run completed.
    pub fn output(&self) -> Option<&Value> {
        self.result.as_ref().map(|r| &r.output)
    }

    /// Give the error back its `source`, rebuilt from the causes (JSON
    /// does not carry the object).
    pub(crate) fn with_source(mut self) -> Self {
        if let (Some(error), Some(source)) = (&mut self.error, super::JournaledError::from_chain(&self.causes)) {
            error.source = Some(std::sync::Arc::new(source));
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // The shapes the durable-runs guide documents for plain HTTP callers.
    #[test]
    fn resolutions_read_and_write_the_documented_json() {
        let cases = [
            (Resolution::approve("c1"), json!({"callId": "c1", "decision": "approve"})),
            (Resolution::deny("c1", "too much"), json!({"callId": "c1", "decision": "deny", "reason": "too much"})),
            (Resolution::result("c1", "42"), json!({"callId": "c1", "decision": "result", "content": "42"})),
        ];
        for (resolution, wire) in cases {
            assert_eq!(serde_json::to_value(&resolution).unwrap(), wire);
            assert_eq!(serde_json::from_value::<Resolution>(wire).unwrap(), resolution);
        }
    }

    #[test]
    fn a_resolution_answers_one_kind_of_deferral() {
        assert_eq!(Resolution::approve("c").kind(), DeferKind::Approval);
        assert_eq!(Resolution::deny("c", "no").kind(), DeferKind::Approval);
        assert_eq!(Resolution::result("c", "x").kind(), DeferKind::External);
    }

    #[test]
    fn bad_resolutions_are_errors_not_panics() {
        for wire in [
            json!({"callId": "c1"}),
            json!({"callId": "c1", "decision": "maybe"}),
            json!({"callId": "c1", "decision": "deny"}),
            json!({"decision": "approve"}),
            json!("approve"),
        ] {
            assert!(serde_json::from_value::<Resolution>(wire.clone()).is_err(), "{wire}");
        }
    }

    #[test]
    fn a_run_request_needs_only_agent_and_prompt() {
        let request: RunRequest = serde_json::from_value(json!({"agent": "a", "prompt": "p"})).unwrap();
        assert_eq!(request, RunRequest::new("a", "p"));
        assert_eq!(serde_json::to_value(&request).unwrap(), json!({"agent": "a", "prompt": "p"}));
        let streamed: RunRequest =
            serde_json::from_value(json!({"agent": "a", "prompt": "p", "stream": true})).unwrap();
        assert_eq!(streamed, RunRequest::new("a", "p").streamed());
        assert_eq!(serde_json::to_value(&streamed).unwrap()["stream"], json!(true));
    }

    #[test]
    fn a_failed_outcome_gets_its_source_back_from_its_causes() {
        let causes = vec![CauseRecord::new("error", "outer"), CauseRecord::new("io::NotFound", "inner")];
        let fatal = golem_core::error::ToolFailureKind::Fatal { cause: causes[0].clone() };
        let cause = golem_core::Cause::Tool(golem_core::error::ToolFailure::new("t", "c1", fatal));
        let error = RunError::new(golem_core::Stage::Tool, cause);
        let outcome = DurableOutcome { result: None, error: Some(error), causes, logs: Vec::new() };
        let wire = serde_json::to_value(&outcome).unwrap();
        assert_eq!(wire["causes"][1], json!({"kind": "io::NotFound", "message": "inner"}));
        let read: DurableOutcome = serde_json::from_value(wire).unwrap();
        let error = read.with_source().error.unwrap();
        let source = error.source.as_deref().unwrap();
        assert_eq!(source.to_string(), "outer");
        assert_eq!(source.source().unwrap().to_string(), "inner");
    }
}

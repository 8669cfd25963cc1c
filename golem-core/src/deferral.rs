//! Deferred tool calls: pausing a run for approval or external results
//! (SPEC DEFER).

use crate::message::ToolArgs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a deferring tool waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeferKind {
    /// A human decision.
    Approval,
    /// A result produced outside the run.
    External,
}

/// One deferred call awaiting resolution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PendingCall {
    /// The provider call id; resolutions are keyed by it.
    pub call_id: String,
    /// The tool the model asked for.
    pub tool: String,
    /// Model-produced arguments: validate before trusting them.
    pub args: ToolArgs,
    /// The tool's explanation to whoever resolves it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

impl PendingCall {
    /// The deferred call `call_id` of `tool` with its arguments.
    pub fn new(call_id: impl Into<String>, tool: impl Into<String>, args: impl Into<ToolArgs>) -> Self {
        PendingCall { call_id: call_id.into(), tool: tool.into(), args: args.into(), reason: String::new() }
    }

    /// Builder-style: the tool's explanation.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = reason.into();
        self
    }
}

/// The calls that paused a run, grouped by what resolving them needs, each
/// in emission order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DeferredRequests {
    /// Calls waiting for a human decision.
    pub approvals: Vec<PendingCall>,
    /// Calls waiting for an external result.
    pub external: Vec<PendingCall>,
}

impl DeferredRequests {
    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.approvals.is_empty() && self.external.is_empty()
    }

    /// Check that `results` resolve only what these requests ask for —
    /// approvals only for approval requests, external results only for
    /// external ones — before a paused run is resumed from its log, which
    /// fails closed (SPEC DEFER-06).
    ///
    /// ```
    /// use golem_core::deferral::{Approval, DeferredRequests, DeferredResults, PendingCall, ResolutionError};
    ///
    /// let mut pending = DeferredRequests::default();
    /// pending.external.push(PendingCall::new("c1", "lookup", "{}"));
    /// let approve_it = DeferredResults::new().approval("c1", Approval::approve());
    /// assert_eq!(pending.admits(&approve_it), Err(ResolutionError::ApprovalNotPending("c1".into())));
    /// assert_eq!(pending.admits(&DeferredResults::new().external("c1", "42")), Ok(()));
    /// ```
    pub fn admits(&self, results: &DeferredResults) -> Result<(), ResolutionError> {
        let asked = |calls: &[PendingCall], id: &str| calls.iter().any(|p| p.call_id == id);
        if let Some(id) = results.approvals.keys().find(|id| !asked(&self.approvals, id)) {
            return Err(ResolutionError::ApprovalNotPending(id.clone()));
        }
        if let Some(id) = results.external.keys().find(|id| !asked(&self.external, id)) {
            return Err(ResolutionError::ExternalNotPending(id.clone()));
        }
        Ok(())
    }
}

/// A decision on one approval request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Approval {
    /// Approve: the tool runs again with the approved marker set.
    pub approved: bool,
    /// Shown to the model on denial; ignored on approval.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

impl Approval {
    /// Approve the call.
    pub fn approve() -> Self {
        Approval { approved: true, reason: String::new() }
    }

    /// Deny the call, optionally saying why.
    pub fn deny(reason: impl Into<String>) -> Self {
        Approval { approved: false, reason: reason.into() }
    }
}

/// Resolutions of a paused run's pending calls, keyed by provider call id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DeferredResults {
    /// Decisions on approval requests.
    #[serde(default)]
    pub approvals: BTreeMap<String, Approval>,
    /// Results of externally executed calls, given to the model verbatim.
    #[serde(default)]
    pub external: BTreeMap<String, String>,
}

impl DeferredResults {
    /// No resolutions yet.
    pub fn new() -> Self {
        DeferredResults::default()
    }

    /// Builder-style: decide an approval request.
    pub fn approval(mut self, call_id: impl Into<String>, approval: Approval) -> Self {
        self.approvals.insert(call_id.into(), approval);
        self
    }

    /// Builder-style: supply an external result.
    pub fn external(mut self, call_id: impl Into<String>, result: impl Into<String>) -> Self {
        self.external.insert(call_id.into(), result.into());
        self
    }
}

/// Why resolutions of a paused run were refused (SPEC DEFER-02), checked in
/// this order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolutionError {
    /// A tool call in the history has no id.
    #[error("a tool call of tool {0:?} in the history has no id")]
    CallWithoutId(String),
    /// Two pending calls share an id.
    #[error("two pending tool calls share the id {0:?}")]
    DuplicatePendingId(String),
    /// The history has no pending call.
    #[error("the history has no pending tool call to resolve")]
    NothingPending,
    /// An approval names a call that is not pending.
    #[error("approval for {0:?}, which is not a pending call")]
    ApprovalNotPending(String),
    /// A call is both approved/denied and given an external result.
    #[error("call {0:?} is resolved both as an approval and as an external result")]
    ResolvedBothWays(String),
    /// An external result names a call that is not pending.
    #[error("external result for {0:?}, which is not a pending call")]
    ExternalNotPending(String),
    /// A pending call was left without a resolution.
    #[error("pending call {0:?} has no resolution")]
    Unresolved(String),
}

//! What a Chat Completions message means once read, whichever way it was
//! read: the rules the typed views and the `Value` path share, so the two
//! cannot drift apart (issue 20).

use super::ids::synthesized;
use golem_core::message::{FinishReason, Usage};
use golem_core::model::Delta;

/// Collects a response message's deltas; owns the rules both decoding paths
/// share: empty texts are skipped, calls are numbered in order, a call
/// without an id gets `call_<turn>_<n>`, and empty arguments become `{}`
/// (SPEC PROV-COMMON-03/06).
pub(super) struct DeltaSink {
    out: Vec<Delta>,
    calls: usize,
    turn: usize,
}

impl DeltaSink {
    /// A sink for the response to turn `turn`.
    pub(super) fn new(turn: usize) -> Self {
        DeltaSink { out: Vec::new(), calls: 0, turn }
    }

    /// The reasoning text, as thinking block 0 (SPEC THINK-03).
    pub(super) fn thinking(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !text.is_empty() {
            self.out.push(Delta::Thinking { index: 0, text, signature: String::new(), redacted: String::new() });
        }
    }

    /// A piece of answer text.
    pub(super) fn text(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !text.is_empty() {
            self.out.push(Delta::Text { text });
        }
    }

    /// The next tool call, whole.
    pub(super) fn call(&mut self, id: Option<String>, name: impl Into<String>, args: String) {
        let n = self.calls;
        self.calls += 1;
        self.out.push(Delta::ToolCall {
            index: u32::try_from(n).unwrap_or(u32::MAX),
            id: call_id(id, self.turn, n),
            name: name.into(),
            args: call_args(args),
            signature: String::new(),
        });
    }

    /// The deltas, in the order they were given.
    /// Annotations as a metadata part, when there are any.
    pub(super) fn annotations(&mut self, value: Option<&serde_json::Value>) {
        self.out.extend(annotations(value));
    }

    pub(super) fn finish(self) -> Vec<Delta> {
        self.out
    }
}

/// The id of the `n`-th call (from 0) of the response to turn `turn`: its
/// own when it has one, else `call_<turn>_<n + 1>` (SPEC PROV-COMMON-06).
pub(super) fn call_id(id: Option<String>, turn: usize, n: usize) -> String {
    id.filter(|id| !id.is_empty()).unwrap_or_else(|| synthesized(turn, n + 1))
}

/// A call's arguments, `{}` when empty (SPEC PROV-COMMON-03).
pub(super) fn call_args(args: String) -> String {
    if golem_core::ToolArgs::is_blank(&args) {
        "{}".to_string()
    } else {
        args
    }
}

/// The finish reason named by a string, if any.
pub(super) fn finish_reason_of(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("tool_calls" | "function_call") => FinishReason::ToolCall,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(_) => FinishReason::Other,
        None => FinishReason::Unknown,
    }
}

/// Usage from its counts; a missing count is zero.
pub(super) fn usage_of(input: Option<u64>, output: Option<u64>, cached: Option<u64>, reasoning: Option<u64>) -> Usage {
    Usage::new(input.unwrap_or(0), output.unwrap_or(0))
        .with_cache_read_tokens(cached.unwrap_or(0))
        .with_reasoning_tokens(reasoning.unwrap_or(0))
}

/// A message's or delta's `annotations` (a search model's `url_citation`s)
/// as a metadata provider part: kept on the message for the caller, never
/// sent back (issue 36). Only a non-empty array counts; its compact JSON is
/// the part's raw text, the same from a typed view and from a `Value`.
pub(super) fn annotations(value: Option<&serde_json::Value>) -> Option<Delta> {
    annotations_part(value).map(|part| Delta::Provider { part })
}

/// [`annotations`]' part itself, for a message built without deltas.
pub(super) fn annotations_part(value: Option<&serde_json::Value>) -> Option<golem_core::builtin::ProviderPart> {
    let items = value?.as_array().filter(|items| !items.is_empty())?;
    let raw = serde_json::Value::Array(items.clone()).to_string();
    let part =
        golem_core::builtin::ProviderPart::new(super::FAMILY, golem_core::builtin::ProviderPartKind::Metadata, raw)
            .with_name("annotations");
    Some(part)
}

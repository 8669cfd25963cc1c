//! Format 1's view of the machine's outputs, so the digests of format-1
//! logs still check (SPEC LOG-03).
//!
//! Format 2 changed the shape of the tool events (a `turn` on `tool_start`,
//! `tool_end` and `deferred`; a typed `outcome` on `tool_end` where format 1
//! had `result` / `error` strings). A digest is a hash of the outputs' JSON,
//! so a format-1 record's digest is checked against the outputs written the
//! way format 1 wrote them: these types serialise exactly as format 1's did,
//! field for field and in the same order, borrowing from today's outputs.
//! Every other output is unchanged and serialises as itself.

use crate::deferral::DeferKind;
use crate::event::{EventKind, RunEvent};
use crate::machine::Output;
use crate::message::ToolArgs;
use serde::Serialize;

/// An output as format 1 serialised it.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum V1Output<'a> {
    /// Unchanged since format 1.
    Same(&'a Output),
    /// An event whose shape changed.
    Event(V1EventOutput<'a>),
}

/// `{"event": …}`, the externally tagged `Output::Event`.
#[derive(Serialize)]
pub(super) struct V1EventOutput<'a> {
    event: V1Event<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct V1Event<'a> {
    seq: u64,
    #[serde(skip_serializing_if = "str::is_empty")]
    run_id: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    conversation_id: &'a str,
    #[serde(flatten)]
    kind: V1Kind<'a>,
}

/// The three tool events, each with its tag first, as the internally
/// tagged `EventKind` wrote them.
#[derive(Serialize)]
#[serde(untagged)]
enum V1Kind<'a> {
    ToolStart(V1ToolStart<'a>),
    ToolEnd(V1ToolEnd<'a>),
    Deferred(V1Deferred<'a>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct V1ToolStart<'a> {
    event: &'static str,
    call_id: &'a str,
    tool: &'a str,
    args: &'a ToolArgs,
    #[serde(skip_serializing_if = "is_false")]
    approved: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct V1ToolEnd<'a> {
    event: &'static str,
    call_id: &'a str,
    tool: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "is_false")]
    approved: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct V1Deferred<'a> {
    event: &'static str,
    call_id: &'a str,
    tool: &'a str,
    kind: DeferKind,
    reason: &'a str,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `output` as format 1 wrote it.
pub(super) fn v1(output: &Output) -> V1Output<'_> {
    let Output::Event(event) = output else { return V1Output::Same(output) };
    let kind = match &event.kind {
        EventKind::ToolStart { call_id, tool, args, approved, .. } => {
            V1Kind::ToolStart(V1ToolStart { event: "tool_start", call_id, tool, args, approved: *approved })
        }
        EventKind::ToolEnd { call_id, tool, outcome, approved, .. } => V1Kind::ToolEnd(V1ToolEnd {
            event: "tool_end",
            call_id,
            tool,
            result: outcome.output(),
            error: outcome.error_text(),
            approved: *approved,
        }),
        EventKind::Deferred { call_id, tool, kind, reason, .. } => {
            V1Kind::Deferred(V1Deferred { event: "deferred", call_id, tool, kind: *kind, reason })
        }
        _ => return V1Output::Same(output),
    };
    V1Output::Event(V1EventOutput { event: v1_event(event, kind) })
}

fn v1_event<'a>(event: &'a RunEvent, kind: V1Kind<'a>) -> V1Event<'a> {
    V1Event { seq: event.seq, run_id: &event.run_id, conversation_id: &event.conversation_id, kind }
}

//! A delegated sub-run's events as its parent's observers hear them (SPEC
//! DELEG-04): forwarded, tagged with the delegating call, and never part of
//! the parent's own event sequence or log.

use crate::run::contain::contain;
use crate::tool::progress::{ToolProgress, ToolProgressObserver};
use golem_core::RunEvent;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One delegation call on the way from an observing run down to the
/// sub-run that emitted an event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubRunCall {
    /// The provider's id of the delegation tool call.
    pub call_id: String,
    /// The name the model called the delegation tool by.
    pub tool_name: String,
}

/// An event of a delegated sub-run, forwarded to the delegating run's
/// sub-run observers ([`RunBuilder::on_sub_run_event`](crate::RunBuilder::on_sub_run_event))
/// by a delegation tool built with
/// [`forward_events(true)`](crate::Delegation::forward_events).
///
/// The event is the sub-run's own, unchanged: its `seq` counts the
/// sub-run's sequence and its `run_id` is the sub-run's. It is not one of
/// the observing run's events — it has no place in that run's sequence, its
/// log or its result (SPEC DELEG-04).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubRunEvent {
    /// The delegation calls from the observing run down to the sub-run that
    /// emitted the event, outermost first; never empty. The first is one of
    /// the observing run's own tool calls; a nested delegation (a sub-run
    /// delegating in turn, with forwarding on at every level) adds one call
    /// per level.
    pub path: Vec<SubRunCall>,
    /// The sub-run's event.
    pub event: RunEvent,
}

impl SubRunEvent {
    /// The observing run's delegation call the event came through: the id
    /// its own `tool_start` and `tool_end` events carry.
    pub fn call_id(&self) -> &str {
        self.path.first().map_or("", |call| call.call_id.as_str())
    }

    /// The name of that call's tool.
    pub fn tool_name(&self) -> &str {
        self.path.first().map_or("", |call| call.tool_name.as_str())
    }

    /// The call whose sub-run emitted the event: the last of the path, the
    /// first unless delegations nest.
    pub fn innermost_call_id(&self) -> &str {
        self.path.last().map_or("", |call| call.call_id.as_str())
    }

    /// How many delegations deep the emitting run is: 1 for the observing
    /// run's direct sub-run.
    pub fn depth(&self) -> usize {
        self.path.len()
    }

    /// This event as seen one run further up, through `call`.
    pub(crate) fn through(&self, call: SubRunCall) -> SubRunEvent {
        let mut path = Vec::with_capacity(self.path.len() + 1);
        path.push(call);
        path.extend(self.path.iter().cloned());
        SubRunEvent { path, event: self.event.clone() }
    }
}

/// A sub-run observer as a run stores it.
pub(crate) type SubRunObserver = Arc<dyn Fn(&SubRunEvent) + Send + Sync>;

/// Where a run's tools hand what they tell its observers out of band:
/// delegation tools their sub-runs' events, any tool its progress
/// ([`ToolProgress`]). Shared with every tool context so tools on other
/// threads (the blocking driver's tool threads) reach them too.
#[derive(Clone)]
pub(crate) struct SubRunSink {
    sub: Arc<[SubRunObserver]>,
    progress: Arc<[ToolProgressObserver]>,
}

impl SubRunSink {
    /// The sink of these observers; `None` when nobody listens, so tools
    /// attach and report nothing.
    pub(crate) fn of(sub: Vec<SubRunObserver>, progress: Vec<ToolProgressObserver>) -> Option<Self> {
        (!sub.is_empty() || !progress.is_empty()).then(|| SubRunSink { sub: sub.into(), progress: progress.into() })
    }

    /// Tell every sub-run observer about `event`. Like run observers they
    /// cannot fail either run, so a panicking one is contained and skipped
    /// (SPEC EVT-03).
    pub(crate) fn forward(&self, event: &SubRunEvent) {
        for observer in self.sub.iter() {
            let _ = contain("a sub-run observer", || observer(event));
        }
    }

    /// Tell every progress observer about `progress`, containing panics
    /// alike.
    pub(crate) fn progress(&self, progress: &ToolProgress) {
        for observer in self.progress.iter() {
            let _ = contain("a tool progress observer", || observer(progress));
        }
    }
}

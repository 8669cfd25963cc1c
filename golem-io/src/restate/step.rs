//! The journaled steps of a durable run and what each stores in Restate's
//! journal. Everything the machine is fed comes out of one of these, so a
//! replayed handler feeds the machine the same inputs at the same moments
//! and reaches the same state (SPEC DUR-01) — golem's event log is the same
//! byte for byte, and so is every event's `seq`.

use super::fragments::Fragments;
use golem_core::machine::Input;
use golem_core::CauseRecord;
use serde::{Deserialize, Serialize};

/// The run's non-deterministic beginnings, minted once.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Minted {
    pub(crate) run_id: String,
    pub(crate) conversation_id: String,
    /// The run's jitter seed (SPEC JIT-01).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) jitter_seed: Option<u64>,
    /// What journals written before jitter seeds hold instead: replayed as
    /// it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) jitter_phase: Option<u64>,
    pub(crate) unix_ms: u64,
}

impl Minted {
    pub(crate) fn now() -> Self {
        Minted {
            run_id: crate::run::ids::uuid_v7(),
            conversation_id: crate::run::ids::uuid_v7(),
            jitter_seed: Some(crate::run::ids::jitter_seed()),
            jitter_phase: None,
            unix_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0),
        }
    }
}

/// How one model call, or the wait for the next tool answer, ended, and
/// how long it took: the run's clock advances by `elapsed_ns`, as
/// journaled, on replay too.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Done {
    pub(crate) elapsed_ns: u64,
    pub(crate) end: End,
    /// A failing tool's error object, link by link down its `source()`
    /// chain, so that a replay rebuilds it (SPEC DUR-04).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) error: Vec<CauseRecord>,
    /// What a streamed model call sent before its end, and when.
    #[serde(default, skip_serializing_if = "Fragments::is_empty")]
    pub(crate) fragments: Fragments,
    /// What a delegating tool call's sub-run spent (issue 31).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) spent: Option<golem_core::SubRunUsage>,
}

impl Done {
    /// An end with nothing beside it.
    pub(crate) fn plain(elapsed_ns: u64, end: End) -> Self {
        Done { elapsed_ns, end, error: Vec::new(), fragments: Fragments::default(), spent: None }
    }
}

/// The end of a step.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum End {
    /// The work answered: feed this. Boxed: an input is large, and the
    /// other ends are empty.
    Answer(Box<Input>),
    /// The machine's deadline came first: its clock reaches the deadline
    /// and the machine decides (retry, time-out policy).
    Deadline,
    /// Tool work started in an earlier attempt of the handler (its start is
    /// journaled) and never journaled an end: the process died while it
    /// ran. Its outcome is unknown, and it is not run again here; the
    /// machine applies each tool's `UnknownOutcome` policy (SPEC LOG-06).
    Unknown,
}

impl End {
    /// The text of a model call's successful answer.
    pub(crate) fn answer_text(&self) -> Option<&str> {
        match self {
            End::Answer(input) => match input.as_ref() {
                Input::ModelFinished { result: Ok(response), .. } => Some(&response.message.content),
                _ => None,
            },
            _ => None,
        }
    }
}

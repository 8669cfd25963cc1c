//! Hearing every durable run a service executes: its events as they
//! happen, each once per real execution, with the run's workflow key
//! (SPEC DUR-04).

use golem_core::RunEvent;
use std::sync::Arc;

/// One event of a durable run, as a service's observers hear it
/// ([`DurableAgents::observer`](super::DurableAgents::observer)).
///
/// Events come once per real execution: when Restate replays a run (after
/// a crash, a deploy, or a long wait), the events of the part it replays
/// were heard when that part first ran and are not heard again. A model
/// call or tool cut off by a crash is made again; the events of the new
/// execution follow, so after a crash mid-stream a call's fragments start
/// over under the same `seq` numbers — a consumer that keys what it shows
/// on `seq` replaces the broken part.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct DurableEvent<'a> {
    /// The durable run's workflow key.
    pub key: &'a str,
    /// The name the run's agent is served under.
    pub agent: &'a str,
    /// The event.
    pub event: &'a RunEvent,
}

/// A service observer as the workflow stores it.
pub(crate) type DurableObserver = Arc<dyn Fn(&DurableEvent<'_>) + Send + Sync>;

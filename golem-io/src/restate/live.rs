//! Telling a durable run's real execution from its replay, so observers
//! and spans happen once per real execution (SPEC DUR-04).
//!
//! Restate runs the handler again after a crash, a deploy or a suspension
//! (a long sleep, a wait for an approval): the new attempt replays the
//! journal — every journaled step returns its recorded answer without
//! running — up to where the journal ends, and executes from there on.
//! golem feeds the machine the same inputs either way, so the machine
//! emits the replayed part's events again. They were observed when that
//! part first ran, so they must not be observed again.
//!
//! Every input the driver feeds comes out of a journaled step (or follows
//! one with nothing in between: a decoder's verdict, a streamed fragment),
//! and Restate runs a step's closure only when the step is not in the
//! journal. So the first closure that runs in an attempt is where the
//! attempt turns from replaying to executing, and it stays executing: the
//! closure marks it, and the events of every input fed after that mark are
//! real. A wait that a step does not end — a durable sleep — is followed by
//! a step of its own, so that the input after it is judged the same way.
//!
//! One gap remains, and it is narrow: a process that dies after Restate
//! journaled a step's answer but before golem fed it leaves that answer's
//! events unobserved (the next attempt replays them). At most once, never
//! twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether this attempt of the handler has begun to execute; shared by
/// every step of the attempt, across the run's segments.
#[derive(Clone, Debug, Default)]
pub(crate) struct Live(Arc<AtomicBool>);

impl Live {
    /// Whether the attempt executes (it no longer replays).
    pub(crate) fn now(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// A step's closure runs: from here on the attempt executes.
    pub(crate) fn mark(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

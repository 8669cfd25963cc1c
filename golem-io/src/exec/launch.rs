//! Everything a driver needs to run one run, resolved by the run builder.

use super::Observers;
use crate::agent::AgentInner;
use crate::cancel::CancellationToken;
use crate::clock::Clock;
use golem_core::machine::Start;
use std::sync::Arc;

/// One run, ready for a driver: the agent, the run's deps, how it starts
/// (preamble already applied), who listens, its clock and its caller's
/// cancellation.
pub(crate) struct Launch<'a, Deps, O> {
    pub(crate) agent: &'a AgentInner<Deps, O>,
    pub(crate) deps: Arc<Deps>,
    pub(crate) start: Start,
    pub(crate) observers: Observers<'a>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) cancel: Option<CancellationToken>,
}

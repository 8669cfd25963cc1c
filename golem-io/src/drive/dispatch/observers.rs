//! Who hears a run's events: the agent's observers, the run's observers,
//! and a streamed run's delta callback (SPEC EVT-03, STREAM-01, STREAM-02).

use crate::agent::Observer;
use crate::results::stream_delta::StreamDelta;
use crate::run::contain::contain;
use golem_core::model::BoxError;
use golem_core::{EventKind, RunEvent};

/// A streamed run's fragment callback. Its error stops the run at the model
/// stage, the error kept in the `source()` chain (SPEC STREAM-02).
pub(crate) type DeltaCallback<'a> = Box<dyn FnMut(StreamDelta<'_>) -> Result<(), BoxError> + Send + 'a>;

/// A delta callback that panicked; the run fails as if it had returned this.
#[derive(Debug, thiserror::Error)]
#[error("the delta callback panicked")]
struct CallbackPanicked(#[source] crate::run::contain::Panicked);

/// The audience of one run.
pub(crate) struct Observers<'a> {
    /// Agent-scoped observers first, then run-scoped (SPEC EVT-03).
    observers: Vec<Observer>,
    on_delta: Option<DeltaCallback<'a>>,
    /// Where the stream is, from the events so far: a delta carries only
    /// its turn, the rest the callback gets comes from these.
    round: u32,
    attempt: u32,
    member: u32,
}

impl<'a> Observers<'a> {
    pub(crate) fn new(agent: &[Observer], run: Vec<Observer>, on_delta: Option<DeltaCallback<'a>>) -> Self {
        let mut observers = agent.to_vec();
        observers.extend(run);
        Observers { observers, on_delta, round: 0, attempt: 1, member: 0 }
    }

    /// Whether anyone hears the run's events.
    pub(crate) fn any(&self) -> bool {
        !self.observers.is_empty() || self.on_delta.is_some()
    }

    /// Tell everyone about `event`. Observers cannot fail a run, so a
    /// panicking one is contained and skipped; the delta callback can: its
    /// error (or panic) is returned, and it hears nothing more.
    pub(crate) fn event(&mut self, event: &RunEvent) -> Result<(), BoxError> {
        for observer in &self.observers {
            let _ = contain("an observer", || observer(event));
        }
        match &event.kind {
            EventKind::ModelStart { attempt, member, .. } => (self.attempt, self.member) = (*attempt, *member),
            EventKind::OutputRejected { round, .. } => self.round = *round,
            _ => {}
        }
        let Some(callback) = self.on_delta.as_mut() else { return Ok(()) };
        let delta = match &event.kind {
            EventKind::Delta { delta, turn } => StreamDelta {
                delta,
                turn: *turn,
                round: self.round,
                attempt: self.attempt,
                member: self.member,
                discarded: false,
            },
            // The callback is told in step with the event stream (SPEC RETRY-06).
            EventKind::TurnDiscarded { turn, attempt, member } => {
                StreamDelta::discard(*turn, self.round, *attempt, *member)
            }
            _ => return Ok(()),
        };
        let result = match contain("the delta callback", || callback(delta)) {
            Ok(result) => result,
            Err(panicked) => Err(Box::new(CallbackPanicked(panicked)) as BoxError),
        };
        if result.is_err() {
            self.on_delta = None;
        }
        result
    }
}

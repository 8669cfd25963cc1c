//! A streamed model call on the driver's own thread (SPEC DRV-02,
//! STREAM-01, issue 20): each fragment goes into the machine the moment the
//! model yields it, and the events it produces reach the observers and the
//! delta callback before the model reads on. No worker thread, no channel,
//! no wake-up of the driver per fragment — the cost a streamed run used to
//! pay over a plain one.
//!
//! Only a lone call that stops at its deadline by itself runs here (the
//! blocking driver's rule for any call on its thread), so feeding a
//! fragment yields events and then `Wait` — unless the call's own deadline
//! fired with it. Then the machine has moved on (cancelled the call, maybe
//! commanded a retry or ended the run): its commands (or `Done`) are
//! carried back to the driver's loop, in order, and the call is stopped as
//! one the run gave up on. Its answer then reaches the machine as a late
//! one, exactly as it would have from a worker.

use super::Observers;
use crate::record::RecordedMachine;
use crate::run::clock::Clock;
use crate::Error;
use golem_core::machine::{Input, ModelCallId, Output};
use golem_core::model::BoxError;
use golem_core::{Delta, DeltaSink, ModelError};
use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

/// What a streamed call on the driver's thread feeds: the machine, the
/// run's audience, the clock that stamps each fragment, and where outputs
/// the driver must act on wait for its loop.
pub(crate) struct InlineStream<'m, 'a> {
    machine: &'m mut RecordedMachine<'a>,
    observers: &'m mut Observers<'a>,
    clock: &'m dyn Clock,
    carried: &'m mut VecDeque<Output>,
    /// A driver failure met while feeding (a misuse, the log's I/O): the
    /// call was stopped, and the run ends with this.
    failed: Option<Error>,
    /// The call the delta callback stopped, and its error: that is the
    /// call's answer, whatever the model returns (SPEC STREAM-02).
    refused: Option<(ModelCallId, Refused)>,
}

/// The delta callback's error, shared between what the sink hands the model
/// and the answer the driver feeds: both show it and lead to it through
/// `source()`.
#[derive(Clone)]
struct Refused(Arc<dyn std::error::Error + Send + Sync>);

impl fmt::Debug for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Refused {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

/// Why the sink stopped the call: the run no longer wants its fragments.
#[derive(Debug, thiserror::Error)]
#[error("the run moved on while the call was streaming")]
struct MovedOn;

impl<'m, 'a> InlineStream<'m, 'a> {
    /// Feed `machine` at `clock`'s time, telling `observers`; outputs the
    /// driver's loop must handle go to `carried`, which it drains before
    /// polling the machine again.
    pub(crate) fn new(
        machine: &'m mut RecordedMachine<'a>,
        observers: &'m mut Observers<'a>,
        clock: &'m dyn Clock,
        carried: &'m mut VecDeque<Output>,
    ) -> Self {
        InlineStream { machine, observers, clock, carried, failed: None, refused: None }
    }

    /// The sink for streamed call `id`.
    pub(crate) fn sink(&mut self, id: ModelCallId) -> CallSink<'_, 'm, 'a> {
        CallSink { feed: self, id, stopped: false }
    }

    /// Make `answer` what the run takes as the call's answer: when the
    /// delta callback stopped the call, its error — also from a model that
    /// ignored its sink's refusal and answered anyway.
    pub(crate) fn settle(&mut self, answer: &mut Input) {
        let Input::ModelFinished { id, result } = answer else { return };
        if let Some((_, refused)) = self.refused.take_if(|(call, _)| call == id) {
            *result = Err(ModelError::sink_aborted(Box::new(refused)));
        }
    }

    /// The driver failure that stopped a call, if one did.
    pub(crate) fn finish(self) -> Result<(), Error> {
        self.failed.map_or(Ok(()), Err)
    }
}

/// The sink of one streamed call on the driver's thread.
pub(crate) struct CallSink<'s, 'm, 'a> {
    feed: &'s mut InlineStream<'m, 'a>,
    id: ModelCallId,
    /// The sink refused a fragment: the call is over for the run.
    stopped: bool,
}

impl DeltaSink for CallSink<'_, '_, '_> {
    fn delta(&mut self, delta: Delta) -> Result<(), BoxError> {
        let result = self.take(delta);
        self.stopped |= result.is_err();
        result
    }
}

impl CallSink<'_, '_, '_> {
    fn take(&mut self, delta: Delta) -> Result<(), BoxError> {
        let feed = &mut *self.feed;
        // A model that ignores its sink's error keeps calling; the run has
        // already moved on, so nothing more goes in.
        if self.stopped || feed.failed.is_some() || !feed.carried.is_empty() {
            return Err(Box::new(MovedOn));
        }
        if let Err(error) = feed.machine.feed(feed.clock.now(), Input::ModelDelta { id: self.id, delta }) {
            feed.failed = Some(error);
            return Err(Box::new(MovedOn));
        }
        // Drain this input's outputs as the driver's loop does, through the
        // `Wait` that ends them: a recording machine has that `Wait` queued
        // already, and one left behind would end the loop's next drain
        // early, stranding what the call's answer produces.
        let mut refused = None;
        let mut moved_on = false;
        loop {
            match feed.machine.poll() {
                // The delta callback's error stops the call with it as the
                // source (SPEC STREAM-02); later events still reach the
                // observers, as in the driver's loop.
                Output::Event(event) => {
                    if let Err(error) = feed.observers.event(&event) {
                        refused.get_or_insert(Refused(Arc::from(error)));
                    }
                }
                // The loop takes its deadline from the drain after the
                // call's answer; this one is spent.
                Output::Wait { .. } => break,
                Output::Done => {
                    feed.carried.push_back(Output::Done);
                    moved_on = true;
                    break;
                }
                command => {
                    feed.carried.push_back(command);
                    moved_on = true;
                }
            }
        }
        match refused {
            Some(refused) => {
                feed.refused = Some((self.id, refused.clone()));
                Err(Box::new(refused))
            }
            None if moved_on => Err(Box::new(MovedOn)),
            None => Ok(()),
        }
    }
}

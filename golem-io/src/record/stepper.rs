//! The machine as both drivers step it, with optional recording.

use super::Recorder;
use crate::Error;
use golem_core::machine::{Input, Outcome, Output};
use golem_core::{Moment, RunMachine};
use std::collections::VecDeque;

/// The machine plus, when recording, the outputs drained ahead so each
/// input's line carries the digest of what it produced.
pub(crate) struct Stepper<'a> {
    machine: RunMachine,
    recorder: Option<Recorder<'a>>,
    buffered: VecDeque<Output>,
    ended: bool,
}

impl<'a> Stepper<'a> {
    pub(crate) fn new(machine: RunMachine, recorder: Option<Recorder<'a>>) -> Self {
        Stepper { machine, recorder, buffered: VecDeque::new(), ended: false }
    }

    /// The run's ids as the machine holds them (given, minted, or the log's).
    pub(crate) fn ids(&self) -> crate::ids::RunIds {
        crate::ids::RunIds::new(self.machine.run_id(), self.machine.conversation_id())
    }

    /// The next output (SPEC MACH-01: drained until `Wait` or `Done`).
    pub(crate) fn poll(&mut self) -> Output {
        self.buffered.pop_front().unwrap_or_else(|| self.machine.poll_output())
    }

    /// Feed one input at `now`; when recording, write it (flushed) before
    /// anything it caused can run.
    pub(crate) fn feed(&mut self, now: Moment, input: Input) -> Result<(), Error> {
        let Some(recorder) = &mut self.recorder else {
            return self.machine.handle_input(now, input).map_err(Error::Misuse);
        };
        self.machine.handle_input(now, input.clone()).map_err(Error::Misuse)?;
        let outputs = self.machine.drain();
        recorder.input(now, &input, &outputs)?;
        self.buffered.extend(outputs);
        Ok(())
    }

    /// The outcome, once `Done` was polled; the end marker is written once.
    pub(crate) fn outcome(&mut self) -> Result<Option<&Outcome>, Error> {
        if let (Some(recorder), Some(outcome), false) = (&mut self.recorder, self.machine.outcome(), self.ended) {
            self.ended = true;
            recorder.end(self.machine.now(), outcome)?;
        }
        Ok(self.machine.outcome())
    }
}
